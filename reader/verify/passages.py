"""Verifying quotes against the passages a question retrieved, not the whole document.

An answer's quotes come from the passages the model was shown. Checking them
needs those passages and the text just around them (a quote may run on into
the next chunk), so the verifier here reads a window of chunks from the
library, by position, and normalises only that: its cost follows the
passages, not the size of the document they came from, and a library holding
a 200 MB text answers as fast as one holding a pamphlet.

The outcomes and spans are the whole-document verifier's (``DocumentVerifier``)
wherever the text that decides them lies inside the window, which is built so
that it does:

- the window holds each chunk the question retrieved from the document, with
  ``NEIGHBOURS`` chunks on each side, and around a cited chunk at least a
  quote's length of text on each side (more chunks are read when a long quote
  needs them), so a quote in the cited chunk, or running across its edges, is
  found exactly as in the whole document;
- "the quote is in chunk X, not the cited chunk Y" names the chunks of the
  window that hold it: the other retrieved passages and their neighbours, the
  places a model that read those passages can have copied it from;
- ``occurrences`` counts the quote's occurrences within the window, and the
  reason says so ("and 2 more times in the retrieved passages and those
  around them"); boilerplate repeated all over a long document is counted
  where the question looked, not everywhere.

Offsets stay canonical: each stretch of the window is normalised with its
offset map shifted to where the stretch starts in the document, so OCR's
confidence in a word of the window (``ocr``) is looked up by canonical offset.
"""

from __future__ import annotations

from array import array
from collections.abc import Callable, Collection, Sequence

from reader.records import Chunk, Verification
from reader.text.normalize import NormalizedText, normalize, normalize_key
from reader.text.reading_view import reading_view
from reader.verify.ocr import OcrReading
from reader.verify.verifier import SEPARATOR, Pages, QuoteMatcher, as_read_or_printed

# Chunks read on each side of a retrieved or cited chunk.
NEIGHBOURS = 1
SCOPE = "the retrieved passages and those around them"

# Chunks of one document with ``first <= seq <= last``, in order.
ChunkRange = Callable[[int, int], Sequence[Chunk]]


class PassageVerifier:
    """Verifies quotes cited from one document's retrieved passages."""

    def __init__(
        self,
        pages: Pages,
        chunk_range: ChunkRange,
        retrieved: Sequence[Chunk],
        ocr: OcrReading | None = None,
    ) -> None:
        self._pages = pages
        self._ocr = ocr
        self._chunk_range = chunk_range
        self._chunks: dict[int, Chunk] = {}
        self._last_seq: int | None = None  # known once a read comes back short
        self._read: QuoteMatcher | None = None
        self._printed: QuoteMatcher | None = None
        for chunk in retrieved:
            self._load(chunk.seq - NEIGHBOURS, chunk.seq + NEIGHBOURS)

    def verify(
        self, quote: str, source: Chunk, retrieved: Collection[str] | None = None
    ) -> Verification:
        """Check ``quote`` against chunk ``source`` (see ``DocumentVerifier.verify``)."""
        self._load(source.seq - NEIGHBOURS, source.seq + NEIGHBOURS)
        self._reach(source, len(normalize_key(quote)))
        return as_read_or_printed(
            self._matcher(), self._printed_matcher, quote, source.id, retrieved
        )

    # -- the window --------------------------------------------------------------

    def _load(self, first: int, last: int) -> bool:
        """Read chunks ``first..last`` not yet in the window; whether any were new."""
        first = max(0, first)
        if self._last_seq is not None:
            last = min(last, self._last_seq)
        missing = [seq for seq in range(first, last + 1) if seq not in self._chunks]
        if not missing:
            return False
        before = len(self._chunks)
        for chunk in self._chunk_range(missing[0], missing[-1]):
            self._chunks.setdefault(chunk.seq, chunk)
        if missing[-1] not in self._chunks:
            # The document ends before it (seqs are 0, 1, 2, ... in order).
            self._last_seq = max(self._chunks, default=-1)
        if len(self._chunks) == before:
            return False
        self._read = self._printed = None
        return True

    def _reach(self, source: Chunk, quote_length: int) -> None:
        """Grow the window until it holds ``quote_length`` key characters of text on
        each side of ``source`` (or the document's start or end): the reach of a
        match overlapping the chunk, and of the fuzzy search around it."""
        while True:
            matcher = self._matcher()
            low, high = matcher.key_range(source.id)
            stretch_low, stretch_high = matcher.stretch_around(low)
            first = last = source.seq
            while first - 1 in self._chunks:
                first -= 1
            while last + 1 in self._chunks:
                last += 1
            grown = False
            if low - stretch_low < quote_length and first > 0:
                grown |= self._load(first - 1, first - 1)
            if stretch_high - high < quote_length:
                grown |= self._load(last + 1, last + 1)
            if not grown:
                return

    def _matcher(self) -> QuoteMatcher:
        if self._read is None:
            self._read = self._build(as_read=True)
        return self._read

    def _printed_matcher(self) -> QuoteMatcher:
        if self._printed is None:
            furnished = any(chunk.furniture for chunk in self._chunks.values())
            self._printed = self._build(as_read=False) if furnished else self._matcher()
        return self._printed

    def _build(self, as_read: bool) -> QuoteMatcher:
        """A matcher over the window: each run of consecutive chunks is one stretch."""
        keys: list[str] = []
        origin = array("q")
        texts: list[tuple[int, str]] = []
        for run in _runs([self._chunks[seq] for seq in sorted(self._chunks)]):
            start, text = _joined(run)
            furniture = {item for chunk in run for item in chunk.furniture}
            shown = reading_view(text, furniture, start) if as_read else text
            norm = normalize(shown, start)
            if keys:
                # The separator stands at the previous stretch's end, before this one.
                keys.append(SEPARATOR)
                origin.append(texts[-1][0] + len(texts[-1][1]))
            keys.append(norm.key)
            origin.extend(norm.origin)
            texts.append((start, text))
        norm = NormalizedText("".join(keys), origin)
        return QuoteMatcher(
            self._pages, list(self._chunks.values()), norm, texts, scope=SCOPE, ocr=self._ocr
        )


def _runs(chunks: list[Chunk]) -> list[list[Chunk]]:
    """The chunks (in order) cut into runs of consecutive ones."""
    runs: list[list[Chunk]] = []
    for chunk in chunks:
        if runs and runs[-1][-1].seq == chunk.seq - 1:
            runs[-1].append(chunk)
        else:
            runs.append([chunk])
    return runs


def _joined(run: list[Chunk]) -> tuple[int, str]:
    """The canonical text a run of consecutive chunks covers, and where it starts.

    Between two chunks the document holds only whitespace (chunks are cut at
    whitespace, which neither keeps); spaces in its place read and normalise
    the same, since every run of whitespace is one space in a key.
    """
    pieces: list[str] = []
    for previous, chunk in zip([None, *run], run, strict=False):
        if previous is not None:
            pieces.append(" " * (chunk.start - previous.end))
        pieces.append(chunk.text)
    return run[0].start, "".join(pieces)
