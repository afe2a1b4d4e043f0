"""Where each page begins in the text view: a mark in the text, its number beside it.

The reading view runs sentences on across page breaks, so a page most often
begins in the middle of a line. A horizontal rule there ran along the line's
edge, through the descenders of the line above, and the page's number, drawn
at the right end of the line, sat on the line's last words. Here the text only
gets a thin upright mark just before the page's first character, in the space
between two words, and the number goes in a margin of its own to the right of
the text, level with that line: nothing is drawn over a letter.
"""

from __future__ import annotations

from bisect import bisect_left
from dataclasses import dataclass
from typing import Any, Protocol

from PySide6.QtCore import QRect, Qt
from PySide6.QtGui import QColor, QFont, QFontMetrics, QPainter, QTextCursor, QTextDocument
from PySide6.QtWidgets import QWidget

from reader.text.escaping import one_line


class TextView(Protocol):
    """What the marks read of ``reader.ui.viewer.TextView`` (which imports this)."""

    page_starts: list[int]
    page_labels: list[str]
    ocr_pages: set[int]

    def visible_range(self) -> tuple[int, int]: ...
    def to_qt(self, offset: int) -> int: ...
    def document(self) -> QTextDocument: ...
    def cursorRect(self, cursor: QTextCursor) -> QRect: ...
    def viewport(self) -> QWidget: ...
    def font(self) -> QFont: ...


MARK_COLOR = QColor(150, 150, 150)
# The widest number the margin is sized for; a longer one is elided.
WIDEST_NUMBER = "p. 0000"
PADDING = 6


@dataclass(frozen=True)
class PageMark:
    """Page ``page`` (1-based) begins at ``line`` (viewport coordinates of the line's
    box from the page's first character on); ``lines`` is what the margin says."""

    page: int
    line: QRect
    lines: tuple[str, ...]


def margin_font(view: QWidget | TextView) -> QFont:
    small = QFont(view.font())
    small.setPointSizeF(max(6.0, small.pointSizeF() * 0.75))
    return small


def margin_width(view: QWidget | TextView) -> int:
    return QFontMetrics(margin_font(view)).horizontalAdvance(WIDEST_NUMBER) + 2 * PADDING


def visible_marks(view: TextView) -> list[PageMark]:
    """The page beginnings in view, top to bottom (the first page has none)."""
    if len(view.page_starts) < 2:
        return []
    first, last = view.visible_range()
    marks = []
    index = bisect_left(view.page_starts, first)
    while index < len(view.page_starts) and view.page_starts[index] <= last:
        start = view.page_starts[index]
        if start > 0:
            cursor = QTextCursor(view.document())
            cursor.setPosition(view.to_qt(start))
            line = view.cursorRect(cursor)
            said = [f"p. {index + 1}"]
            if index < len(view.page_labels) and view.page_labels[index]:
                said.append(f"({one_line(view.page_labels[index], limit=12)})")
            if index + 1 in view.ocr_pages:
                said.append("OCR")
            marks.append(PageMark(index + 1, line, tuple(said)))
        index += 1
    return marks


def paint_marks_in_text(view: TextView) -> None:
    """An upright mark the height of the line, just left of each page's first character."""
    marks = visible_marks(view)
    if not marks:
        return
    painter = QPainter(view.viewport())
    painter.setPen(MARK_COLOR)
    for mark in marks:
        x = max(0, mark.line.left() - 2)
        painter.drawLine(x, mark.line.top() + 1, x, mark.line.bottom() - 1)
    painter.end()


class PageMargin(QWidget):
    """The strip right of the text that gives each page's number level with the line
    where it begins (its printed number, and whether OCR read it, below)."""

    def __init__(self, view: QWidget) -> None:
        super().__init__(view)
        self.view: Any = view  # a TextView

    def paintEvent(self, event: Any) -> None:
        painter = QPainter(self)
        painter.setPen(MARK_COLOR)
        painter.setFont(margin_font(self.view))
        metrics = painter.fontMetrics()
        # The margin sits beside the viewport: the same y, shifted by the frame.
        offset = self.view.viewport().y() - self.y()
        for mark in visible_marks(self.view):
            top = mark.line.top() + offset
            painter.drawLine(0, top, PADDING - 2, top)
            for row, text in enumerate(mark.lines):
                shown = metrics.elidedText(
                    text, Qt.TextElideMode.ElideRight, self.width() - PADDING - 2
                )
                painter.drawText(PADDING, top + metrics.ascent() + row * metrics.height(), shown)
        painter.end()
