"""Quotes as a person reads them, on the corpus's long PDFs (furniture and reading order)."""

from __future__ import annotations

import json
from collections import defaultdict
from itertools import pairwise
from pathlib import Path

import pymupdf
import pytest

from reader.ingest import read_document
from reader.ingest.layout import _assemble, page_blocks
from reader.text.reading_view import outside
from reader.verify import DocumentVerifier
from tests.conftest import PROJECT_ROOT, corpus_dir

pytestmark = [pytest.mark.corpus, pytest.mark.slow]

QUOTES = PROJECT_ROOT / "bench" / "qa" / "reader-quotes.json"


def test_quotes_taken_as_read_verify_with_their_span_and_changed_ones_do_not():
    items = json.loads(QUOTES.read_text(encoding="utf-8"))["items"]
    by_document: dict[str, list[dict]] = defaultdict(list)
    for item in items:
        by_document[item["document"]].append(item)
    passed, positives, false_positives = 0, 0, []
    for name, group in by_document.items():
        document, chunks = read_document(corpus_dir() / "pdf" / name)
        verifier = DocumentVerifier(document, chunks)
        for item in group:
            result = verifier.verify(item["quote"])
            if item["kind"] == "negative":
                if result.status != "miss":
                    false_positives.append(item["quote"])
                continue
            positives += 1
            start = document.text.index(item["span_text"])
            if result.status != "miss" and (result.start, result.end) == (
                start,
                start + len(item["span_text"]),
            ):
                passed += 1
    assert positives >= 140
    assert passed / positives >= 0.95, f"{passed} of {positives}"
    assert false_positives == []


def test_the_free_culture_page_break_and_marker_examples(tmp_path: Path):
    document, chunks = read_document(corpus_dir() / "pdf" / "pdfjs-freeculture-352p.pdf")
    verifier = DocumentVerifier(document, chunks)
    across = verifier.verify("would effectively destroy the archiving use of CDs")
    assert across.status == "exact"
    printed = document.text[across.start : across.end]
    assert printed == "would effectively destroy the archiving\n\nPUZZLES 203\n\nuse of CDs"
    painted = "".join(
        document.text[a:b] for a, b in outside(across.start, across.end, document.furniture)
    )
    assert "PUZZLES" not in painted and painted.startswith("would") and painted.endswith("CDs")
    marker = verifier.verify("used record stores in America today. These stores buy content")
    assert marker.status == "exact" and "today.16" in document.text[marker.start : marker.end]
    assert (
        verifier.verify("used record stores in America today. These stores sell content").status
        == "miss"
    )


def test_multi_column_pages_read_column_by_column():
    # Page 2 of the Federal Register rule draws its footnotes first; read, they come last.
    with pymupdf.open(
        corpus_dir() / "pdf" / "pdfplumber-federal-register-2020-17221-threecolumn.pdf"
    ) as pdf:
        page = pdf[1]
        drawn = _assemble(b.lines for b in page_blocks(page, in_reading_order=False))
        read = _assemble(b.lines for b in page_blocks(page))
    footnote = "Stall warning indication is the activation of the"
    body = "Following the Lion Air Flight 610"
    assert drawn.index(footnote) < drawn.index(body)
    assert read.index(body) < read.index(footnote)


def test_chunks_of_a_book_with_sentences_across_page_breaks_end_on_whole_sentences():
    # The children's book breaks pages inside sentences ("set his net in the" / "river.");
    # a chunk cut at every such break would end on half a sentence.
    _, chunks = read_document(corpus_dir() / "pdf" / "pdfjs-pdkids-public-domain-55p.pdf")
    halves = [
        before.reading_text[-40:]
        for before, after in pairwise(chunks)
        if before.reading_text.rstrip()[-1:].islower() and after.reading_text.lstrip()[:1].islower()
    ]
    assert len(chunks) > 150
    assert len(halves) <= len(chunks) // 50, halves


def test_a_five_digit_page_number_is_furniture_and_a_sentence_runs_on_across_it():
    """The Federal Register numbers its pages through the year (47699): taken for text, the
    number cut the sentence giving the Lion Air crash's 189 fatalities in two, and the quote
    a reader takes of it was "not found anywhere in the document"."""
    document, chunks = read_document(
        corpus_dir() / "pdf" / "pdfplumber-federal-register-2020-17221-threecolumn.pdf"
    )
    numbers = [
        document.text[item.start : item.end]
        for item in document.furniture
        if item.kind == "page-number"
    ]
    assert "47699" in numbers and "47700" in numbers
    quote = (
        "accident after takeoff from Soekarno-Hatta International Airport in Jakarta, "
        "Indonesia, resulting in 189 fatalities"
    )
    result = DocumentVerifier(document, chunks).verify(quote)
    assert result.status == "exact", result
    assert document.page_of(result.start) == 1 and document.page_of(result.end - 1) == 2
