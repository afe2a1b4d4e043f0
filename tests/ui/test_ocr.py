"""Scanned PDFs in the window: per-page OCR progress, cancel, which pages OCR read,
and a verified quote from an OCR'd page drawn on the page image."""

from __future__ import annotations

import itertools
import os
import time
from pathlib import Path

import pymupdf
import pytest
from PySide6.QtCore import QTimer

from reader.records import (
    Answer,
    AnswerMetrics,
    CheckedClaim,
    Claim,
    Document,
    Grounding,
    OcrPageInfo,
    Verification,
)
from reader.ui.answer_view import answer_html
from reader.ui.ocr_labels import (
    IngestStep,
    document_note,
    ingest_line,
    library_pages,
    page_list,
    page_note,
)
from tests.ui.test_window import PAGES, alias_for, answer_with

pytestmark = pytest.mark.gui

# The zoom the Page tab renders at (``render_page``'s default).
PAGE_ZOOM = 1.5


def tesseract_children() -> list[int]:
    """Process ids of Tesseracts this test process started and that still run."""
    found = []
    for status in Path("/proc").glob("[0-9]*/status"):
        try:
            fields = dict(line.split(":\t", 1) for line in status.read_text().splitlines())
        except (OSError, ValueError):
            continue
        name, parent = fields.get("Name", "").strip(), int(fields.get("PPid", "0"))
        if name == "tesseract" and parent == os.getpid():
            found.append(int(status.parent.name))
    return found


def test_the_label_counts_text_pages_then_the_pages_ocr_reads():
    assert ingest_line("a.pdf", IngestStep(3, 8, 8)) == "Reading a.pdf: page 3 of 8…"
    # Every page scanned: the extractor's total doubles while OCR runs.
    assert ingest_line("a.pdf", IngestStep(8, 16, 8)) == "Reading a.pdf: page 1 of 8 by OCR…"
    assert ingest_line("a.pdf", IngestStep(10, 16, 8)) == "Reading a.pdf: page 3 of 8 by OCR…"
    assert ingest_line("a.pdf", IngestStep(16, 16, 8)) == "Reading a.pdf: page 8 of 8 by OCR…"
    # Two of ten pages scanned.
    assert IngestStep(11, 12, 10).ocr == (1, 2)
    assert ingest_line("a.pdf", IngestStep(11, 12, 10)).endswith("scanned page 2 of 2 by OCR…")


def test_which_pages_ocr_read_is_said_briefly():
    assert page_list([5, 1, 2, 3]) == "1–3 and 5"
    assert page_list([2, 4]) == "2 and 4"
    assert page_list([1, 2, 7]) == "1, 2 and 7"
    assert library_pages([], 1) == "1 page"
    assert library_pages([2], 4) == "4 pages, 1 by OCR"
    assert library_pages([1, 2, 3, 4], 4) == "4 pages, all by OCR"
    document = Document("d", "T", "t.pdf", "pdf", "a\n\nb\n\nc", [0, 3, 6], "x")
    assert document_note(document) == ""
    document.ocr_pages = [OcrPageInfo(2, 91.4), OcrPageInfo(3, 88.0, turned=90)]
    assert document_note(document) == "pages 2 and 3 read by OCR"
    assert page_note(document, 1) == ""
    assert page_note(document, 2).startswith("Page 2 was read by OCR (mean word confidence 91%)")
    assert "turned 90°" in page_note(document, 3)


def test_cancel_while_ocr_runs_leaves_the_library_unchanged_and_the_window_responsive(
    window, qtbot, make_scan, tesseract
):
    scan = make_scan([[f"Page {n}. " + " ".join(PAGES[0])] for n in range(1, 7)])
    progress = window.library_panel.progress
    ticks: list[float] = []
    labels: list[str] = []

    def tick() -> None:
        ticks.append(time.monotonic())
        labels.append(progress.label.text())

    timer = QTimer()
    timer.timeout.connect(tick)
    timer.start(20)

    started = time.monotonic()
    task = window.library_panel.open_path(scan.path)
    qtbot.waitUntil(lambda: "by OCR" in progress.label.text(), timeout=30_000)
    assert progress.bar.maximum() == 6  # the bar counts the pages OCR reads
    assert progress.label.text().startswith("Reading scan.pdf: page ")
    # Cancel once a page has been read and the next ones are being read.
    qtbot.waitUntil(lambda: "page 2 of 6 by OCR" in progress.label.text(), timeout=60_000)
    qtbot.waitUntil(lambda: tesseract_children() != [], timeout=10_000)
    progress.cancel_button.click()
    cancelled_at = time.monotonic()
    qtbot.waitUntil(lambda: window.library_panel.ingest_task is None, timeout=15_000)
    stopped_in = time.monotonic() - cancelled_at
    timer.stop()

    assert not task.running
    assert window.library.documents() == []
    assert window.library_panel.documents.count() == 0 and window.current is None
    assert window.statusBar().currentMessage() == "Ingest cancelled; the library is unchanged."
    assert not progress.bar.isVisible() and not progress.cancel_button.isVisible()
    assert stopped_in < 5.0  # the running Tesseracts are killed, not waited for
    qtbot.waitUntil(lambda: tesseract_children() == [], timeout=5_000)
    assert any("page 1 of 6 by OCR" in label for label in labels)
    # The event loop ran all along. Two Tesseracts keep both cores of a small machine
    # busy, so a tick may come late; an ingest on the GUI thread would stop it for
    # seconds (a page takes one to three).
    gaps = [later - earlier for earlier, later in itertools.pairwise(ticks)]
    assert ticks[0] - started < 1.0 and ticks[-1] >= cancelled_at  # ticking throughout
    assert max(gaps) < 1.0, max(gaps)


