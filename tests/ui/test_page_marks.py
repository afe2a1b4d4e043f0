"""Where a page begins in the text view is marked without drawing over any letter."""

from __future__ import annotations

from PySide6.QtCore import QPoint

from reader.sample import sample_path
from reader.ui.page_marks import visible_marks
from tests.ui.test_window import open_document


def _viewport_image(view, qtbot):
    view.viewport().repaint()
    qtbot.wait(20)
    return view.viewport().grab().toImage()


def test_the_page_break_is_an_upright_mark_and_its_number_sits_in_a_margin(window, qtbot):
    """In the sample, page 2 begins mid-line. Before, a rule ran from there to the edge
    along the line and "p. 2" was drawn on the line's last words."""
    document = open_document(window, qtbot, sample_path())
    view = window.viewer.text_view
    start = document.page_starts[1]
    view.scroll_to(start)
    qtbot.wait(50)
    (mark,) = visible_marks(view)
    assert mark.page == 2 and mark.lines == ("p. 2",)
    assert mark.line.left() > 40, "the sample's page 2 begins in the middle of a line"

    # The number is in a margin of its own, right of the text and left of the scroll bar.
    margin = view.page_margin.geometry()
    assert view.page_margin.isVisible() and margin.width() > 20
    assert margin.left() > view.viewport().geometry().right()
    scroll_bar = view.verticalScrollBar()
    if scroll_bar.isVisible():
        assert margin.right() < scroll_bar.mapTo(view, QPoint(0, 0)).x()

    # What the marks add to the text's pixels is one upright stroke before the page's
    # first character, within its line.
    marked = _viewport_image(view, qtbot)
    starts, view.page_starts = view.page_starts, [0]
    plain = _viewport_image(view, qtbot)
    view.page_starts = starts
    changed = [
        (x, y)
        for y in range(marked.height())
        for x in range(marked.width())
        if marked.pixel(x, y) != plain.pixel(x, y)
    ]
    assert changed, "no mark was drawn"
    assert {x for x, _ in changed} == {mark.line.left() - 2}
    assert all(mark.line.top() <= y <= mark.line.bottom() for _, y in changed)


def test_a_one_page_document_has_no_margin(window, qtbot, make_file):
    open_document(window, qtbot, make_file("note.txt", b"One short note about the harbour."))
    assert not window.viewer.text_view.page_margin.isVisible()
