"""Page furniture on generated books: found exactly, read past, never changing the text."""

from __future__ import annotations

import re
from pathlib import Path

import pymupdf
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from reader.ingest import read_document
from reader.ingest.furniture import _key, _Keys
from reader.text.normalize import normalize_key
from reader.text.reading_view import outside, readable, reading_view
from reader.verify import DocumentVerifier
from tests.books import FONT, make_book


@pytest.fixture
def book(tmp_path: Path) -> tuple[Path, dict[str, object]]:
    path = tmp_path / "book.pdf"
    return path, make_book(path, seed=11)


def test_running_heads_page_numbers_and_markers_are_found(book):
    path, printed = book
    document, chunks = read_document(path)
    kinds: dict[str, list[str]] = {}
    for item in document.furniture:
        kinds.setdefault(item.kind, []).append(document.text[item.start : item.end])
    pages = int(printed["pages"])  # type: ignore[call-overload]
    assert sorted(kinds["header"]) == sorted(
        f"THE HARBOUR BOOK {n}" if n % 2 else f"{n} CHAPTER ONE" for n in range(1, pages + 1)
    )
    assert kinds["page-number"] == [str(n) for n in range(1, pages + 1)]
    assert kinds["marker"] == [label for _, label in printed["markers"]]  # type: ignore[attr-defined]
    # The text itself is untouched: furniture is ranges of it.
    assert "THE HARBOUR BOOK 1" in document.text
    assert all(
        c.furniture == tuple(f for f in document.furniture if c.start <= f.start < c.end)
        for c in chunks
    )


@settings(
    max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(seed=st.integers(0, 10_000), data=st.data())
def test_a_sentence_quoted_across_a_page_break_verifies_with_its_true_span(
    tmp_path_factory, seed, data
):
    path = tmp_path_factory.mktemp("book") / "book.pdf"
    make_book(path, seed)
    document, chunks = read_document(path)
    verifier = DocumentVerifier(document, chunks)
    read = reading_view(document.text, document.furniture)
    for page in range(1, document.pages):
        boundary = document.page_starts[page]
        # Words as read either side of the page break: the quote a person makes.
        before = readable(read[:boundary]).split()[-data.draw(st.integers(2, 6)) :]
        after = readable(read[boundary:]).split()[: data.draw(st.integers(2, 6))]
        quote = " ".join(before + after)
        result = verifier.verify(quote)
        assert result.status == "exact", (quote, result.reason)
        assert result.start is not None and result.end is not None
        if result.occurrences > 1:
            continue  # a short quote the generated book says twice: either span is its own
        spanned = document.text[result.start : result.end]
        assert spanned.startswith(before[0]) and spanned.endswith(after[-1])
        assert result.start < boundary < result.end
        # The highlight leaves the running head and page number out.
        painted = "".join(
            document.text[a:b] for a, b in outside(result.start, result.end, document.furniture)
        )
        assert "CHAPTER ONE" not in painted and "HARBOUR BOOK" not in painted
        # What it says still decides: another word or number is a miss.
        changed = (
            quote.replace(after[-1], "lighthouse", 1) if after[-1] != "lighthouse" else quote + " x"
        )
        assert verifier.verify(changed).status == "miss"
        renumbered = re.sub(r"\d+", lambda m: str(int(m.group()) + 1), quote)
        if renumbered != quote and normalize_key(renumbered) not in normalize_key(readable(read)):
            assert verifier.verify(renumbered).status == "miss"


def test_a_quote_without_its_footnote_marker_verifies_and_with_it_too(book):
    path, _ = book
    document, chunks = read_document(path)
    verifier = DocumentVerifier(document, chunks)
    for item in (f for f in document.furniture if f.kind == "marker"):
        before = document.text[max(0, item.start - 40) : item.start].split()[-4:]
        after = document.text[item.end : item.end + 60].split()[:4]
        without = " ".join(before) + " " + " ".join(after)
        result = verifier.verify(without)
        assert result.status == "exact", (without, result.reason)
        assert result.start < item.start and result.end > item.end
        with_marker = document.text[result.start : result.end]
        assert verifier.verify(with_marker).status == "exact"


def test_a_quote_that_keeps_the_running_head_still_verifies(book):
    path, _ = book
    document, chunks = read_document(path)
    verifier = DocumentVerifier(document, chunks)
    head = next(f for f in document.furniture if f.kind == "header" and f.start > 0)
    printed = " ".join(document.text[head.start - 30 : head.end + 30].split()[1:-1])
    result = verifier.verify(printed)
    assert result.status == "exact", printed
    assert result.start < head.start and result.end > head.end


def test_a_raised_digit_after_a_number_is_an_exponent_not_a_marker(tmp_path):
    path = tmp_path / "exponent.pdf"
    document = pymupdf.open()
    page = document.new_page(width=420, height=600)
    text = "The colony grew 10"
    page.insert_text((40, 100), text, fontsize=FONT)
    width = pymupdf.get_text_length(text, fontsize=FONT)
    page.insert_text((40 + width + 0.5, 96), "6", fontsize=6)
    page.insert_text((40 + width + 5, 100), " times in a single winter season.", fontsize=FONT)
    document.save(path)
    read, chunks = read_document(path)
    assert [f for f in read.furniture if f.kind == "marker"] == []
    verifier = DocumentVerifier(read, chunks)
    assert verifier.verify("The colony grew 10 times in a single winter").status == "miss"
    assert verifier.verify("The colony grew 106 times in a single winter").status == "exact"


def test_a_raised_digit_before_an_operator_is_an_exponent_not_a_marker(tmp_path):
    path = tmp_path / "formula.pdf"
    document = pymupdf.open()
    page = document.new_page(width=420, height=600)
    page.insert_text((40, 100), "Heterogeneity was high, with I", fontsize=FONT)
    width = pymupdf.get_text_length("Heterogeneity was high, with I", fontsize=FONT)
    page.insert_text((40 + width + 0.5, 96), "2", fontsize=6)
    page.insert_text((40 + width + 5, 100), " = 99.1% across the trials.", fontsize=FONT)
    document.save(path)
    read, chunks = read_document(path)
    assert [f for f in read.furniture if f.kind == "marker"] == []
    verifier = DocumentVerifier(read, chunks)
    assert verifier.verify("high, with I = 99.1% across the trials").status == "miss"


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(
        st.text(
            alphabet=st.sampled_from("IVXLCDMivxlcdm\u0130\u0131ß 12\t#\nAbc-\u0663"), max_size=12
        ),
        max_size=8,
    )
)
def test_keys_made_for_all_lines_at_once_are_each_lines_own(texts):
    """The furniture pass masks numbers in all lines in one go; a key is still that
    of its line alone (roman numerals in any case, the Turkish i's, line breaks)."""
    keys = _Keys(texts)
    for text in texts:
        assert keys.of(text) == " ".join(_CASE_BLIND_NUMBERS.sub("#", text.casefold()).split())
        assert keys.of(text) == _key(text)


# The masking rule as first written: the faster one must match as it does.
_CASE_BLIND_NUMBERS = re.compile(r"\b(?:\d+|[ivxlcdm]{1,7})\b", re.IGNORECASE)
