"""The passage verifier agrees with the whole-document verifier where it looks.

Generated documents (prose running across pages under running heads and page
numbers, footnote markers, words hyphenated at line ends, a ligature, a
boilerplate sentence repeated) are checked both ways on random quotes: cut
anywhere (across chunk boundaries too), damaged, copied from another chunk
than the one cited, cited from a chunk that was not retrieved.
"""

from __future__ import annotations

import random
from bisect import bisect_right

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from reader.ingest.chunking import chunk_text
from reader.records import Chunk, Document, Furniture, Verification
from reader.text.normalize import normalize_key
from reader.verify import DocumentVerifier, PassageVerifier
from reader.verify.passages import NEIGHBOURS, SCOPE
from tests.books import WORDS as BOOK_WORDS

WORDS = [
    *BOOK_WORDS,
    "\ufb01nal",  # a ligature
    "\u201cquoted\u201d",
    "don\u2019t",
]
BOILERPLATE = "All rights are reserved by the harbour board."


def generated_document(seed: int, pages: int = 0) -> tuple[Document, list[Chunk]]:
    """Pages of prose under a running head and above a page number; sentences run on
    from page to page; lines wrap, some with a hyphen; some sentences carry a marker."""
    rng = random.Random(seed)
    text = ""
    page_starts: list[int] = []
    furniture: list[Furniture] = []
    number = 0
    for page in range(pages or rng.randint(3, 7)):
        page_starts.append(len(text))
        head = f"THE HARBOUR BOOK {page + 1}"
        furniture.append(Furniture(len(text), len(text) + len(head), "header"))
        text += head + "\n\n"
        for _ in range(rng.randint(2, 5)):
            for _ in range(rng.randint(3, 9)):
                if rng.random() < 0.1:
                    text += BOILERPLATE + " "
                    continue
                number += 1
                words = [rng.choice(WORDS) for _ in range(rng.randint(5, 14))]
                if rng.random() < 0.2:
                    words[rng.randrange(len(words))] = "con-\ntinued"
                line_break = rng.randrange(len(words))
                words[line_break] += "\n"
                text += f"Record {number} notes the {' '.join(words)} of {1700 + number}."
                if rng.random() < 0.15:
                    marker = str(rng.randint(1, 30))
                    furniture.append(Furniture(len(text), len(text) + len(marker), "marker"))
                    text += marker
                text += " "
            text = text.rstrip(" ") + "\n\n"
        # The page's last sentence may run on past the page number.
        if rng.random() < 0.5:
            text = text.rstrip("\n") + " and the"
        folio = str(page + 1)
        text += "\n"
        furniture.append(Furniture(len(text), len(text) + len(folio), "page-number"))
        text += folio + "\n\n"
    document = Document("doc", "Harbour", "/harbour.txt", "text", text, page_starts, "test")
    document.furniture = furniture
    return document, chunk_text("doc", text, page_starts, [], furniture)


def passage_verifier(document: Document, chunks: list[Chunk], retrieved: list[Chunk]):
    by_seq = {chunk.seq: chunk for chunk in chunks}
    reads: list[tuple[int, int]] = []

    def chunk_range(first: int, last: int) -> list[Chunk]:
        reads.append((first, last))
        return [by_seq[seq] for seq in range(first, last + 1) if seq in by_seq]

    return PassageVerifier(document, chunk_range, retrieved), reads


def damaged(quote: str, rng: random.Random) -> str:
    """Extraction damage: case, whitespace, a dropped or doubled letter."""
    chars = list(quote)
    for _ in range(rng.randint(1, 2)):
        letters = [i for i, c in enumerate(chars) if c.isalpha()]
        if not letters:
            break
        index = rng.choice(letters)
        chars[index] = rng.choice(["", chars[index] * 2, chars[index].swapcase()])
    return " ".join("".join(chars).split()).replace(" ", rng.choice([" ", "\n", "  "]))


def spans_in(
    verifier: DocumentVerifier, quote: str, cited: str, chunks: list[Chunk], window: set[int]
) -> int:
    """How many of the quote's exact occurrences lie wholly in the window's chunks, in
    the view (as read, or as printed) where the whole-document check found it in ``cited``."""
    starts = [chunk.start for chunk in chunks]
    as_read = verifier._read.verify(quote, source=cited).status == "exact"
    count = 0
    for start, end in (verifier._read if as_read else verifier.printed).find_all(quote):
        first, last = bisect_right(starts, start) - 1, bisect_right(starts, end - 1) - 1
        count += all(seq in window for seq in range(first, last + 1))
    return count


def assert_same(whole: Verification, scoped: Verification, window: set[str]) -> None:
    outside = set(whole.found_in) - window
    if outside and whole.status == "miss":
        # Found only beyond the window by the whole-document check: the passage
        # check does not look there, so it cannot name those chunks.
        assert scoped.status != "exact"
        assert set(scoped.found_in) <= window
        return
    assert (scoped.status, scoped.start, scoped.end, scoped.chunk_id, scoped.page) == (
        whole.status,
        whole.start,
        whole.end,
        whole.chunk_id,
        whole.page,
    ), (whole, scoped)
    assert scoped.found_in == whole.found_in
    assert scoped.score == pytest.approx(whole.score)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 10_000), st.randoms(use_true_random=False))
