"""Page furniture on generated books: found exactly, read past, never changing the text."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pymupdf
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from reader.ingest import read_document
from reader.readingtext import outside, readable, reading_view
from reader.textnorm import normalize_key
from reader.verify import DocumentVerifier

WORDS = [
    "harbour",
    "lamp",
    "keeper",
    "storm",
    "ledger",
    "tide",
    "mooring",
    "crown",
    "spring",
    "beacon",
    "rope",
    "anchor",
    "island",
    "channel",
    "pilot",
    "cargo",
    "vessel",
    "quay",
    "winter",
    "signal",
]
LINE_CHARS = 62
FONT = 10.0


def sentences(rng: random.Random, count: int) -> list[str]:
    made = []
    for number in range(count):
        words = [rng.choice(WORDS) for _ in range(rng.randint(8, 16))]
        made.append(f"Record {number} notes the {' '.join(words)} of {1800 + number}.")
    return made


def wrap(text: str) -> list[str]:
    lines, line = [], ""
    for word in text.split():
        if line and len(line) + 1 + len(word) > LINE_CHARS:
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}".strip()
    return [*lines, line]


def make_book(
    path: Path, seed: int, pages: int = 6, lines_per_page: int = 14, markers: int = 4
) -> dict[str, object]:
    """A book whose prose runs on from page to page under running heads.

    Odd pages carry "THE HARBOUR BOOK <n>" at the top, even pages
    "<n> CHAPTER ONE"; every page has its number at the foot; some words carry
    a raised footnote marker. Returns what was printed where.
    """
    rng = random.Random(seed)
    body = " ".join(sentences(rng, 60))
    lines = wrap(body)
    document = pymupdf.open()
    marker_words: list[tuple[str, str]] = []
    for number in range(1, pages + 1):
        page = document.new_page(width=420, height=600)
        head = f"THE HARBOUR BOOK {number}" if number % 2 else f"{number} CHAPTER ONE"
        page.insert_text((40, 40), head, fontsize=8)
        page.insert_text((200, 575), str(number), fontsize=8)
        for row in range(lines_per_page):
            line = lines[(number - 1) * lines_per_page + row]
            y = 80 + row * 15
            if row in (3, 9) and len(marker_words) < markers:
                # A marker after the line's last word, raised and small.
                page.insert_text((40, y), line, fontsize=FONT)
                width = pymupdf.get_text_length(line, fontsize=FONT)
                label = str(len(marker_words) + 1)
                page.insert_text((40 + width + 0.5, y - 4), label, fontsize=6)
                marker_words.append((line.split()[-1], label))
            else:
                page.insert_text((40, y), line, fontsize=FONT)
    document.save(path)
    return {"lines": lines[: pages * lines_per_page], "markers": marker_words, "pages": pages}


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
