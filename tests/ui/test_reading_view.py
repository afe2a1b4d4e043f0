"""The viewer reads like the page: reflowed, furniture dimmed, highlights on the quoted words."""

from __future__ import annotations

from PySide6.QtWidgets import QTextEdit

from reader.config import Settings, save_settings
from reader.ingest import read_document
from reader.text.reading_view import readable, reading_view
from reader.text.sentences import sentence_spans
from reader.ui.viewer import TextView
from reader.verify import DocumentVerifier
from tests.books import make_book


def crossing_quote(document) -> str:
    """Words either side of the first page break, as a reader reads them."""
    verifier = DocumentVerifier(document, [])
    boundary = document.page_starts[1]
    read = reading_view(document.text, document.furniture)
    before = " ".join(read[:boundary].split()[-4:])
    after = " ".join(read[boundary:].split()[:4])
    assert verifier is not None
    return f"{before} {after}"


def test_the_view_reflows_dims_furniture_and_keeps_offsets(qtbot, tmp_path):
    path = tmp_path / "book.pdf"
    make_book(path, seed=5)
    document, chunks = read_document(path)
    view = TextView()
    qtbot.addWidget(view)
    view.set_document(document)
    shown = view.toPlainText()
    assert len(shown) == len(document.text)
    body = slice(shown.index("Record 0"), document.page_starts[1])
    assert document.text[body].count("\n") >= 13  # the printed lines
    assert shown[body].count("\n") <= 4  # reflowed (a raised marker starts a block)
    head = next(f for f in document.furniture if f.kind == "header")
    assert shown[head.start : head.end] == document.text[head.start : head.end]
    cursor = view.textCursor()
    cursor.setPosition(head.start + 1)
    assert cursor.charFormat().foreground().color().lightness() > 120  # dimmed
    cursor.setPosition(document.page_starts[1] + 40)
    assert cursor.charFormat().foreground().color().lightness() < 120

    result = DocumentVerifier(document, chunks).verify(crossing_quote(document))
    assert result.status == "exact"
    view.highlight(result.start, result.end)
    painted = [s.cursor.selectedText() for s in view.extraSelections()]
    assert len(painted) >= 2  # the words before the page break, and after it
    joined = " ".join(painted)
    assert "HARBOUR BOOK" not in joined and "CHAPTER ONE" not in joined
    assert view.highlighted_range() == (result.start, result.end)
    assert all(isinstance(s, QTextEdit.ExtraSelection) for s in view.extraSelections())
    first, last = view.visible_range()
    assert first <= result.start <= last


def test_a_passages_answer_across_a_page_break_highlights_only_its_words(window, qtbot, tmp_path):
    save_settings(Settings(mode="passages"))
    path = tmp_path / "book.pdf"
    make_book(path, seed=5)
    window.library_panel.open_path(path)
    qtbot.waitUntil(lambda: window.current is not None, timeout=20_000)
    document = window.current
    read = reading_view(document.text, document.furniture)
    boundary = document.page_starts[1]
    sentence = next(readable(read[a:b]) for a, b in sentence_spans(read) if a < boundary < b)
    window.ask_panel.question.setText(f"Which record notes this: {sentence}")
    with qtbot.waitSignal(window.answer_shown, timeout=20_000):
        window.ask_panel.ask_current()
    linked = [c for c in window.answer.claims if c.verified]
    crossing = [
        i
        for i, c in enumerate(window.answer.claims)
        if c.verified and c.verification.start < document.page_starts[1] < c.verification.end
    ]
    assert linked and crossing, [c.shown_text for c in window.answer.claims]
    claim = window.answer.claims[crossing[0]]
    assert "HARBOUR BOOK" not in claim.shown_text and "CHAPTER ONE" not in claim.shown_text
    assert window.activate_claim(crossing[0])
    painted = " ".join(s.cursor.selectedText() for s in window.viewer.text_view.extraSelections())
    assert "HARBOUR BOOK" not in painted and "CHAPTER ONE" not in painted


def test_a_heading_stays_on_its_own_line_above_its_paragraph(qtbot):
    """The sample's first paragraph starts in lower case ("reader is ..."): it must
    not be joined to the heading above it, as a sentence run across a page is."""
    from reader.sample import SECTIONS, sample_path

    document, _ = read_document(sample_path())
    view = TextView()
    qtbot.addWidget(view)
    view.set_document(document)
    shown = view.toPlainText()
    for heading, paragraphs in SECTIONS:
        assert f"{heading}\n" in shown, heading
        assert f"{heading}  {paragraphs[0][:10]}" not in shown
    # The view is still the canonical text, character for character.
    assert len(shown) == len(document.text)


def test_control_characters_a_pdf_left_show_as_spaces_at_their_offsets(qtbot):
    from reader.records import Document

    text = "Bullets:\n\n•\u2002\x07Laboratory-based testing.\n\n•\u2002\x07Point-of-care testing."
    document = Document("d1", "t", "p", "pdf", text, [0], "x")
    view = TextView()
    qtbot.addWidget(view)
    view.set_document(document)
    shown = view.toPlainText()
    assert "\x07" not in shown and len(shown) == len(text)
    start = text.index("Point-of-care")
    assert shown[start : start + 13] == "Point-of-care"
