"""The viewer column: the open document's title, find in document, and its two views,
the text as read (``TextView``) and the original page (``PageView``)."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QEvent, QObject, Qt, Signal
from PySide6.QtGui import QImage
from PySide6.QtWidgets import QLineEdit, QTabWidget, QVBoxLayout, QWidget

from reader.errors import ReaderError
from reader.library import Library, render_page
from reader.records import Document
from reader.text.escaping import one_line
from reader.text.reading_view import outside
from reader.ui.labels import plain_label
from reader.ui.library_op import LibraryOp
from reader.ui.ocr_labels import document_note, page_note
from reader.ui.viewer import PageView, TextView
from reader.ui.workers import Job, Workers

PAGE_TAB = 1


class ViewerPanel(QWidget):
    page_shown = Signal(int)  # the page number the Page tab now shows
    page_tab_opened = Signal()
    status_message = Signal(str, int)  # a passing note for the status bar, and its ms

    def __init__(self, library: Library, workers: Workers, passwords: dict[str, str]) -> None:
        super().__init__()
        self.library = library  # the GUI thread's; the window swaps it after a repair
        self.workers = workers
        self.passwords = passwords  # given for PDFs this session, by document id
        self.document: Document | None = None  # the document shown

        self.text_view = TextView()
        self.page_view = PageView()
        self.tabs = QTabWidget()
        self.tabs.addTab(self.text_view, "&Text")
        self.tabs.addTab(self.page_view, "Pa&ge")
        self.tabs.currentChanged.connect(self._on_tab)
        self.find_box = QLineEdit()
        self.find_box.setPlaceholderText("Find in document (Enter: next, Shift+Enter: previous)")
        self.find_box.returnPressed.connect(lambda: self.find_next(backwards=False))
        self.find_box.installEventFilter(self)
        self.find_box.hide()
        self.title = plain_label("Open a document from the library, or drop one here.")
        # A long title wraps rather than widening the window past the screen.
        self.title.setWordWrap(True)
        layout = QVBoxLayout(self)
        layout.addWidget(self.title)
        layout.addWidget(self.find_box)
        layout.addWidget(self.tabs, 1)

    def show_document(self, document: Document) -> None:
        self.document = document
        self.text_view.set_document(document)
        self.show_title(document)
        self.page_view.show_message(
            "Click a claim to see its page."
            if document.kind == "pdf"
            else "No original pages for this kind of document."
        )

    def show_title(self, document: Document) -> None:
        title = one_line(document.title)
        ocr = document_note(document)
        self.title.setText(f"{title} — {document.pages} pages" + (f", {ocr}" if ocr else ""))

    def clear(self) -> None:
        self.document = None
        self.text_view.clear_document()
        self.title.setText("")

    # -- find ------------------------------------------------------------------------------

    def show_find(self) -> None:
        self.find_box.show()
        self.find_box.setFocus()
        self.find_box.selectAll()

    def find_next(self, backwards: bool = False) -> bool:
        text = self.find_box.text()
        if not text:
            return False
        found = self.text_view.find_text(text, backwards)
        self.status_message.emit("" if found else f"'{text}' not found", 3000)
        return found

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.find_box and event.type() == QEvent.Type.KeyPress:
            key = event.key()  # type: ignore[attr-defined]
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

    # -- the original page -----------------------------------------------------------------

    def toggle_page_view(self) -> None:
        self.tabs.setCurrentIndex(1 - self.tabs.currentIndex())

    def _on_tab(self, index: int) -> None:
        if index == PAGE_TAB:
            self.page_tab_opened.emit()

    def render_highlighted_page(self) -> None:
        """Show the original page of the highlighted span, its quoted words boxed."""
        document = self.document
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
        # A page read by OCR has no text layer to take boxes from: they were stored.
        ocr_boxes = (
            self.library.ocr_boxes(document.id, page)
            if page in document.ocr_page_numbers()
            else None
        )
        note = page_note(document, page)

        def render(job: Job) -> Any:
            return render_page(path, page, password=password, spans=relative, ocr_boxes=ocr_boxes)

        def done(result: Any) -> None:
            width, height, stride, samples, rects = result
            image = QImage(samples, width, height, stride, QImage.Format.Format_RGB888).copy()
            self.page_view.show_page(image, page, rects, note)
            self.page_shown.emit(page)

        def failed(error: ReaderError) -> None:
            self.page_view.show_message(f"The original page cannot be shown: {error}")

        LibraryOp(self, self.workers, op=render, success=done).failure(failed).run_in_background()
