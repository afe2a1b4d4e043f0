"""The span verifier: is this quote in that source, and exactly where?

Three outcomes (see DESIGN.md):
- exact: the normalised quote occurs in the normalised source; the span covers
  exactly the quoted characters of the canonical text;
- fuzzy: the quote is there but damaged by extraction (a dropped ligature, a
  word split or run together, a garbled character) or, on a page read by OCR,
  by the engine's misreadings (see ``reader.verify.ocr``); the best-aligned
  span is returned and flagged, with the reason;
- miss: not in the cited source, with the reason, including when the quote is
  in another chunk than the one cited.

Fuzzy matching tolerates extraction damage, never rewriting: a changed number,
an added or dropped negation, a swapped, added or dropped word is a different
statement and is a miss however similar the strings are.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Callable, Collection, Sequence
from typing import Protocol
from unicodedata import combining

from rapidfuzz import fuzz

from reader.records import Chunk, Verification
from reader.text.normalize import NormalizedText, normalize_key
from reader.verify.damage import Alignment, OcrConfidenceAt, align_damaged
from reader.verify.key_index import SEPARATOR, KeyIndex
from reader.verify.ocr import OcrReading, ocr_reason

_CANDIDATE_CUTOFF = 75.0  # rough alignment score worth refining
_RANK = {"exact": 2, "fuzzy": 1, "miss": 0}


class Pages(Protocol):
    """What a matcher needs of a document besides text: which page an offset is on."""

    def page_of(self, offset: int) -> int: ...
    def page_label(self, page: int) -> str | None: ...


def as_read_or_printed(
    read: QuoteMatcher,
    printed: Callable[[], QuoteMatcher],
    quote: str,
    source: str | None,
    retrieved: Collection[str] | None,
) -> Verification:
    """The better of the checks against the text as read and as printed (same when
    there is no furniture), the printed one only looked at when the read one is not exact."""
    found = read.verify(quote, source, retrieved)
    if found.status == "exact":
        return found
    other = printed()
    if other is read:
        return found
    as_printed = other.verify(quote, source, retrieved)
    if _RANK[as_printed.status] > _RANK[found.status]:
        return as_printed
    if as_printed.status == found.status == "miss" and as_printed.found_in and not found.found_in:
        return as_printed
    return found


class QuoteMatcher:
    """Matches quotes against one normalised form of a document, chunk by chunk.

    ``norm``'s offset map points into the canonical text, whatever view of it
    was normalised, so every span found is a span of the canonical text.
    ``texts`` holds the canonical text the key covers, as ``(offset, text)``
    pieces: the whole document as one piece, or some stretches of it (a window
    of chunks around the passages a question retrieved). The keys of stretches
    that do not touch are joined by ``SEPARATOR``; a match never crosses it, and
    ``scope`` says in the reasons what was searched. ``ocr`` says which words of
    the canonical text OCR read (None: none did); only there are its
    misreadings tolerated.
    """

    def __init__(
        self,
        document: Pages,
        chunks: Sequence[Chunk],
        norm: NormalizedText,
        texts: Sequence[tuple[int, str]],
        scope: str = "the document",
        ocr: OcrReading | None = None,
    ) -> None:
        self.document = document
        self.scope = scope
        self._ocr = ocr
        self._texts = sorted(texts)
        self._text_starts = [offset for offset, _ in self._texts]
        self.chunks = sorted(chunks, key=lambda chunk: chunk.start)
        self._by_id = {chunk.id: chunk for chunk in self.chunks}
        self._norm = norm
        origin = self._norm.origin
        self._chunk_starts = [chunk.start for chunk in self.chunks]
        self._key_ranges = {
            chunk.id: (bisect_left(origin, chunk.start), bisect_left(origin, chunk.end))
            for chunk in self.chunks
        }
        chunk_key_starts = [self._key_ranges[chunk.id][0] for chunk in self.chunks]
        # Key positions where a stretch ends (its separator) and the key's end.
        separators = [i for i, char in enumerate(norm.key) if char == SEPARATOR]
        self._stretch_ends = [*separators, len(norm.key)]
        self._index = KeyIndex(norm.key, chunk_key_starts, len(self._stretch_ends) > 1)

    # -- public ------------------------------------------------------------------

    def prepare(self) -> None:
        """Build the lookup indexes now rather than on the first quote that needs them."""
        self._index.prepare()

    def verify(
        self,
        quote: str,
        source: str | None = None,
        retrieved: Collection[str] | None = None,
    ) -> Verification:
        """Check ``quote`` against chunk ``source`` (or the whole document if None).

        ``retrieved`` names the chunks the model was shown; citing any other
        chunk is a miss even if the quote is there.
        """
        quote_key = normalize_key(quote)
        if not quote_key:
            return Verification("miss", "the quote is empty", chunk_id=source)
        positions = self._find_all(quote_key)
        occurrences = len(positions)

        if source is None:
            return self._verify_in_document(quote_key, positions)

        chunk = self._by_id.get(source)
        if chunk is None:
            return Verification(
                "miss",
                f"source {source} is not a chunk of this document",
                chunk_id=source,
                occurrences=occurrences,
            )
        if retrieved is not None and source not in retrieved:
            return Verification(
                "miss",
                f"source {source} was not among the passages retrieved for this question",
                chunk_id=source,
                occurrences=occurrences,
            )
        low, high = self._key_ranges[source]
        length = len(quote_key)
        for position in positions:
            if position < high and position + length > low:
                return self._exact(source, position, length, occurrences)
        if positions:
            elsewhere = tuple(dict.fromkeys(self._chunk_at_key(p) for p in positions))
            return Verification(
                "miss",
                f"the quote is in chunk {', '.join(elsewhere)}, not in the cited chunk {source}",
                chunk_id=source,
                occurrences=occurrences,
                found_in=elsewhere,
            )
        aligned = (
            None
            if self._has_unknown_number(quote_key)
            else self._fuzzy_in_range(quote_key, low, high)
        )
        if aligned is not None:
            return self._fuzzy(source, aligned, quote_key)
        other = self._fuzzy_anywhere(quote_key, exclude=source)
        if other is not None:
            other_chunk = self._chunk_at_key(other.start)
            return Verification(
                "miss",
                f"a damaged copy of the quote is in chunk {other_chunk}, "
                f"not in the cited chunk {source}",
                chunk_id=source,
                score=other.score,
                found_in=(other_chunk,),
            )
        return Verification(
            "miss",
            f"the quote was not found in the cited chunk or anywhere in {self.scope}",
            chunk_id=source,
        )

    def find_all(self, quote: str) -> list[tuple[int, int]]:
        """Every ``[start, end)`` span of the canonical text matching ``quote`` exactly."""
        quote_key = normalize_key(quote)
        if not quote_key:
            return []
        return [
            self._span(position, position + len(quote_key))
            for position in self._find_all(quote_key)
        ]

    def key_range(self, chunk_id: str) -> tuple[int, int]:
        """The ``[low, high)`` key positions of a chunk's text."""
        return self._key_ranges[chunk_id]

    def stretch_around(self, key_position: int) -> tuple[int, int]:
        """The ``[low, high)`` key positions of the stretch of text holding a position."""
        stretch = bisect_left(self._stretch_ends, key_position)
        low = self._stretch_ends[stretch - 1] + 1 if stretch else 0
        high = self._stretch_ends[min(stretch, len(self._stretch_ends) - 1)]
        return low, high

    # -- outcomes ------------------------------------------------------------------

    def _span(self, key_start: int, key_end: int) -> tuple[int, int]:
        start, end = self._norm.span(key_start, key_end)
        if self._norm.key[key_end - 1] == "-":
            # A run of dashes ("--") is one key character: take the whole run.
            while normalize_key(self._char_at(end)) == "-":
                end += 1
        return start, end

    def _char_at(self, offset: int) -> str:
        """The canonical character at ``offset``, or "" where no text was given."""
        return self._canonical(offset, offset + 1)

    def _canonical(self, start: int, end: int) -> str:
        """The canonical text ``[start, end)``, as far as the piece holding ``start`` goes."""
        index = bisect_right(self._text_starts, start) - 1
        if index < 0:
            return ""
        offset, text = self._texts[index]
        return text[start - offset : end - offset]

    def _exact(self, chunk_id: str, position: int, length: int, occurrences: int) -> Verification:
        start, end = self._span(position, position + length)
        page = self.document.page_of(start)
        reason = "the quote occurs in the cited source"
        if occurrences > 1:
            reason += f" (and {occurrences - 1} more time{'s' if occurrences > 2 else ''} "
            reason += f"in {self.scope})"
        return Verification(
            "exact",
            reason,
            chunk_id=chunk_id,
            start=start,
            end=end,
            page=page,
            page_label=self.document.page_label(page),
            score=100.0,
            occurrences=occurrences,
        )

    def _fuzzy(self, chunk_id: str, aligned: Alignment, quote_key: str) -> Verification:
        start, end = self._span(aligned.start, aligned.end)
        page = self.document.page_of(start)
        on_ocr_text = self._ocr is not None and self._ocr.confidence_at(start) is not None
        if aligned.misread or aligned.uncertain or on_ocr_text:
            reason = ocr_reason(
                [self._canonical(*self._span(low, high)) for low, high in aligned.misread],
                [
                    (self._canonical(*self._span(low, high)), confidence)
                    for low, high, confidence in aligned.uncertain
                ],
                aligned.score,
            )
        elif _without_quotation_marks(quote_key) == _without_quotation_marks(
            normalize_key(self._canonical(start, end))
        ):
            # Nothing was damaged: a person quoting left out the source's own marks.
            reason = (
                "the quote matches the source but for quotation marks the source has "
                f"(similarity {aligned.score:.0f}%)"
            )
        else:
            reason = (
                "the quote matches the source up to extraction damage "
                f"(similarity {aligned.score:.0f}%)"
            )
        return Verification(
            "fuzzy",
            reason,
            chunk_id=chunk_id,
            start=start,
            end=end,
            page=page,
            page_label=self.document.page_label(page),
            score=aligned.score,
            occurrences=0,
        )

    def _verify_in_document(self, quote_key: str, positions: list[int]) -> Verification:
        if positions:
            return self._exact(
                self._chunk_at_key(positions[0]), positions[0], len(quote_key), len(positions)
            )
        aligned = self._fuzzy_anywhere(quote_key, exclude=None)
        if aligned is not None:
            return self._fuzzy(self._chunk_at_key(aligned.start), aligned, quote_key)
        return Verification("miss", f"the quote was not found anywhere in {self.scope}")

    # -- matching ------------------------------------------------------------------

    def _find_all(self, quote_key: str) -> list[int]:
        key = self._norm.key
        length = len(quote_key)
        anchor = self._index.anchor(quote_key)
        if anchor is None:
            candidates = []
            position = key.find(quote_key)
            while position >= 0:
                candidates.append(position)
                position = key.find(quote_key, position + 1)
        else:
            # Only where the quote's rarest whole word occurs can the quote occur.
            postings, offset = anchor
            candidates = [
                start
                for start in (p - offset for p in postings)
                if start >= 0 and key.startswith(quote_key, start)
            ]
        # The key holds accented letters decomposed; a match must not cut one
        # apart ("e" is not found in "é").
        return [
            position
            for position in candidates
            if not (
                combining(key[position])
                or (position + length < len(key) and combining(key[position + length]))
            )
        ]

    def _chunk_at_key(self, key_position: int) -> str:
        offset = self._norm.origin[key_position]
        index = bisect_right(self._chunk_starts, offset) - 1
        chunk = self.chunks[max(0, index)]
        return chunk.id

    def _has_unknown_number(self, quote_key: str) -> bool:
        """Whether the quote holds a number the document never contains.

        Such a quote cannot match even fuzzily (damage never changes digits),
        so the costly alignment is skipped; but OCR may have misread it.
        """
        if self._ocr is not None and self._ocr.has_words():
            return False
        return self._index.has_unknown_number(quote_key)

    def _fuzzy_anywhere(self, quote_key: str, exclude: str | None) -> Alignment | None:
        """The best fuzzy alignment in any chunk (but ``exclude``)."""
        if self._has_unknown_number(quote_key):
            return None
        best: Alignment | None = None
        for index in self._index.candidate_chunks(quote_key, limit=6):
            chunk = self.chunks[index]
            if chunk.id == exclude or index < 0:
                continue
            low, high = self._key_ranges[chunk.id]
            aligned = self._fuzzy_in_range(quote_key, low, high)
            if aligned is not None and (best is None or aligned.score > best.score):
                best = aligned
        return best

    def _fuzzy_in_range(self, quote_key: str, low: int, high: int) -> Alignment | None:
        """Align a damaged quote with key range ``[low, high)``.

        The window reaches one quote length past the range on each side, so a
        quote running across a chunk boundary is found, but the match must
        overlap the range itself.
        """
        key = self._norm.key
        # Within the stretch holding the range: its own text, no other.
        stretch_low, stretch_high = self.stretch_around(low)
        window_low = max(stretch_low, low - len(quote_key))
        window_high = min(stretch_high, high + len(quote_key))
        window = key[window_low:window_high]
        rough = fuzz.partial_ratio_alignment(quote_key, window, score_cutoff=_CANDIDATE_CUTOFF)
        if rough is None:
            return None
        margin = max(8, len(quote_key) // 4)
        area_low = max(0, rough.dest_start - margin)
        area_high = min(len(window), rough.dest_end + margin)
        area_start = window_low + area_low
        aligned = align_damaged(
            quote_key, window[area_low:area_high], self._ocr_confidence_from(area_start)
        )
        if aligned is None:
            return None
        aligned = aligned.shifted(area_start)
        if not (aligned.start < high and aligned.end > low):
            return None
        return aligned

    def _ocr_confidence_from(self, key_start: int) -> OcrConfidenceAt | None:
        """OCR's confidence at a position of the key counted from ``key_start``; None
        when OCR read none of the document."""
        if self._ocr is None or not self._ocr.has_words():
            return None
        ocr, origin = self._ocr, self._norm.origin
        return lambda position: ocr.confidence_at(origin[key_start + position])


def _without_quotation_marks(key: str) -> str:
    """A matching key (where every double quotation mark is ``"``) without them."""
    return " ".join(key.replace('"', " ").split())
