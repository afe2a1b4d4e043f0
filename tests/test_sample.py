"""The shipped sample document: its text, and the user's copy of it."""

from __future__ import annotations

from pathlib import Path

from reader.library import Library
from reader.sample import (
    SAMPLE_QUESTION,
    SAMPLE_TITLE,
    SECTIONS,
    build_sample,
    installed_sample,
    sample_offered,
    sample_path,
)


def flat(text: str) -> str:
    return " ".join(text.split())


def test_the_shipped_pdf_holds_exactly_the_sections(library: Library):
    result = library.ingest(sample_path())
    document = library.document(result.doc_id)
    assert document.title == SAMPLE_TITLE
    assert result.pages == 2
    text = flat(document.text)
    for heading, paragraphs in SECTIONS:
        assert heading in text
        for paragraph in paragraphs:
            assert flat(paragraph) in text, paragraph[:60]
    assert [h.title for h in document.headings if h.level == 2] == [h for h, _ in SECTIONS]


def test_rebuilding_the_sample_gives_the_same_text(tmp_path: Path, library: Library):
    rebuilt = tmp_path / "rebuilt.pdf"
    build_sample(rebuilt)
    shipped = library.document(library.ingest(sample_path()).doc_id)
    again = library.document(library.ingest(rebuilt).doc_id)
    assert again.text == shipped.text
    assert again.page_starts == shipped.page_starts


def test_the_sample_question_finds_its_answer_by_search(library: Library):
    doc_id = library.ingest(sample_path()).doc_id
    best = library.search(SAMPLE_QUESTION, doc_id=doc_id, limit=1)[0].chunk
    assert "Clicking the link scrolls the text to the quoted words" in flat(best.text)


def test_the_users_copy_is_made_once_and_marks_the_first_launch_done(reader_home: Path):
    assert not sample_offered()
    copy = installed_sample()
    assert copy.parent == reader_home / "sample"
    assert copy.read_bytes() == sample_path().read_bytes()
    assert sample_offered()
    modified = copy.stat().st_mtime_ns
    assert installed_sample() == copy and copy.stat().st_mtime_ns == modified
