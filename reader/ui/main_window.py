"""The main window: library, viewer, ask panel, history, health, settings."""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import QEvent, QObject, Qt, Signal
from PySide6.QtGui import QAction, QDragEnterEvent, QDropEvent, QImage, QKeySequence
from PySide6.QtWidgets import (
    QApplication,
    QComboBox,
    QFileDialog,
    QHBoxLayout,
    QInputDialog,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QMainWindow,
    QProgressBar,
    QPushButton,
    QSplitter,
    QTabWidget,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from reader.answer import Answerer, reverify
from reader.answer.backends import Backend
from reader.answer.events import ClaimChecked, Status, Token
from reader.answer.render import render_markdown, verification_summary
from reader.answer.setup import make_backend
from reader.answer.stats import verification_stats
from reader.config import library_path, load_settings
from reader.errors import EncryptedDocumentError, LibraryDamagedError, ReaderError, StoreError
from reader.ingest.extract import PYMUPDF_TYPES, TEXT_TYPES
from reader.ingest.layout import render_page
from reader.library import IngestResult, Library
from reader.readingtext import outside
from reader.records import Answer, CheckedClaim, Document
from reader.repair import RepairReport
from reader.textsafe import one_line, rich_text_lines
from reader.ui.answer_view import AnswerView
from reader.ui.health import HealthPanel
from reader.ui.labels import plain_label
from reader.ui.repair import REPAIR_BUTTON, repair_work
from reader.ui.viewer import PageView, TextView
from reader.ui.workers import Task, TaskCancelled, Workers

BackendFactory = Callable[[], Backend | None]
OPEN_FILTER = "Documents ({})".format(
    " ".join(f"*{suffix}" for suffix in [*PYMUPDF_TYPES, *TEXT_TYPES])
)


def default_backend_factory() -> Backend | None:
    """The backend the user's settings choose (loaded once per process)."""
    return make_backend()


class MessageBar(QWidget):
    """One place where any part of the window reports a problem or a notice."""

    def __init__(self) -> None:
        super().__init__()
        layout = QHBoxLayout(self)
        layout.setContentsMargins(6, 2, 6, 2)
        self.label = plain_label()
        self.label.setWordWrap(True)
        self.label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.action = QPushButton()
        self.action.hide()
        self._action_slot: Callable[[], Any] | None = None
        self.action.clicked.connect(self._on_action)
        close = QPushButton("Dismiss")
        close.clicked.connect(self.hide)
        layout.addWidget(self.label, 1)
        layout.addWidget(self.action)
        layout.addWidget(close)
        self.hide()

    def show_message(
        self,
        text: str,
        error: bool = True,
        action: tuple[str, Callable[[], Any]] | None = None,
    ) -> None:
        """Show ``text``; ``action`` adds a button (label, slot) that does what it suggests."""
        color = "#c0392b" if error else "#2471a3"
        self.label.setStyleSheet(f"color: {color}")
        self.label.setText(one_line(text))
        self._action_slot = action[1] if action else None
        self.action.setText(action[0] if action else "")
        self.action.setVisible(action is not None)
        self.show()

    def _on_action(self) -> None:
        slot = self._action_slot
        self.hide()
        if slot is not None:
            slot()


class MainWindow(QMainWindow):
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
        if self.library.store.read_only:
            self.message.show_message(
                f"The library cannot be written ({self.library.store.read_only_reason}): "
                "reading, searching and asking work; nothing is added or recorded.",
                error=False,
            )

    # -- layout ------------------------------------------------------------------------

    def _build(self) -> None:
        self.message = MessageBar()

        # Library panel
        self.documents = QListWidget()
        self.documents.setAccessibleName("Documents")
        self.documents.itemActivated.connect(self._on_document_activated)
        self.documents.itemClicked.connect(self._on_document_activated)
        open_button = QPushButton("&Open…")
        open_button.clicked.connect(self.choose_files)
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
        self.question = QLineEdit()
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

    # -- library -----------------------------------------------------------------------

    def refresh_library(self) -> None:
        selected = self.current.id if self.current else None
        self.documents.clear()
        for record in self.library.documents():
            warnings = [str(w) for w in record["warnings"]]  # type: ignore[attr-defined]
            title = one_line(str(record["title"]))
            item = QListWidgetItem(
                f"{title}\n{record['pages']} pages · {record['chunks']} chunks"
                + (" · warning" if warnings else "")
            )
            item.setData(Qt.ItemDataRole.UserRole, record["id"])
            item.setToolTip(rich_text_lines(str(record["path"]), *warnings))
            self.documents.addItem(item)
            if record["id"] == selected:
                self.documents.setCurrentItem(item)

    def choose_files(self) -> None:
        paths, _ = QFileDialog.getOpenFileNames(self, "Open documents", "", OPEN_FILTER)
        for path in paths:
            self.open_path(Path(path))

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        if event.mimeData().hasUrls():
            event.acceptProposedAction()

    def dropEvent(self, event: QDropEvent) -> None:
        for url in event.mimeData().urls():
            if url.isLocalFile():
                self.open_path(Path(url.toLocalFile()))

    def ask_password(self, name: str) -> str | None:
        """Ask for a PDF's password; None when the user cancels."""
        password, accepted = QInputDialog.getText(
            self,
            "Password needed",
            rich_text_lines(f"{name} is password-protected. Password:"),
            QLineEdit.EchoMode.Password,
        )
        return password if accepted and password else None

    def open_path(self, path: Path, password: str | None = None) -> Task:
        """Ingest a file in the background (if needed) and show it."""
        database = self.database
        self.ingest_label.setText(f"Reading {one_line(path.name)}…")
        self.ingest_label.show()
        self.ingest_progress.setRange(0, 0)
        self.ingest_progress.show()
        self.ingest_cancel.show()

        def work(report: Callable[[Any], None], cancel: threading.Event) -> IngestResult:
            def progress(done: int, total: int) -> None:
                if cancel.is_set():
                    raise TaskCancelled("Ingest cancelled.")
                report((done, total))

            with Library(database) as library:
                return library.ingest(path, password=password, progress=progress)

        def failed(error: ReaderError) -> None:
            self._ingest_finished()
            if isinstance(error, EncryptedDocumentError):
                if password is not None:
                    self.message.show_message(str(error))
                given = self.ask_password(path.name)
                if given:
                    self.open_path(path, given)
                return
            self.show_error(error)

        def done(result: IngestResult) -> None:
            self._ingest_finished()
            if password:
                self.passwords[result.doc_id] = password
            self.refresh_library()
            if result.warnings:
                self.message.show_message(" ".join(result.warnings), error=False)
            self.show_document(result.doc_id)

        def cancelled() -> None:
            self._ingest_finished()
            self.statusBar().showMessage("Ingest cancelled; the library is unchanged.", 5000)

        self.ingest_task = self.workers.submit(
            self.workers.documents, work, done, failed, self._on_ingest_progress, cancelled
        )
        return self.ingest_task

    def _on_ingest_progress(self, value: tuple[int, int]) -> None:
        done, total = value
        self.ingest_progress.setRange(0, total)
        self.ingest_progress.setValue(done)

    def _ingest_finished(self) -> None:
        self.ingest_task = None
        self.ingest_progress.hide()
        self.ingest_label.hide()
        self.ingest_cancel.hide()

    def cancel_ingest(self) -> None:
        if self.ingest_task is not None:
            self.ingest_task.cancel()

    def remove_selected(self) -> None:
        item = self.documents.currentItem()
        if item is None:
            return
        doc_id = item.data(Qt.ItemDataRole.UserRole)
        self.library.remove(doc_id)
        if self.current and self.current.id == doc_id:
            self.current = None
            self.text_view.clear_document()
            self.outline.clear()
            self.viewer_title.setText("")
        self.refresh_library()

    def _on_document_activated(self, item: QListWidgetItem) -> None:
        self.show_document(item.data(Qt.ItemDataRole.UserRole))

    # -- viewer ------------------------------------------------------------------------

    def show_document(self, doc_id: str) -> Document:
        if self.current is not None and self.current.id == doc_id:
            return self.current
        document = self.library.document(doc_id)
        self.current = document
        self.text_view.set_document(document)
        title = one_line(document.title)
        self.viewer_title.setText(f"{title} — {document.pages} pages")
        self.setWindowTitle(f"{title} — reader")
        self._fill_outline(document)
        self.page_view.show_message(
            "Click a claim to see its page."
            if document.kind == "pdf"
            else "No original pages for this kind of document."
        )
        self.refresh_history()
        self.document_shown.emit(doc_id)
        return document

    def _fill_outline(self, document: Document) -> None:
        self.outline.clear()
        stack: list[tuple[int, QTreeWidgetItem]] = []
        for heading in document.headings:
            item = QTreeWidgetItem([one_line(heading.title)])
            item.setData(0, Qt.ItemDataRole.UserRole, heading.offset)
            while stack and stack[-1][0] >= heading.level:
                stack.pop()
            if stack:
                stack[-1][1].addChild(item)
            else:
                self.outline.addTopLevelItem(item)
            stack.append((heading.level, item))

    def _on_outline_activated(self, item: QTreeWidgetItem) -> None:
        self.text_view.scroll_to(int(item.data(0, Qt.ItemDataRole.UserRole)))

    def show_find(self) -> None:
        self.find_box.show()
        self.find_box.setFocus()
        self.find_box.selectAll()

    def find_next(self, backwards: bool = False) -> bool:
        text = self.find_box.text()
        if not text:
            return False
        found = self.text_view.find_text(text, backwards)
        self.statusBar().showMessage("" if found else f"'{text}' not found", 3000)
        return found

    def toggle_page_view(self) -> None:
        self.viewer_tabs.setCurrentIndex(1 - self.viewer_tabs.currentIndex())

    def _on_viewer_tab(self, index: int) -> None:
        if index == 1 and self.answer is not None and self.text_view.highlighted_range():
            self._render_page_for_highlight()

    # -- asking ------------------------------------------------------------------------

    def ask_current(self) -> Task | None:
        question = self.question.text().strip()
        if not question or self.ask_task is not None:
            return None
        whole_library = self.scope.currentIndex() == 1
        if not whole_library and self.current is None:
            self.message.show_message("Open a document first, or ask the whole library.")
            return None
        doc_ids = None if whole_library else [self.current.id]  # type: ignore[union-attr]
        return self.ask(question, doc_ids)

    def ask(self, question: str, doc_ids: list[str] | None) -> Task:
        database = self.database
        factory = self.backend_factory
        mode = str(load_settings().get("mode") or "auto")
        self._streamed_claims = []
        self._streamed_text = ""
        self.answer = None
        self.badge.setText("")
        self.answer_view.show_text("")
        self.ask_status.setText("Starting…")
        self.ask_button.setEnabled(False)
        self.cancel_button.setEnabled(True)

        def work(report: Callable[[Any], None], cancel: threading.Event) -> Answer:
            backend = factory()
            with Library(database) as library:
                answerer = Answerer(library, backend, mode=mode)
                load = getattr(backend, "load", None)
                if load is not None and answerer.uses_model:
                    report(Status("loading model"))
                    load()
                if cancel.is_set():
                    raise TaskCancelled("Cancelled.")
                return answerer.ask(question, doc_ids, on_event=report, cancel=cancel)

        self.ask_task = self.workers.submit(
            self.workers.model,
            work,
            self._on_answer,
            self._on_ask_failed,
            self._on_ask_event,
            self._on_ask_cancelled,
        )
        return self.ask_task

    def cancel_ask(self) -> None:
        if self.ask_task is not None:
            self.ask_task.cancel()
            self.ask_status.setText("Cancelling…")

    def _on_ask_event(self, event: object) -> None:
        if isinstance(event, Status):
            self.ask_status.setText(f"{event.stage.capitalize()}… {event.detail}".strip())
        elif isinstance(event, Token):
            self._streamed_text += event.text
            self._show_stream()
        elif isinstance(event, ClaimChecked):
            self._streamed_claims.append(event.claim)
            self._show_stream()

    def _show_stream(self) -> None:
        self.answer_view.show_stream(self._streamed_text, self._streamed_claims)

    def _ask_finished(self) -> None:
        self.ask_task = None
        self.ask_button.setEnabled(True)
        self.cancel_button.setEnabled(False)

    def _on_answer(self, answer: Answer) -> None:
        self._ask_finished()
        self.show_answer(answer)
        source = "from the evidence" if answer.mode == "passages" else f"by {answer.model}"
        self.ask_status.setText(f"Answered in {answer.metrics.seconds:.1f} s {source}.")
        if answer.not_recorded:
            self.show_error(StoreError(f"The answer is shown but {answer.not_recorded}."))
        self.refresh_history()
        self.refresh_health()

    def show_answer(self, answer: Answer) -> None:
        self.answer = answer
        # Titles only: loading whole documents here would cost the GUI thread.
        doc_ids = {c.doc_id for c in answer.claims if c.doc_id} | set(answer.doc_ids)
        self.answer_view.show_answer(answer, self.library.store.titles(sorted(doc_ids)))
        self.badge.setText(verification_summary(answer).capitalize())
        self.answer_shown.emit()

    def _on_ask_failed(self, error: ReaderError) -> None:
        self._ask_finished()
        self.ask_status.setText("")
        self.show_error(error)

    def _on_ask_cancelled(self) -> None:
        self._ask_finished()
        self.ask_status.setText("Cancelled.")

    # -- claims ------------------------------------------------------------------------

    def activate_claim(self, index: int) -> bool:
        """Scroll the viewer to a verified claim's span and highlight it."""
        if self.answer is None or not 0 <= index < len(self.answer.claims):
            return False
        item = self.answer.claims[index]
        check = item.verification
        if not item.verified or check.start is None or check.end is None or not item.doc_id:
            return False
        started = time.perf_counter()
        if self.current is None or self.current.id != item.doc_id:
            self.show_document(item.doc_id)
        self.text_view.highlight(check.start, check.end)
        self.text_view.viewport().repaint()
        self.last_click_ms = (time.perf_counter() - started) * 1000
        self.statusBar().showMessage(
            f"Claim {index + 1}: page {check.page}, characters {check.start}–{check.end}", 8000
        )
        if self.current is not None and self.current.kind == "pdf":
            self._render_page_for_highlight()
        return True

    def _render_page_for_highlight(self) -> None:
        document = self.current
        span = self.text_view.highlighted_range()
        if document is None or span is None or document.kind != "pdf":
            return
        start, end = span
        page = document.page_of(start)
        page_start, page_end = document.page_range(page)
        # The quoted words on the span's first page, not the running head between them.
        relative = [
            (low - page_start, min(high, page_end) - page_start)
            for low, high in outside(start, end, document.furniture)
            if low < page_end
        ]
        path, password = document.path, self.passwords.get(document.id)

        def work(report: Callable[[Any], None], cancel: threading.Event) -> Any:
            return render_page(path, page, password=password, spans=relative)

        def done(result: Any) -> None:
            width, height, stride, samples, rects = result
            image = QImage(samples, width, height, stride, QImage.Format.Format_RGB888).copy()
            self.page_view.show_page(image, page, rects)
            self.page_shown.emit(page)

        def failed(error: ReaderError) -> None:
            self.page_view.show_message(f"The original page cannot be shown: {error}")

        self.workers.submit(self.workers.documents, work, done, failed)

    # -- history, health, export, settings -----------------------------------------------

    def refresh_history(self) -> None:
        self.history.clear()
        doc_id = self.current.id if self.current else None
        for answer in self.library.store.answers(doc_id, limit=100):
            item = QListWidgetItem(
                f"{one_line(answer.question)}\n{verification_summary(answer)} · {answer.created_at}"
            )
            item.setData(Qt.ItemDataRole.UserRole, answer.id)
            self.history.addItem(item)

    def _on_history_activated(self, item: QListWidgetItem) -> Task:
        """Re-verify a stored answer against the library as it is now, then show it.

        Building a document's verifier takes a noticeable moment on a long book, so
        it happens on a worker with its own connection, like ingest.
        """
        answer_id = int(item.data(Qt.ItemDataRole.UserRole))
        database = self.database

        def work(report: Callable[[Any], None], cancel: threading.Event) -> Answer | None:
            with Library(database) as library:
                stored = library.store.answer(answer_id)
                return reverify(library, stored) if stored is not None else None

        def done(answer: Answer | None) -> None:
            if answer is None:
                self.message.show_message("That answer is no longer in the history.")
                return
            self.show_answer(answer)
            self.side_tabs.setCurrentIndex(0)
            self.ask_status.setText(f"Asked {answer.created_at}; checked again just now.")

        def failed(error: ReaderError) -> None:
            self.ask_status.setText("")
            self.show_error(error)

        self.ask_status.setText("Checking the stored answer against the library…")
        return self.workers.submit(self.workers.documents, work, done, failed)

    def refresh_health(self) -> None:
        self.health.set_stats(verification_stats(self.library.store.answer_rows()))

    def markdown(self) -> str | None:
        if self.answer is None:
            return None
        doc_ids = sorted({c.doc_id for c in self.answer.claims if c.doc_id})
        return render_markdown(self.answer, self.library.store.titles(doc_ids))

    def copy_markdown(self) -> None:
        text = self.markdown()
        if text:
            QApplication.clipboard().setText(text)
            self.statusBar().showMessage("Answer copied as Markdown.", 4000)

    def save_markdown(self) -> None:
        text = self.markdown()
        if not text:
            return
        path, _ = QFileDialog.getSaveFileName(self, "Save answer", "answer.md", "Markdown (*.md)")
        if path:
            Path(path).write_text(text, encoding="utf-8")

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
