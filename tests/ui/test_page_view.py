"""The Page tab shows the quote wherever it sits on the page, and zooms to fit."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pymupdf
import pytest
from PySide6.QtCore import QRect

from reader.config import Settings, save_settings
from tests.conftest import corpus_dir

QUOTE = "The lighthouse keeper logged forty-one winter storms along the northern cape."
QUESTION = "How many winter storms did the lighthouse keeper log along the northern cape?"
FILLER = [
    "Orchard growers in the valley pruned their apple trees before the thaw. ",
    "The county surveyor marked new boundary stones beside the mill road. ",
    "Ferry timetables changed twice during the harvest festival that year. ",
]
THREE_COLUMN_FILE = "pdfplumber-federal-register-2020-17221-threecolumn.pdf"
THREE_COLUMN_QUESTION = (
    "What happened to the Lion Air Flight 610 Boeing Model 737-8 airplane on October 29, 2018?"
)


def wide_three_column_pdf(path: Path) -> Path:
    """A wide page of three columns whose last lines, far right and low, hold ``QUOTE``."""
    document = pymupdf.open()
    page = document.new_page(width=1100, height=1100)
    column_width = 300  # a line of it, at 150 %, fits in the Page tab at 1200x800
    for column, filler in enumerate(FILLER):
        left = 40 + column * (column_width + 40)
        body = filler * (16 if column < 2 else 13)
        box = pymupdf.Rect(left, 40, left + column_width, 1060)
        if column == 2:
            box = pymupdf.Rect(left, 40, left + column_width, 900)
            page.insert_textbox(pymupdf.Rect(left, 960, left + column_width, 1060), QUOTE)
        assert page.insert_textbox(box, body, fontsize=11) >= 0
    document.save(path)
    return path


def show_quote_on_page(window, qtbot, path: Path) -> None:
    """Ask about ``QUOTE``, bring the Page tab forward and click the claim that quotes it."""
    save_settings(Settings(mode="passages"))
    window.library_panel.open_path(path)
    qtbot.waitUntil(lambda: window.current is not None, timeout=20_000)
    window.ask_panel.question.setText(QUESTION)
    with qtbot.waitSignal(window.answer_shown, timeout=20_000):
        window.ask_panel.ask_current()
    quoting = [
        index
        for index, claim in enumerate(window.answer.claims)
        if claim.verified and "lighthouse keeper" in claim.shown_text
    ]
    assert quoting, [claim.shown_text for claim in window.answer.claims]
    window.viewer.tabs.setCurrentWidget(window.viewer.page_view)
    with qtbot.waitSignal(window.page_shown, timeout=20_000):
        assert window.activate_claim(quoting[0])
    qtbot.waitUntil(lambda: window.viewer.page_view.rects != [], timeout=5_000)


def rect_in_view(page_view, rect: QRect) -> bool:
    """A rectangle of the shown page against the scroll bars' values and the viewport's size."""
    scroll_area = page_view.scroll_area
    viewport = scroll_area.viewport()
    left = scroll_area.horizontalScrollBar().value()
    top = scroll_area.verticalScrollBar().value()
    # Where the page sits in the viewport: scrolled, or centred when it is smaller.
    origin = page_view.label.pos()
    assert origin.x() == -left or scroll_area.horizontalScrollBar().maximum() == 0
    assert origin.y() == -top or scroll_area.verticalScrollBar().maximum() == 0
    x, y = rect.left() + origin.x(), rect.top() + origin.y()
    return (
        x >= 0
        and x + rect.width() <= viewport.width()
        and y >= 0
        and y + rect.height() <= viewport.height()
    )


def test_clicking_a_claim_scrolls_the_page_across_and_down_to_the_quote(window, qtbot, tmp_path):
    show_quote_on_page(window, qtbot, wide_three_column_pdf(tmp_path / "wide.pdf"))
    page_view = window.viewer.page_view
    # At the rendering's own size the rectangles' pixels are the shown page's.
    x0, y0, x1, y1 = page_view.rects[0]
    rect = QRect(round(x0), round(y0), round(x1 - x0), round(y1 - y0))
    viewport = page_view.scroll_area.viewport()
    # The quote lies beyond the first screenful in both directions ...
    assert rect.left() > viewport.width() and rect.top() > viewport.height()
    # ... and the page was scrolled to it.
    assert page_view.scroll_area.horizontalScrollBar().value() > 0
    assert page_view.scroll_area.verticalScrollBar().value() > 0
    assert rect_in_view(page_view, rect)
    assert page_view.highlight_visible()

    page_view.scroll_area.horizontalScrollBar().setValue(0)
    page_view.scroll_area.verticalScrollBar().setValue(0)
    assert not rect_in_view(page_view, rect)
    assert not page_view.highlight_visible()


def test_fit_width_and_fit_page_scale_the_page_to_the_viewport(window, qtbot, tmp_path):
    show_quote_on_page(window, qtbot, wide_three_column_pdf(tmp_path / "wide.pdf"))
    page_view = window.viewer.page_view
    scroll_area = page_view.scroll_area
    rendered = page_view.label.pixmap().size()

    page_view.fit_width()
    qtbot.wait(0)
    assert abs(page_view.label.width() - scroll_area.viewport().width()) <= 3
    assert scroll_area.horizontalScrollBar().maximum() <= 3
    assert page_view.scale < 1.0
    assert rect_in_view(page_view, page_view.first_rect_shown())

    page_view.fit_page()
    qtbot.wait(0)
    assert page_view.label.width() <= scroll_area.viewport().width()
    assert page_view.label.height() <= scroll_area.viewport().height()
    assert scroll_area.horizontalScrollBar().maximum() == 0
    assert scroll_area.verticalScrollBar().maximum() == 0
    # The page's proportions are kept, and one side fills the viewport.
    assert (
        abs(
            page_view.label.width() / page_view.label.height()
            - rendered.width() / rendered.height()
        )
        < 0.01
    )
    assert (
        abs(page_view.label.width() - scroll_area.viewport().width()) <= 3
        or abs(page_view.label.height() - scroll_area.viewport().height()) <= 3
    )
    assert page_view.highlight_visible()

    fitted = page_view.label.width()
    page_view.zoom_in()
    assert page_view.fit is None and page_view.label.width() > fitted
    assert page_view.highlight_visible()  # zooming keeps the quote in view
    page_view.zoom_out()
    assert abs(page_view.label.width() - fitted) <= 2
    page_view.actual_size()
    assert page_view.label.size() == rendered


def test_a_fit_is_kept_when_the_window_is_resized(window, qtbot, tmp_path):
    show_quote_on_page(window, qtbot, wide_three_column_pdf(tmp_path / "wide.pdf"))
    page_view = window.viewer.page_view
    page_view.fit_width()
    narrow = page_view.label.width()
    window.resize(1500, 900)
    qtbot.waitUntil(lambda: page_view.label.width() > narrow, timeout=5_000)
    viewport = page_view.scroll_area.viewport()
    qtbot.waitUntil(lambda: abs(page_view.label.width() - viewport.width()) <= 3, timeout=5_000)


def test_the_view_menu_fits_and_zooms_the_page_and_brings_it_forward(window, qtbot, tmp_path):
    show_quote_on_page(window, qtbot, wide_three_column_pdf(tmp_path / "wide.pdf"))
    actions = {action.shortcut().toString(): action for action in window.actions()}
    window.viewer.tabs.setCurrentWidget(window.viewer.text_view)
    actions["Ctrl+8"].trigger()
    assert window.viewer.tabs.currentWidget() is window.viewer.page_view
    assert window.viewer.page_view.fit == "width"
    actions["Ctrl+9"].trigger()
    assert window.viewer.page_view.fit == "page"
    scale = window.viewer.page_view.scale
    actions["Ctrl++"].trigger()
    assert window.viewer.page_view.scale == pytest.approx(scale * 1.25)
    actions["Ctrl+-"].trigger()
    assert window.viewer.page_view.scale == pytest.approx(scale)
    actions["Ctrl+0"].trigger()
    assert window.viewer.page_view.scale == 1.0
    # The focus keys beside them still move the focus.
    assert {"Ctrl+1", "Ctrl+2", "Ctrl+3"} <= set(actions)


def reader_shot_highlight(pdf: Path, question: str, size: str, out: Path) -> dict:
    command = [sys.executable, "-m", "reader.cli", "shot", str(pdf), "--ask", question]
    command += ["--no-model", "--click", "1", "--page-view", "--size", size]
    command += ["--out", str(out), "--json"]
    completed = subprocess.run(
        command,
        capture_output=True,
        text=True,
        env={**os.environ, "QT_QPA_PLATFORM": "offscreen"},
        check=False,
    )
    assert completed.returncode == 0, completed.stderr
    highlight: dict = json.loads(completed.stdout)["highlight"]
    return highlight


def test_reader_shot_reports_a_quote_too_wide_for_the_page_tab_as_not_in_view(tmp_path):
    """One line of the quote is wider than the Page tab of a 1000-pixel window."""
    document = pymupdf.open()
    page = document.new_page(width=1200, height=400)
    page.insert_textbox(pymupdf.Rect(40, 40, 1160, 360), QUOTE + " " + FILLER[0] * 3)
    pdf = tmp_path / "long-lines.pdf"
    document.save(pdf)
    highlight = reader_shot_highlight(pdf, QUESTION, "1000x700", tmp_path / "shot.png")
    assert highlight["visible"] is True  # the text view reflows it
    assert highlight["page_highlight_visible"] is False


@pytest.mark.corpus
def test_reader_shot_reports_the_quote_in_view_on_a_three_column_page(tmp_path):
    """Federal Register, page 1: the quote starts low in the third column."""
    pdf = corpus_dir() / "pdf" / THREE_COLUMN_FILE
    highlight = reader_shot_highlight(pdf, THREE_COLUMN_QUESTION, "1280x800", tmp_path / "shot.png")
    assert highlight["page"] == 1
    assert highlight["visible"] is True
    assert highlight["page_highlight_visible"] is True
