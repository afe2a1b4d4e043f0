"""The document viewer: canonical text with highlights, and the original page."""

from __future__ import annotations

from bisect import bisect_left
from typing import Any

from PySide6.QtCore import QRect, Qt
from PySide6.QtGui import (
    QColor,
    QImage,
    QPainter,
    QPixmap,
    QTextCharFormat,
    QTextCursor,
    QTextDocument,
)
from PySide6.QtWidgets import (
    QHBoxLayout,
    QPlainTextEdit,
    QScrollArea,
    QStyle,
    QTextEdit,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from reader.records import Document, Furniture, printed_label
from reader.text.reading_view import outside, reading_view
from reader.ui.labels import plain_label
from reader.ui.page_marks import PageMargin, margin_width, paint_marks_in_text


def highlight_color(widget_palette_dark: bool) -> QColor:
    # A yellow that reads on light and dark palettes alike.
    return QColor(255, 200, 0, 150) if widget_palette_dark else QColor(255, 220, 0, 170)


# C0 controls but the line breaks and tabs the text view shows as such, and DEL.
_CONTROLS_AS_SPACES = {
    code: " " for code in [*range(0x00, 0x09), 0x0B, 0x0C, *range(0x0E, 0x20), 0x7F]
}


class TextView(QPlainTextEdit):
    """The document as read, with one highlighted span at a time.

    The text is the canonical text's reading view (``reader.text.reading_view``):
    paragraphs reflow to the pane's width, words hyphenated at a line end are
    joined, sentences run on across page breaks, and page furniture (running
    heads, page numbers, footnote markers) is shown dimmed; a thin mark and
    the page number in a margin say where each page begins (``page_marks``).
    The view has exactly the canonical text's length, so every offset is an offset of the canonical
    text. Offsets given to it are Python string indices; Qt counts UTF-16
    code units, so characters outside the Basic Multilingual Plane shift
    positions and are accounted for.
    """

    def __init__(self) -> None:
        super().__init__()
        self.setReadOnly(True)
        self.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
        self.setTextInteractionFlags(
            Qt.TextInteractionFlag.TextSelectableByMouse
            | Qt.TextInteractionFlag.TextSelectableByKeyboard
        )
        self.document_id: str | None = None
        self.furniture: list[Furniture] = []
        self.page_starts: list[int] = []
        self.ocr_pages: set[int] = set()  # pages whose text OCR read: marked so
        self.page_labels: list[str] = []  # the numbers printed on the pages, if the file says
        self._astral: list[int] = []
        self._highlight: tuple[int, int] | None = None
        self.page_margin = PageMargin(self)
        self.updateRequest.connect(lambda *_: self.page_margin.update())
        self._place_page_margin()

    def set_document(self, document: Document) -> None:
        self.document_id = document.id
        self.furniture = list(document.furniture)
        self.page_starts = list(document.page_starts)
        self.ocr_pages = set(document.ocr_page_numbers())
        self.page_labels = [
            printed_label(document.page_labels, page) or "" for page in range(1, document.pages + 1)
        ]
        self._astral = [i for i, char in enumerate(document.text) if ord(char) > 0xFFFF]
        self._place_page_margin()
        heading_ends = [_line_end(document.text, h.offset) for h in document.headings]
        shown = reading_view(
            document.text, self.furniture, keep_furniture=True, kept_breaks=heading_ends
        )
        # A control character a PDF left in its text (a BEL after each bullet) would be
        # drawn as a box; a space keeps every offset where it was.
        self.setPlainText(shown.translate(_CONTROLS_AS_SPACES))
        self._dim_furniture()
        self._highlight = None
        self.setExtraSelections([])

    def _dim_furniture(self) -> None:
        dim = QTextCharFormat()
        dim.setForeground(QColor(150, 150, 150))
        dim.setFontPointSize(max(6.0, self.font().pointSizeF() * 0.8))
        cursor = QTextCursor(self.document())
        cursor.beginEditBlock()  # one layout pass for all of them
        for item in self.furniture:
            cursor.setPosition(self.to_qt(item.start))
            cursor.setPosition(self.to_qt(item.end), QTextCursor.MoveMode.KeepAnchor)
            cursor.mergeCharFormat(dim)
        cursor.endEditBlock()

    def clear_document(self) -> None:
        self.document_id = None
        self.furniture = []
        self.page_starts = []
        self.ocr_pages = set()
        self.page_labels = []
        self._astral = []
        self._highlight = None
        self._place_page_margin()
        self.setPlainText("")

    def to_qt(self, offset: int) -> int:
        return offset + bisect_left(self._astral, offset)

    def highlight(self, start: int, end: int) -> None:
        """Highlight ``[start, end)`` and scroll it to the middle of the view.

        The highlight covers the quoted words only: page furniture inside the
        span (a running head between the two halves of a sentence) is left out.
        """
        text_format = QTextCharFormat()
        dark = self.palette().base().color().lightness() < 128
        text_format.setBackground(highlight_color(dark))
        if dark:
            text_format.setForeground(QColor(0, 0, 0))
        selections = []
        for low, high in outside(start, end, self.furniture):
            cursor = QTextCursor(self.document())
            cursor.setPosition(self.to_qt(low))
            cursor.setPosition(self.to_qt(high), QTextCursor.MoveMode.KeepAnchor)
            selection = QTextEdit.ExtraSelection()
            selection.cursor = cursor
            selection.format = text_format
            selections.append(selection)
        self.setExtraSelections(selections)
        caret = QTextCursor(self.document())
        caret.setPosition(self.to_qt(start))
        self.setTextCursor(caret)
        self.centerCursor()
        self._highlight = (start, end)

    def highlighted_range(self) -> tuple[int, int] | None:
        return self._highlight

    def from_qt(self, position: int) -> int:
        """The string index of a Qt position (the inverse of ``to_qt``)."""
        return position - bisect_left([a + n for n, a in enumerate(self._astral)], position)

    def visible_range(self) -> tuple[int, int]:
        """String offsets of the first and last characters in view."""
        viewport = self.viewport().rect()
        top = self.cursorForPosition(viewport.topLeft()).position()
        bottom = self.cursorForPosition(viewport.bottomRight()).position()
        return self.from_qt(top), self.from_qt(bottom)

    def paintEvent(self, event: Any) -> None:
        super().paintEvent(event)
        paint_marks_in_text(self)

    def resizeEvent(self, event: Any) -> None:
        super().resizeEvent(event)
        self._place_page_margin()

    def _place_page_margin(self) -> None:
        """The page numbers' margin: right of the text, left of the scroll bar, and
        only for a document of more than one page."""
        width = margin_width(self) if len(self.page_starts) > 1 else 0
        self.setViewportMargins(0, 0, width, 0)
        viewport = self.viewport().geometry()
        self.page_margin.setGeometry(
            QRect(viewport.right() + 1, viewport.top(), width, viewport.height())
        )
        self.page_margin.setVisible(width > 0)

    def is_visible(self, start: int, end: int) -> bool:
        """Whether the start of ``[start, end)`` is inside the visible area."""
        cursor = QTextCursor(self.document())
        cursor.setPosition(self.to_qt(start))
        rect = self.cursorRect(cursor)
        return self.viewport().rect().intersects(rect)

    def scroll_to(self, offset: int) -> None:
        caret = QTextCursor(self.document())
        caret.setPosition(self.to_qt(offset))
        self.setTextCursor(caret)
        self.centerCursor()

    def find_text(self, text: str, backwards: bool = False) -> bool:
        flags = QTextDocument.FindFlag.FindBackward if backwards else QTextDocument.FindFlag(0)
        if self.find(text, flags):
            return True
        # Wrap around once.
        cursor = self.textCursor()
        cursor.movePosition(
            QTextCursor.MoveOperation.End if backwards else QTextCursor.MoveOperation.Start
        )
        self.setTextCursor(cursor)
        return self.find(text, flags)


ZOOM_STEP = 1.25
ZOOM_RANGE = (0.1, 8.0)
REVEAL_MARGIN = 24  # pixels of page left of the quote, so its column's edge shows


class PageView(QWidget):
    """The rendered PDF page, with the highlighted span's rectangles drawn on it, and
    above it a note on how its text was read when that was by OCR.

    The page is shown at a zoom relative to its rendering: a fixed factor (zoom
    in, zoom out, actual size) or a fit (the page's width, or the whole page, in
    the viewport) that is kept as the pane is resized. Showing a page scrolls its
    first highlighted rectangle into view, across as well as down: on a page of
    three columns the quote may sit in the third.
    """

    def __init__(self) -> None:
        super().__init__()
        self.note = plain_label()
        self.note.setWordWrap(True)
        self.note.hide()
        self.label = plain_label("Open a PDF and click a claim to see its page here.")
        self.label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.scroll_area = QScrollArea()
        self.scroll_area.setWidget(self.label)
        # The page's size is set here, not by the scroll area, so the scroll bars'
        # ranges follow at once and the highlight can be scrolled to straight away.
        self.scroll_area.setWidgetResizable(False)
        self.scroll_area.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.zoom_label = plain_label()
        self.fit_width_button = self._button("Fit width", self.fit_width)
        self.fit_page_button = self._button("Fit page", self.fit_page)
        self.zoom_out_button = self._button("−", self.zoom_out)
        self.zoom_out_button.setAccessibleName("Zoom out")
        self.zoom_in_button = self._button("+", self.zoom_in)
        self.zoom_in_button.setAccessibleName("Zoom in")
        self.actual_size_button = self._button("Actual size", self.actual_size)
        tools = QHBoxLayout()
        tools.setContentsMargins(0, 0, 0, 0)
        for button in (
            self.fit_width_button,
            self.fit_page_button,
            self.zoom_out_button,
            self.zoom_in_button,
            self.actual_size_button,
        ):
            tools.addWidget(button)
        tools.addWidget(self.zoom_label)
        tools.addStretch(1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.note)
        layout.addLayout(tools)
        layout.addWidget(self.scroll_area, 1)
        self.page: int | None = None
        self.rects: list[tuple[float, float, float, float]] = []
        self.scale = 1.0  # shown pixels per rendered pixel
        self.fit: str | None = None  # "width", "page", or None for a fixed scale
        self._canvas = QPixmap()
        self._reveal_pending = False
        self._show_zoom()

    def _button(self, text: str, slot: Any) -> QToolButton:
        button = QToolButton()
        button.setText(text)
        button.clicked.connect(slot)
        return button

    def show_page(
        self,
        image: QImage,
        page: int,
        rects: list[tuple[float, float, float, float]],
        note: str = "",
    ) -> None:
        """Show a rendered page; ``rects`` are in image pixels; ``note`` above it."""
        self.note.setText(note)
        self.note.setVisible(bool(note))
        canvas = QPixmap.fromImage(image)
        painter = QPainter(canvas)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(QColor(255, 200, 0, 110))
        for x0, y0, x1, y1 in rects:
            painter.drawRect(QRect(int(x0) - 1, int(y0) - 1, int(x1 - x0) + 2, int(y1 - y0) + 2))
        painter.setPen(QColor(220, 120, 0))
        painter.setBrush(Qt.BrushStyle.NoBrush)
        for x0, y0, x1, y1 in rects:
            painter.drawRect(QRect(int(x0) - 1, int(y0) - 1, int(x1 - x0) + 2, int(y1 - y0) + 2))
        painter.end()
        self._canvas = canvas
        self.page = page
        self.rects = rects
        self._apply_scale()
        self._reveal_pending = True
        self.reveal_highlight()

    def show_message(self, text: str) -> None:
        self.note.hide()
        self._canvas = QPixmap()
        self.label.setPixmap(QPixmap())
        self.label.setText(text)
        self.label.adjustSize()
        self.page = None
        self.rects = []
        self._reveal_pending = False

    # -- zoom ----------------------------------------------------------------------------

    def fit_width(self) -> None:
        """Scale the page so its width fills the viewport (and keep it so on resizing)."""
        self.fit = "width"
        self._rescale()

    def fit_page(self) -> None:
        """Scale the page so all of it fits in the viewport (and keep it so on resizing)."""
        self.fit = "page"
        self._rescale()

    def zoom_in(self) -> None:
        self._set_scale(self.scale * ZOOM_STEP)

    def zoom_out(self) -> None:
        self._set_scale(self.scale / ZOOM_STEP)

    def actual_size(self) -> None:
        self._set_scale(1.0)

    def _set_scale(self, scale: float) -> None:
        self.fit = None
        self.scale = min(max(scale, ZOOM_RANGE[0]), ZOOM_RANGE[1])
        self._rescale()

    def _rescale(self) -> None:
        self._apply_scale()
        self.reveal_highlight()

    def _fitted_scale(self) -> float:
        """The scale the current fit asks for, in the room the viewport has."""
        width, height = self._canvas.width(), self._canvas.height()
        room = self.scroll_area.maximumViewportSize()  # the viewport without scroll bars
        if self.fit == "page":
            return min(room.width() / width, room.height() / height)
        scale = room.width() / width
        if height * scale > room.height():  # a vertical scroll bar will take its width
            bar = self.scroll_area.style().pixelMetric(QStyle.PixelMetric.PM_ScrollBarExtent)
            scale = (room.width() - bar) / width
        return scale

    def _apply_scale(self) -> None:
        if self._canvas.isNull():
            self._show_zoom()
            return
        if self.fit is not None:
            self.scale = min(max(self._fitted_scale(), ZOOM_RANGE[0]), ZOOM_RANGE[1])
        size = self._canvas.size() * self.scale
        shown = (
            self._canvas
            if self.scale == 1.0
            else self._canvas.scaled(
                size,
                Qt.AspectRatioMode.IgnoreAspectRatio,
                Qt.TransformationMode.SmoothTransformation,
            )
        )
        self.label.setPixmap(shown)
        self.label.resize(shown.size())
        self._show_zoom()

    def _show_zoom(self) -> None:
        fit = {"width": " (fit width)", "page": " (fit page)"}.get(self.fit or "", "")
        self.zoom_label.setText(f"{round(self.scale * 100)}%{fit}")

    # -- the highlight in view -----------------------------------------------------------

    def first_rect_shown(self) -> QRect | None:
        """The first highlighted rectangle, in the shown page's pixels."""
        if not self.rects or self._canvas.isNull():
            return None
        x0, y0, x1, y1 = (value * self.scale for value in self.rects[0])
        return QRect(int(x0), int(y0), max(1, int(x1 - x0)), max(1, int(y1 - y0)))

    def reveal_highlight(self) -> None:
        """Scroll so the first highlighted rectangle is in view, across and down.

        Until the pane has been laid out its viewport has no real size, so on a
        hidden pane this waits for the pane to be shown.
        """
        rect = self.first_rect_shown()
        if rect is None:
            return
        if not self.isVisible():
            self._reveal_pending = True
            return
        self._reveal_pending = False
        viewport = self.scroll_area.viewport()
        horizontal = self.scroll_area.horizontalScrollBar()
        vertical = self.scroll_area.verticalScrollBar()
        left, right = horizontal.value(), horizontal.value() + viewport.width()
        if rect.left() < left or rect.right() > right:
            horizontal.setValue(max(0, rect.left() - REVEAL_MARGIN))
        vertical.setValue(max(0, rect.top() - viewport.height() // 3))

    def highlight_visible(self) -> bool:
        """Whether the first highlighted rectangle lies wholly inside the viewport."""
        rect = self.first_rect_shown()
        if rect is None or not self.isVisible():
            return False
        in_viewport = rect.translated(self.label.pos())
        return self.scroll_area.viewport().rect().contains(in_viewport)

    def showEvent(self, event: Any) -> None:
        super().showEvent(event)
        if self.fit is not None:
            self._apply_scale()
        if self._reveal_pending:
            self.reveal_highlight()

    def resizeEvent(self, event: Any) -> None:
        super().resizeEvent(event)
        if self.fit is not None:
            self._rescale()
        elif self._reveal_pending:
            self.reveal_highlight()


def _line_end(text: str, start: int) -> int:
    """Where the line that starts at ``start`` ends (the text's end if it does not)."""
    end = text.find("\n", start)
    return len(text) if end < 0 else end
