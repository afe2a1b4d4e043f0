"""The main window: its layout, menus, errors and repair, keys and closing.

What the window does is split by what it serves: ``reader.ui.documents`` (the
library list, opening files, the viewer) and ``reader.ui.asking`` (questions,
answers, claims, history and export), mixed into ``MainWindow``.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import QEvent, QObject, Qt, Signal
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLineEdit,
    QListWidget,
    QMainWindow,
    QProgressBar,
    QPushButton,
    QSplitter,
    QTabWidget,
    QTreeWidget,
    QVBoxLayout,
    QWidget,
)

from reader.answer.backends import Backend
from reader.answer.setup import make_backend
from reader.config import library_path
from reader.errors import LibraryDamagedError, ReaderError
from reader.library import Library
from reader.library.repair import RepairReport
from reader.records import Answer, CheckedClaim, Document
from reader.text.escaping import one_line
from reader.ui.answer_view import AnswerView
from reader.ui.asking import AskingMixin
from reader.ui.documents import DocumentsMixin
from reader.ui.elided_list import elide_to_width
from reader.ui.health import HealthPanel
from reader.ui.labels import plain_label
from reader.ui.message_bar import MessageBar
from reader.ui.question_box import QuestionBox
from reader.ui.repair import REPAIR_BUTTON, repair_work
from reader.ui.viewer import PageView, TextView
from reader.ui.workers import Task, Workers

BackendFactory = Callable[[], Backend | None]


def default_backend_factory() -> Backend | None:
    """The backend the user's settings choose (loaded once per process)."""
    return make_backend()


