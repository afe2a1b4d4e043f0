"""The main window: it builds the panels, lays them out and connects what they say.

The panels are the library column (``reader.ui.library_panel``), the viewer
(``reader.ui.viewer_panel``) and the ask column (``reader.ui.ask_panel``);
each says what happened through its signals and knows nothing of the others.
Here is what follows from those signals (a chosen document shown, a clicked
claim highlighted in the viewer), and what belongs to the whole window: the
menus, the message bar, repairing the library, keys, dropping files, closing.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import Signal
from PySide6.QtGui import QAction, QDragEnterEvent, QDropEvent, QKeySequence
from PySide6.QtWidgets import QMainWindow, QSplitter, QVBoxLayout, QWidget

from reader.config import library_path
from reader.errors import ReaderError
from reader.library import Backend, Library, make_backend
from reader.library.repair import RepairReport
from reader.records import Answer, Document
from reader.text.escaping import one_line
from reader.ui import messages
from reader.ui.ask_panel import AskPanel, BackendFactory
from reader.ui.library_op import LibraryOp
from reader.ui.library_panel import LibraryPanel
from reader.ui.message_bar import MessageBar
from reader.ui.repair import REPAIR_CANCELLED, repair_step, run_repair
from reader.ui.viewer_panel import ViewerPanel
from reader.ui.workers import Task, Workers


def default_backend_factory() -> Backend | None:
    """The backend the user's settings choose (loaded once per process)."""
    return make_backend()


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
        self.workers = Workers(self.database)
        self.passwords: dict[str, str] = {}  # given for PDFs this session, by document id
        self.last_click_ms: float | None = None
        self.repair_task: Task | None = None
        self._previous_excepthook = sys.excepthook
        sys.excepthook = self._on_uncaught
        self._build(backend_factory)
        self.library_panel.refresh()
        self.ask_panel.refresh_health()
        if self.library.read_only_reason:
            messages.warning(
                f"The library cannot be written ({self.library.read_only_reason}): "
                "reading, searching and asking work; nothing is added or recorded."
            )

    @property
    def current(self) -> Document | None:
        """The document in the viewer."""
        return self.viewer.document

    @property
    def answer(self) -> Answer | None:
        """The answer in the ask column."""
        return self.ask_panel.answer

    # -- layout and connections ----------------------------------------------------------

    def _build(self, backend_factory: BackendFactory) -> None:
        self.message = MessageBar()
        self.message.repair_requested.connect(self.repair_library)
        self.library_panel = LibraryPanel(self.library, self.workers, self.passwords)
        self.viewer = ViewerPanel(self.library, self.workers, self.passwords)
        self.ask_panel = AskPanel(self.library, self.workers, backend_factory)

        self.library_panel.document_chosen.connect(self.show_document)
        self.library_panel.document_renamed.connect(self._on_document_renamed)
        self.library_panel.document_removed.connect(self._on_document_removed)
        self.library_panel.heading_chosen.connect(self.viewer.text_view.scroll_to)
        self.viewer.page_tab_opened.connect(self._on_page_tab_opened)
        self.viewer.page_shown.connect(self.page_shown)
        self.ask_panel.claim_clicked.connect(self.activate_claim)
        self.ask_panel.answer_shown.connect(self.answer_shown)
        for panel in (self.library_panel, self.viewer, self.ask_panel):
            panel.status_message.connect(self.statusBar().showMessage)

        splitter = QSplitter()
        splitter.addWidget(self.library_panel)
        splitter.addWidget(self.viewer)
        splitter.addWidget(self.ask_panel)
        splitter.setSizes([230, 620, 430])
        central = QWidget()
        central_layout = QVBoxLayout(central)
        central_layout.setContentsMargins(4, 4, 4, 4)
        central_layout.addWidget(self.message)
        central_layout.addWidget(splitter, 1)
        self.central = central
        self.setCentralWidget(central)
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

        library, viewer, ask = self.library_panel, self.viewer, self.ask_panel
        file_menu = self.menuBar().addMenu("&File")
        action(file_menu, "&Open…", QKeySequence.StandardKey.Open, library.choose_files)
        action(file_menu, "Add &folder…", "Ctrl+Shift+O", library.choose_folder)
        action(file_menu, "&Settings…", "Ctrl+,", self.open_settings)
        action(file_menu, "Export answer as &Markdown…", "Ctrl+E", ask.save_markdown)
        action(file_menu, "&Repair library…", None, self.repair_library)
        action(file_menu, "&Quit", QKeySequence.StandardKey.Quit, self.close)
        view_menu = self.menuBar().addMenu("&View")
        action(view_menu, "&Find in document", QKeySequence.StandardKey.Find, viewer.show_find)
        action(view_menu, "Toggle &page view", "Ctrl+Shift+P", viewer.toggle_page_view)
        action(view_menu, "Focus &question", "Ctrl+L", ask.question.setFocus)
        action(view_menu, "Focus &library", "Ctrl+1", library.documents.setFocus)
        action(view_menu, "Focus &viewer", "Ctrl+2", viewer.text_view.setFocus)
        action(view_menu, "Focus &answer", "Ctrl+3", ask.answer_view.setFocus)
        view_menu.addSeparator()

        page_view = viewer.page_view

        def on_page(zoom: Callable[[], None]) -> Callable[[], None]:
            # Zooming is about the original page, so it brings the Page tab forward.
            def show_and_zoom() -> None:
                viewer.tabs.setCurrentWidget(page_view)
                zoom()

            return show_and_zoom

        # Ctrl+1 to Ctrl+3 move the focus, so the fits take Ctrl+8 and Ctrl+9.
        action(view_menu, "Page: fit &width", "Ctrl+8", on_page(page_view.fit_width))
        action(view_menu, "Page: fit w&hole page", "Ctrl+9", on_page(page_view.fit_page))
        zoom_in = action(
            view_menu,
            "Page: zoom &in",
            QKeySequence.StandardKey.ZoomIn,
            on_page(page_view.zoom_in),
        )
        zoom_in.setShortcuts(
            [QKeySequence(QKeySequence.StandardKey.ZoomIn), QKeySequence("Ctrl+=")]
        )
        action(
            view_menu,
            "Page: zoom &out",
            QKeySequence.StandardKey.ZoomOut,
            on_page(page_view.zoom_out),
        )
        action(view_menu, "Page: actual si&ze", "Ctrl+0", on_page(page_view.actual_size))

    # -- documents -----------------------------------------------------------------------

    def show_document(self, doc_id: str) -> Document:
        if self.current is not None and self.current.id == doc_id:
            return self.current
        document = self.library.document(doc_id)
        self.viewer.show_document(document)
        self._title_window(document)
        self.library_panel.select_shown(doc_id)
        self.library_panel.show_outline(document)
        self.ask_panel.document_id = doc_id
        self.ask_panel.refresh_history()
        self.document_shown.emit(doc_id)
        return document

    def _on_document_renamed(self, doc_id: str, title: str) -> None:
        document = self.current
        if document is not None and document.id == doc_id:
            document.title = title
            self.viewer.show_title(document)
            self._title_window(document)

    def _title_window(self, document: Document) -> None:
        self.setWindowTitle(f"{one_line(document.title)} — reader")

    def _on_document_removed(self, doc_id: str) -> None:
        if self.current is not None and self.current.id == doc_id:
            self.viewer.clear()
            self.library_panel.outline.clear()
            self._no_document()

    def _no_document(self) -> None:
        """No document is the current one: none is kept selected in the list, and
        "This document" has none to ask."""
        self.viewer.document = None
        self.library_panel.shown = None
        self.ask_panel.document_id = None

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        if event.mimeData().hasUrls():
            event.acceptProposedAction()

    def dropEvent(self, event: QDropEvent) -> None:
        for url in event.mimeData().urls():
            if url.isLocalFile():
                self.library_panel.open_path(Path(url.toLocalFile()))

    # -- claims --------------------------------------------------------------------------

    def activate_claim(self, index: int) -> bool:
        """Scroll the viewer to a verified claim's span and highlight it."""
        answer = self.answer
        if answer is None or not 0 <= index < len(answer.claims):
            return False
        item = answer.claims[index]
        check = item.verification
        if not item.verified or check.start is None or check.end is None or not item.doc_id:
            return False
        started = time.perf_counter()
        if self.current is None or self.current.id != item.doc_id:
            self.show_document(item.doc_id)
        text_view = self.viewer.text_view
        text_view.highlight(check.start, check.end)
        text_view.viewport().repaint()
        self.last_click_ms = (time.perf_counter() - started) * 1000
        read_by_ocr = (
            " (read by OCR)"
            if self.current is not None and check.page in self.current.ocr_page_numbers()
            else ""
        )
        self.statusBar().showMessage(
            f"Claim {index + 1}: {one_line(check.page_name())}{read_by_ocr}, "
            f"characters {check.start}–{check.end}",
            8000,
        )
        if self.current is not None and self.current.kind == "pdf":
            self.viewer.render_highlighted_page()
        return True

    def _on_page_tab_opened(self) -> None:
        # The page is drawn for a claim of the answer shown; while a question is
        # being answered there is none, whatever the text still highlights.
        if self.answer is not None and self.viewer.text_view.highlighted_range():
            self.viewer.render_highlighted_page()

    # -- repair and settings ---------------------------------------------------------------

    def repair_library(self) -> Task | None:
        """Rebuild the library in the background, as ``reader repair`` does, then reopen it."""
        if self.repair_task is not None or self.workers.busy():
            messages.error("Wait for the current work to finish, then repair.")
            return None
        self.library.close()
        self.central.setEnabled(False)

        def finished() -> None:
            self.repair_task = None
            self.central.setEnabled(True)
            try:
                self.library = Library(self.database)
            except ReaderError as error:
                messages.report(error)
                return
            for panel in (self.library_panel, self.viewer, self.ask_panel):
                panel.library = self.library
            # The document shown may be one the repair lost: it is no longer current.
            self._no_document()
            self.library_panel.refresh()
            self.ask_panel.refresh_history()
            self.ask_panel.refresh_health()

        def done(report: RepairReport) -> None:
            finished()
            say = messages.error if report.lost else messages.info
            say(" ".join(report.lines()))
            self.library_repaired.emit(report)

        def failed(error: ReaderError) -> None:
            finished()
            messages.report(error)

        # Only closing the window (the workers' shutdown) cancels a repair: the strip
        # shows no Cancel button for it.
        self.repair_task = (
            LibraryOp(self, self.workers, op=run_repair, success=done)
            .failure(failed)
            .on_cancelled(lambda: failed(ReaderError(REPAIR_CANCELLED)))
            .on_progress(lambda step: self.library_panel.progress.show_step(repair_step(step)))
            .with_progress("Repairing the library…", self.library_panel.progress, cancellable=False)
            .run_in_background()
        )
        return self.repair_task

    def open_settings(self) -> None:
        from reader.ui.settings import SettingsDialog

        if SettingsDialog(self).exec():
            # Another model may answer now: it is prepared as the next words are typed.
            self.ask_panel.forget_preparation()

    # -- closing -------------------------------------------------------------------------

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
            messages.report(error)
        else:
            self._previous_excepthook(kind, error, traceback)