def test_passage_verifier_agrees_with_the_whole_document(seed, rng):
    document, chunks = generated_document(seed)
    whole = DocumentVerifier(document, chunks)
    retrieved = rng.sample(chunks, k=min(len(chunks), rng.randint(1, 4)))
    scoped, _ = passage_verifier(document, chunks, retrieved)
    retrieved_ids = {chunk.id for chunk in retrieved}
    text = document.text
    for _ in range(12):
        home = rng.choice(retrieved)
        kind = rng.choice(["cut", "cut", "across", "damaged", "elsewhere", "not-retrieved"])
        length = rng.randint(10, 260)
        if kind == "across" and home.seq + 1 < len(chunks):
            start = max(home.start, home.end - rng.randint(5, 80))  # runs on into the next
        else:
            start = rng.randint(home.start, max(home.start, home.end - 10))
        quote = text[start : start + length]
        if kind == "damaged":
            quote = damaged(quote, rng)
        if not normalize_key(quote):
            continue
        cited = home
        if kind == "elsewhere":
            cited = rng.choice(retrieved)
        elif kind == "not-retrieved":
            cited = rng.choice(chunks)
        expected = whole.verify(quote, source=cited.id, retrieved=retrieved_ids)
        found = scoped.verify(quote, source=cited, retrieved=retrieved_ids)
        window = {chunk.id for chunk in scoped._chunks.values()}
        assert_same(expected, found, window)
        if expected.status == "exact" and not set(expected.found_in) - window:
            loaded = set(scoped._chunks)
            assert found.occurrences == spans_in(whole, quote, cited.id, chunks, loaded) >= 1


def test_the_window_is_the_retrieved_chunks_and_their_neighbours():
    document, chunks = generated_document(3, pages=14)
    assert len(chunks) > 12
    retrieved = [chunks[2], chunks[9]]
    scoped, reads = passage_verifier(document, chunks, retrieved)
    quote = chunks[9].text[:60]
    found = scoped.verify(quote, source=chunks[9], retrieved={c.id for c in retrieved})
    assert found.status == "exact"
    assert document.text[found.start : found.end] == quote
    wanted = {seq for c in retrieved for seq in range(c.seq - NEIGHBOURS, c.seq + NEIGHBOURS + 1)}
    assert set(scoped._chunks) == wanted
    assert all(last - first <= 2 * NEIGHBOURS for first, last in reads)


def test_a_long_quote_reads_as_many_neighbours_as_it_needs():
    document, chunks = generated_document(5, pages=14)
    middle = len(chunks) // 2
    # A quote from three chunks before the cited one to three after it.
    start, end = chunks[middle - 3].start, chunks[middle + 3].end
    quote = document.text[start:end]
    scoped, _ = passage_verifier(document, chunks, [chunks[middle]])
    found = scoped.verify(quote, source=chunks[middle], retrieved={chunks[middle].id})
    expected = DocumentVerifier(document, chunks).verify(quote, source=chunks[middle].id)
    assert (found.status, found.start, found.end) == (expected.status, expected.start, end)
    assert found.status == "exact" and found.start == start


def test_occurrences_are_counted_in_the_window_and_the_reason_says_so():
    text = "\n\n".join(
        f"Paragraph {n} tells of the harbour and its lamps. {BOILERPLATE} " + "Filler words. " * 40
        for n in range(12)
    )
    document = Document("doc", "Harbour", "/h.txt", "text", text, [0], "test")
    chunks = chunk_text("doc", text, [0], [])
    cited = next(c for c in chunks if BOILERPLATE in c.text and c.seq > 3)
    scoped, _ = passage_verifier(document, chunks, [cited])
    found = scoped.verify(BOILERPLATE, source=cited, retrieved={cited.id})
    whole = DocumentVerifier(document, chunks).verify(BOILERPLATE, source=cited.id)
    assert whole.occurrences == 12
    window = [chunk for chunk in chunks if chunk.seq in scoped._chunks]
    expected = sum(chunk.text.count(BOILERPLATE) for chunk in window)
    assert 1 < found.occurrences == expected < 12
    assert (found.status, found.start, found.end) == (whole.status, whole.start, whole.end)
    assert SCOPE in found.reason


def test_a_quote_nowhere_near_is_a_miss_that_says_where_it_looked():
    document, chunks = generated_document(7)
    scoped, _ = passage_verifier(document, chunks, [chunks[0]])
    found = scoped.verify("The keeper sold the lighthouse in 1999.", source=chunks[0])
    assert found.status == "miss" and found.start is None
    assert found.reason.endswith(SCOPE)
