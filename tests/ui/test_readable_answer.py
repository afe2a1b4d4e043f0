"""The answer view reads as prose, and the panels around it show things whole:
the question's start, long titles, local times, the chart's axes, a quiet stderr."""

from __future__ import annotations

import html
import os
import re
import subprocess
import sys
import time
from dataclasses import replace
from datetime import datetime
from pathlib import Path

from PySide6.QtCore import Qt

from reader.records import (
    Answer,
    AnswerMetrics,
    AnswerSpan,
    CheckedClaim,
    Claim,
    Grounding,
    Verification,
)
from reader.sample import installed_sample
from reader.ui.answer_view import AnswerView, answer_html
from tests.ui.test_escaping import anchors_and_images, make_titled_pdf
from tests.ui.test_window import PAGES, QUESTION, alias_for, answer_with, open_document

VERIFIED_WORDS = "The price of grain doubled in 1710."
OWN_WORDS = "Grain cost twice as much by 1710."
OWN_WORDS_QUOTE = "By 1710 grain cost twice as much as before."
UNVERIFIED_WORDS = "The mill burned down in 1711."


def checked(text: str, quote: str, status: str = "exact", page: int = 1) -> CheckedClaim:
    verified = status != "miss"
    return CheckedClaim(
        Claim(text, "c1", quote),
        Verification(
            status,  # type: ignore[arg-type]
            "the quote occurs in the cited source" if verified else "the quote is not there",
            chunk_id="c1",
            start=0 if verified else None,
            end=len(quote) if verified else None,
            page=page,
        ),
        doc_id="doc",
        grounding=Grounding(True, "every word of the claim is in the quote"),
    )


def three_claim_answer() -> Answer:
    """A claim whose words are its quote, one in its own words, one that failed."""
    claims = [
        checked(VERIFIED_WORDS, VERIFIED_WORDS),
        checked(OWN_WORDS, OWN_WORDS_QUOTE, page=2),
        checked(UNVERIFIED_WORDS, "The mill burned.", status="miss"),
    ]
    prose = f"{VERIFIED_WORDS} {OWN_WORDS} {UNVERIFIED_WORDS}"
    return Answer(
        "When?", prose, claims, [], "scripted", "claims", ["doc"], AnswerMetrics(claims=3)
    )


def test_the_only_links_are_the_numbered_markers_not_the_claims_words(qtbot):
    answer = three_claim_answer()
    view = AnswerView()
    qtbot.addWidget(view)
    view.show_answer(answer, {"doc": "Grain prices"})

    anchors, _ = anchors_and_images(view.document())
    # One link per verified claim, its number its whole text; none for the failed claim.
    assert sorted(anchors) == [("claim:0", "1"), ("claim:1", "2")]
    html = answer_html(answer, {"doc": "Grain prices"})
    linked_texts = re.findall(r"<a [^>]*>(.*?)</a>", html)
    assert linked_texts == ["1", "2"]
    assert VERIFIED_WORDS in view.toPlainText() and OWN_WORDS in view.toPlainText()


def test_sources_give_page_and_status_and_a_quote_only_where_the_prose_lacks_it():
    html = answer_html(three_claim_answer(), {"doc": "Grain prices"})
    sources = html.split("<b>Sources</b>", 1)[1].split("<b>Not verified</b>", 1)[0]
    assert "Grain prices, page 1 (verified)" in sources
    assert "Grain prices, page 2 (verified)" in sources
    # The first claim's words are its quote, already read in the prose above.
    assert VERIFIED_WORDS not in sources
    assert f"&ldquo;{OWN_WORDS_QUOTE}&rdquo;" in sources


def test_a_long_question_shows_its_start(window):
    question = "Which " + "very " * 60 + "long question is this?"
    window.ask_panel.question.setText(question)
    assert window.ask_panel.question.cursorPosition() == 0
    window.ask_panel.question.setFocus()
    window.ask_panel.question.end(False)  # typing at its end ...
    window.ask_panel.answer_view.setFocus()  # ... then leaving it
    window.ask_panel.question.clearFocus()
    assert window.ask_panel.question.cursorPosition() == 0


def test_history_shows_the_local_time_in_full(window, qtbot, backend, make_pdf, monkeypatch):
    monkeypatch.setenv("TZ", "IST-5:30")  # a POSIX zone, so no zone database is needed
    time.tzset()
    try:
        document = open_document(window, qtbot, make_pdf(PAGES))
        source = alias_for(window, document.id, "grain")
        answer = answer_with(
            window, qtbot, backend, document.id, [(VERIFIED_WORDS, source, VERIFIED_WORDS)]
        )
        stored = answer.created_at
        local = datetime.fromisoformat(stored).astimezone().strftime("%Y-%m-%d %H:%M:%S")
        history = window.ask_panel.history
        item = history.item(0)
        assert local in item.text() and stored not in item.text()
        # The time starts the line under its question, beside how it was answered, and
        # entries are told apart by their shading (before: the time alone on a third
        # line read as belonging to the next question).
        question, when = item.text().split("\n")
        assert question == QUESTION and when.startswith(f"{local} · ")
        assert history.alternatingRowColors()
        # Nothing of the entry is cut off: the list wraps it to its width.
        assert history.wordWrap()
        assert history.visualItemRect(item).width() <= history.viewport().width()
    finally:
        monkeypatch.undo()
        time.tzset()