def overlap(a: tuple[float, ...], b: tuple[float, ...]) -> float:
    """The share of ``a``'s area that ``b`` covers."""
    width = min(a[2], b[2]) - max(a[0], b[0])
    height = min(a[3], b[3]) - max(a[1], b[1])
    area = (a[2] - a[0]) * (a[3] - a[1])
    return max(0.0, width) * max(0.0, height) / area if area > 0 else 0.0


def test_a_quote_from_a_scanned_page_is_drawn_on_the_words_in_the_page_image(
    window, qtbot, backend, make_scan, tesseract
):
    quote = "The price of grain doubled in 1710."
    scan = make_scan(PAGES)
    window.library_panel.open_path(scan.path)
    qtbot.waitUntil(lambda: window.current is not None, timeout=60_000)
    document = window.current
    assert document.ocr_page_numbers() == [1, 2]
    assert "\n2 pages, all by OCR · " in window.library_panel.documents.item(0).text()
    assert window.viewer.title.text().endswith("2 pages, read by OCR")

    source = alias_for(window, document.id, "grain")
    answer = answer_with(window, qtbot, backend, document.id, [("Grain doubled.", source, quote)])
    index = next(i for i, claim in enumerate(answer.claims) if not claim.from_evidence)
    claim = answer.claims[index]
    assert claim.verified, claim.verification.reason
    with qtbot.waitSignal(window.page_shown, timeout=20_000):
        assert window.activate_claim(index)
    assert "page 2 (read by OCR)" in window.statusBar().currentMessage()
    window.viewer.toggle_page_view()
    assert window.viewer.page_view.page == 2
    assert window.viewer.page_view.note.isVisible()
    assert window.viewer.page_view.note.text().startswith("Page 2 was read by OCR")

    # Where the quoted words really are: in the text PDF the scan was made from.
    with pymupdf.open(scan.original) as original:
        truth = [tuple(r * PAGE_ZOOM) for r in original[1].search_for(quote)]
    drawn = window.viewer.page_view.rects
    assert truth and drawn
    for rect in drawn:  # every rectangle drawn lies on the quoted words ...
        assert max(overlap(rect, line) for line in truth) > 0.8, (rect, truth)
    for line in truth:  # ... and every quoted line is covered across its width
        covered = sum(
            min(r[2], line[2]) - max(r[0], line[0])
            for r in drawn
            if overlap(r, line) > 0 and r[0] < line[2] and r[2] > line[0]
        )
        assert covered > 0.8 * (line[2] - line[0]), (line, drawn)


def test_a_fuzzy_claim_says_why_it_is_fuzzy_in_the_sources_list():
    reason = (
        "the page was read by OCR and is uncertain at '1996' (confidence 41%): "
        "check the page image <b>"
    )
    claim = CheckedClaim(
        Claim("The survey ran in 1990.", "c1", "The survey ran in 1990."),
        Verification("fuzzy", reason, chunk_id="c1", start=0, end=23, page=2),
        doc_id="doc",
        grounding=Grounding(True, ""),
    )
    answer = Answer(
        "When?", "", [claim], [], "scripted", "claims", ["doc"], AnswerMetrics(claims=1, fuzzy=1)
    )
    html = answer_html(answer, {"doc": "Survey"})
    assert "Survey, page 2 (fuzzy: the page was read by OCR and is uncertain at" in html
    assert "&lt;b&gt;" in html and "<b>)" not in html  # the reason is text, never markup