class MainWindow(DocumentsMixin, AskingMixin, QMainWindow):
    document_shown = Signal(str)
    answer_shown = Signal()
    page_shown = Signal(int)
    library_repaired = Signal(object)  # the RepairReport

    def __init__(
        self,
        database: Path | None = None,
        backend_factory: BackendFactory = default_backend_factory,
    ) -> None:
        super().__init__()
        self.setWindowTitle("reader")
        self.setAcceptDrops(True)
        self.database = Path(database) if database else library_path()
        self.library = Library(self.database)
        self.backend_factory = backend_factory
        self.workers = Workers()
        self.passwords: dict[str, str] = {}
        self.current: Document | None = None
        self.answer: Answer | None = None
        self.ask_task: Task | None = None
        self.ingest_task: Task | None = None
        self.last_click_ms: float | None = None
        self._streamed_claims: list[CheckedClaim] = []
        self._streamed_text = ""
        self.repair_task: Task | None = None
        self._previous_excepthook = sys.excepthook
        sys.excepthook = self._on_uncaught
        self._build()
        self.refresh_library()
        self.refresh_health()
        if self.library.read_only_reason:
            self.message.show_message(
                f"The library cannot be written ({self.library.read_only_reason}): "
                "reading, searching and asking work; nothing is added or recorded.",
                error=False,
            )

    # -- layout ------------------------------------------------------------------------

    def _build(self) -> None:
        self.message = MessageBar()

        # Library panel
        self.documents = QListWidget()
        self.documents.setAccessibleName("Documents")
        elide_to_width(self.documents)  # a long title's tooltip has it whole
        self.documents.itemActivated.connect(self._on_document_activated)
        self.documents.itemClicked.connect(self._on_document_activated)
        open_button = QPushButton("&Open…")
        open_button.clicked.connect(self.choose_files)
        folder_button = QPushButton("Add &folder…")
        folder_button.clicked.connect(self.choose_folder)
        remove_button = QPushButton("&Remove")
        remove_button.clicked.connect(self.remove_selected)
        self.ingest_progress = QProgressBar()
        self.ingest_progress.hide()
        self.ingest_label = plain_label()
        self.ingest_label.hide()
        self.ingest_cancel = QPushButton("Cancel ingest")
        self.ingest_cancel.hide()
        self.ingest_cancel.clicked.connect(self.cancel_ingest)
        self.outline = QTreeWidget()
        self.outline.setHeaderLabel("Outline")
        self.outline.itemActivated.connect(self._on_outline_activated)
        self.outline.itemClicked.connect(self._on_outline_activated)
        library_panel = QWidget()
        library_layout = QVBoxLayout(library_panel)
        library_layout.addWidget(plain_label("Library", bold=True))
        library_layout.addWidget(self.documents, 2)
        buttons = QHBoxLayout()
        buttons.addWidget(open_button)
        buttons.addWidget(folder_button)
        buttons.addWidget(remove_button)
        library_layout.addLayout(buttons)
        library_layout.addWidget(self.ingest_label)
        library_layout.addWidget(self.ingest_progress)
        library_layout.addWidget(self.ingest_cancel)
        library_layout.addWidget(self.outline, 3)

        # Viewer
        self.text_view = TextView()
        self.page_view = PageView()
        self.viewer_tabs = QTabWidget()
        self.viewer_tabs.addTab(self.text_view, "&Text")
        self.viewer_tabs.addTab(self.page_view, "Pa&ge")
        self.viewer_tabs.currentChanged.connect(self._on_viewer_tab)
        self.find_box = QLineEdit()
        self.find_box.setPlaceholderText("Find in document (Enter: next, Shift+Enter: previous)")
        self.find_box.returnPressed.connect(lambda: self.find_next(backwards=False))
        self.find_box.installEventFilter(self)
        self.find_box.hide()
        self.viewer_title = plain_label("Open a document from the library, or drop one here.")
        viewer_panel = QWidget()
        viewer_layout = QVBoxLayout(viewer_panel)
        viewer_layout.addWidget(self.viewer_title)
        viewer_layout.addWidget(self.find_box)
        viewer_layout.addWidget(self.viewer_tabs, 1)

        # Ask panel
        self.question = QuestionBox()
        self.question.setPlaceholderText("Ask a question (Enter to ask, Esc to cancel)")
        self.question.returnPressed.connect(self.ask_current)
        self.question.installEventFilter(self)
        self.scope = QComboBox()
        self.scope.addItems(["This document", "Whole library"])
        self.ask_button = QPushButton("&Ask")
        self.ask_button.clicked.connect(self.ask_current)
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.clicked.connect(self.cancel_ask)
        self.cancel_button.setEnabled(False)
        self.ask_status = plain_label()
        self.badge = plain_label(bold=True)
        self.answer_view = AnswerView()
        self.answer_view.claim_activated.connect(self.activate_claim)
        copy_button = QPushButton("&Copy as Markdown")
        copy_button.clicked.connect(self.copy_markdown)
        save_button = QPushButton("Sa&ve as Markdown…")
        save_button.clicked.connect(self.save_markdown)
        ask_panel = QWidget()
        ask_layout = QVBoxLayout(ask_panel)
        ask_layout.addWidget(self.question)
        row = QHBoxLayout()
        row.addWidget(self.scope, 1)
        row.addWidget(self.ask_button)
        row.addWidget(self.cancel_button)
        ask_layout.addLayout(row)
        ask_layout.addWidget(self.ask_status)
        ask_layout.addWidget(self.badge)
        ask_layout.addWidget(self.answer_view, 1)
        export_row = QHBoxLayout()
        export_row.addWidget(copy_button)
        export_row.addWidget(save_button)
        ask_layout.addLayout(export_row)

        self.history = QListWidget()
        # An entry wraps to the panel's width, so its question and time are read whole.
        self.history.setWordWrap(True)
        self.history.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.history.itemActivated.connect(self._on_history_activated)
        self.history.itemClicked.connect(self._on_history_activated)
        self.health = HealthPanel()
        self.side_tabs = QTabWidget()
        self.side_tabs.addTab(ask_panel, "As&k")
        self.side_tabs.addTab(self.history, "&History")
        self.side_tabs.addTab(self.health, "Hea&lth")

        splitter = QSplitter()
        splitter.addWidget(library_panel)
        splitter.addWidget(viewer_panel)
        splitter.addWidget(self.side_tabs)
        splitter.setSizes([230, 620, 430])
        central = QWidget()
        central_layout = QVBoxLayout(central)
        central_layout.setContentsMargins(4, 4, 4, 4)
        central_layout.addWidget(self.message)
        central_layout.addWidget(splitter, 1)
        self.central = central
        self.setCentralWidget(central)
        self.statusBar()
        self._build_menus()

    def _build_menus(self) -> None:
        def action(menu: Any, text: str, shortcut: Any, slot: Callable[[], Any]) -> QAction:
            item = QAction(text, self)
            if shortcut:
                item.setShortcut(QKeySequence(shortcut))
            item.triggered.connect(slot)
            menu.addAction(item)
            self.addAction(item)
            return item

        file_menu = self.menuBar().addMenu("&File")
        action(file_menu, "&Open…", QKeySequence.StandardKey.Open, self.choose_files)
        action(file_menu, "Add &folder…", "Ctrl+Shift+O", self.choose_folder)
        action(file_menu, "&Settings…", "Ctrl+,", self.open_settings)
        action(file_menu, "Export answer as &Markdown…", "Ctrl+E", self.save_markdown)
        action(file_menu, "&Repair library…", None, self.repair_library)
        action(file_menu, "&Quit", QKeySequence.StandardKey.Quit, self.close)
        view_menu = self.menuBar().addMenu("&View")
        action(view_menu, "&Find in document", QKeySequence.StandardKey.Find, self.show_find)
        action(view_menu, "Toggle &page view", "Ctrl+Shift+P", self.toggle_page_view)
        action(view_menu, "Focus &question", "Ctrl+L", self.question.setFocus)
        action(view_menu, "Focus &library", "Ctrl+1", self.documents.setFocus)
        action(view_menu, "Focus &viewer", "Ctrl+2", self.text_view.setFocus)
        action(view_menu, "Focus &answer", "Ctrl+3", self.answer_view.setFocus)
        view_menu.addSeparator()

        def on_page(zoom: Callable[[], None]) -> Callable[[], None]:
            # Zooming is about the original page, so it brings the Page tab forward.
            def show_and_zoom() -> None:
                self.viewer_tabs.setCurrentWidget(self.page_view)
                zoom()

            return show_and_zoom

        # Ctrl+1 to Ctrl+3 move the focus, so the fits take Ctrl+8 and Ctrl+9.
        action(view_menu, "Page: fit &width", "Ctrl+8", on_page(self.page_view.fit_width))
        action(view_menu, "Page: fit w&hole page", "Ctrl+9", on_page(self.page_view.fit_page))
        zoom_in = action(
            view_menu,
            "Page: zoom &in",
            QKeySequence.StandardKey.ZoomIn,
            on_page(self.page_view.zoom_in),
        )
        zoom_in.setShortcuts(
            [QKeySequence(QKeySequence.StandardKey.ZoomIn), QKeySequence("Ctrl+=")]
        )
        action(
            view_menu,
            "Page: zoom &out",
            QKeySequence.StandardKey.ZoomOut,
            on_page(self.page_view.zoom_out),
        )
        action(view_menu, "Page: actual si&ze", "Ctrl+0", on_page(self.page_view.actual_size))

    # -- errors and repair ---------------------------------------------------------------

    def show_error(self, error: ReaderError) -> None:
        """Report an error in the message bar; a damaged library gets a button to repair it."""
        if isinstance(error, LibraryDamagedError):
            self.message.show_message(str(error), action=(REPAIR_BUTTON, self.repair_library))
        else:
            self.message.show_message(str(error))

    def repair_library(self) -> Task | None:
        """Rebuild the library in the background, as ``reader repair`` does, then reopen it."""
        if self.repair_task is not None or self.workers.busy():
            self.message.show_message("Wait for the current work to finish, then repair.")
            return None
        self.library.close()
        self.central.setEnabled(False)
        self.ingest_label.setText("Repairing the library…")
        self.ingest_label.show()
        self.ingest_progress.setRange(0, 0)
        self.ingest_progress.show()

        def finished() -> None:
            self.repair_task = None
            self.ingest_label.hide()
            self.ingest_progress.hide()
            self.central.setEnabled(True)
            try:
                self.library = Library(self.database)
            except ReaderError as error:
                self.show_error(error)
                return
            self.current = None
            self.refresh_library()
            self.refresh_history()
            self.refresh_health()

        def done(report: RepairReport) -> None:
            finished()
            self.message.show_message(" ".join(report.lines()), error=bool(report.lost))
            self.library_repaired.emit(report)

        def failed(error: ReaderError) -> None:
            finished()
            self.show_error(error)

        self.repair_task = self.workers.submit(
            self.workers.documents,
            repair_work(self.database),
            done,
            failed,
            lambda step: self.ingest_label.setText(f"Repairing the library: {one_line(step)}"),
            lambda: failed(ReaderError("Repair cancelled; the library is as it was.")),
        )
        return self.repair_task

    def open_settings(self) -> None:
        from reader.ui.settings import SettingsDialog

        SettingsDialog(self).exec()

    # -- keyboard and closing ------------------------------------------------------------

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.KeyPress:
            key = event.key()  # type: ignore[attr-defined]
            if watched is self.question and key == Qt.Key.Key_Escape:
                self.cancel_ask()
                return True
            if watched is self.find_box:
                if key == Qt.Key.Key_Escape:
                    self.find_box.hide()
                    self.text_view.setFocus()
                    return True
                if key in (Qt.Key.Key_Return, Qt.Key.Key_Enter) and (
                    event.modifiers() & Qt.KeyboardModifier.ShiftModifier  # type: ignore[attr-defined]
                ):
                    self.find_next(backwards=True)
                    return True
        return super().eventFilter(watched, event)

    def closeEvent(self, event: Any) -> None:
        self.workers.shutdown()
        self.library.close()
        if sys.excepthook == self._on_uncaught:
            sys.excepthook = self._previous_excepthook
        super().closeEvent(event)

    def _on_uncaught(self, kind: Any, error: BaseException, traceback: Any) -> None:
        """An expected failure in a slot (a damaged library met while listing, say) is
        reported in the message bar, like those from workers; anything else is a bug."""
        if isinstance(error, ReaderError):
            self.show_error(error)
        else:
            self._previous_excepthook(kind, error, traceback)