def test_the_health_chart_has_axis_labels(window):
    rows = [
        {
            "model_claims": 2,
            "claims": 2,
            "fuzzy": 0,
            "miss": 1,
            "model_verified_rate": 0.5,
            "model_supported_rate": 0.5,
        }
    ] * 9
    health = window.ask_panel.health
    health.set_stats({"overall": {"answers": 9}, "per_answer": rows, "alert": None})
    chart = health.chart
    assert chart.x_axis_title and chart.y_axis_title
    ticks = chart.x_tick_labels()
    assert ticks[0] == (0, "1") and ticks[-1] == (8, "9") and len(ticks) <= 6
    chart.grab()  # paints without error


def test_a_long_library_title_is_elided_with_the_full_title_in_its_tooltip(window, qtbot, tmp_path):
    title = "A History of " + "the Grain Trade in the Low Countries, " * 6 + "1700–1750"
    open_document(window, qtbot, make_titled_pdf(tmp_path, "grain.pdf", title))
    documents = window.library_panel.documents
    item = documents.item(0)
    # The item is no wider than the list, so the style elides its title there ...
    assert documents.visualItemRect(item).right() <= documents.viewport().rect().right()
    assert documents.textElideMode() == Qt.TextElideMode.ElideRight
    # ... and no sideways scroll bar appears, however long a title is.
    assert documents.horizontalScrollBarPolicy() == Qt.ScrollBarPolicy.ScrollBarAlwaysOff
    assert not documents.horizontalScrollBar().isVisible()
    stored = window.library.store.titles([window.current.id])[window.current.id]
    assert len(stored) > 100 and html.escape(stored) in item.toolTip()


def test_reader_shot_prints_no_qt_warning(tmp_path: Path):
    command = [sys.executable, "-m", "reader.cli", "shot", str(installed_sample())]
    command += ["--ask", "What happens when you click a claim?", "--click", "1", "--no-model"]
    command += ["--out", str(tmp_path / "shot.png")]
    environment = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "READER_HOME": str(tmp_path)}
    completed = subprocess.run(command, capture_output=True, text=True, env=environment)
    assert completed.returncode == 0, completed.stderr
    assert "propagateSizeHints" not in completed.stderr
    assert completed.stderr.strip() == ""


def chosen_claim(chosen: str, grounding: Grounding) -> CheckedClaim:
    start = VERIFIED_WORDS.index(chosen)
    return replace(
        checked(chosen, VERIFIED_WORDS),
        grounding=grounding,
        answer_span=AnswerSpan(chosen, (start, start + len(chosen)), start, start + len(chosen)),
    )


def test_the_answer_leads_with_the_chosen_words_bold_inside_their_linked_sentence(qtbot):
    claim = chosen_claim("doubled", Grounding(True, "the quote's own words, chosen whole"))
    answer = Answer(
        "What did the price of grain do?",
        VERIFIED_WORDS,
        [claim],
        [],
        "scripted",
        "constrained",
        ["doc"],
        AnswerMetrics(claims=1),
    )
    html = answer_html(answer, {"doc": "Grain prices"})
    lead, rest = html.split("\n", 1)
    assert lead.startswith("<p><b>Answer:</b> <b>doubled</b>") and 'href="claim:0"' in lead
    # The sentence that says it, with the words in bold, is what the prose shows.
    assert "The price of grain <b>doubled</b> in 1710." in rest
    view = AnswerView()
    qtbot.addWidget(view)
    view.show_answer(answer, {"doc": "Grain prices"})
    assert view.toPlainText().startswith("Answer: doubled")
    anchors, _ = anchors_and_images(view.document())
    assert {text for _, text in anchors} == {"1"}


def test_words_that_are_no_direct_answer_are_not_led_with():
    reason = 'its sentence says only that it "may" be so'
    claim = chosen_claim("doubled", Grounding(False, reason))
    answer = Answer(
        "When?", VERIFIED_WORDS, [claim], [], "scripted", "constrained", ["doc"], AnswerMetrics()
    )
    html = answer_html(answer, {"doc": "Grain prices"})
    assert "<b>Answer:</b>" not in html and "<b>doubled</b>" not in html
    sources = html.split("<b>Sources</b>", 1)[1]
    assert "no direct answer: its sentence says only that it" in sources and "may" in sources
