"""Split canonical text into chunks that end on sentence or paragraph ends.

Chunk ids derive from the document id and the chunk's own text (plus, for
repeated identical passages, which repetition it is), never from enumeration
order: re-ingesting gives the same ids, and a change elsewhere in a document
leaves the ids of untouched chunks alone.
"""

from __future__ import annotations

import hashlib
import re
from bisect import bisect_right
from collections import Counter
from collections.abc import Sequence
from dataclasses import replace

from reader.records import Chunk, Furniture, Heading
from reader.text.reading_view import reading_view
from reader.text.sentences import PARAGRAPH_BREAK, SENTENCE_END, inside_sentence

TARGET_CHARS = 900
MIN_CHARS = 250
MAX_CHARS = 1500

_WHITESPACE = re.compile(r"\s+")

# Strength of a place to cut: a heading always starts a new chunk; otherwise a
# paragraph end beats a sentence end, which beats any whitespace.
HEADING, PARAGRAPH, SENTENCE = 3, 2, 1


def chunk_id(doc_id: str, text: str, repetition: int) -> str:
    digest = hashlib.sha256(f"{doc_id}\x00{repetition}\x00{text}".encode()).hexdigest()
    return digest[:16]


def _breaks(text: str, headings: list[Heading]) -> tuple[list[int], list[int]]:
    """Candidate cut positions (start of what follows) with their strengths."""
    strength: dict[int, int] = {}
    for match in SENTENCE_END.finditer(text):
        strength[match.end()] = SENTENCE
    for match in PARAGRAPH_BREAK.finditer(text):
        if not inside_sentence(text, match):
            strength[match.end()] = PARAGRAPH
    for heading in headings:
        if 0 < heading.offset < len(text):
            strength[heading.offset] = HEADING
    positions = sorted(strength)
    return positions, [strength[p] for p in positions]


def _choose_cut(text: str, start: int, positions: list[int], strengths: list[int]) -> int:
    """Where the chunk beginning at ``start`` should end."""
    length = len(text)
    hard_limit = length if length - start <= MAX_CHARS else start + MAX_CHARS
    first = bisect_right(positions, start)
    last = bisect_right(positions, hard_limit)
    # A heading inside the window cuts, unless the chunk would be only a title.
    for index in range(first, last):
        if strengths[index] == HEADING and positions[index] - start >= 120:
            return positions[index]
    if hard_limit == length and length - start <= TARGET_CHARS:
        return length
    best = -1
    best_strength = 0
    for index in range(first, last):
        position = positions[index]
        if position - start < MIN_CHARS:
            continue
        if position - start > TARGET_CHARS and best >= 0:
            break
        if strengths[index] >= best_strength:
            best, best_strength = position, strengths[index]
    if best >= 0:
        return best
    if hard_limit == length:
        return length
    space = text.rfind(" ", start + MIN_CHARS, hard_limit)
    if space < 0:
        newline = text.rfind("\n", start + MIN_CHARS, hard_limit)
        space = newline
    return space + 1 if space > 0 else hard_limit


def chunk_text(
    doc_id: str,
    text: str,
    page_starts: list[int],
    headings: list[Heading],
    furniture: Sequence[Furniture] = (),
) -> list[Chunk]:
    """The document's chunks, each with the page furniture inside it.

    With furniture, cuts are chosen on the text as read: a sentence that runs
    on across a page break, with a running head between its halves, is not a
    place to cut, so it stays whole in one chunk.
    """
    as_read = reading_view(text, furniture)
    # Cuts are chosen on the canonical text where there is no furniture: chunk
    # ids come from where the cuts fall, and must not move.
    positions, strengths = _breaks(as_read if furniture else text, headings)
    ordered_headings = sorted(headings, key=lambda heading: heading.offset)
    section = _SectionTracker(ordered_headings)
    repetitions: Counter[str] = Counter()
    chunks: list[Chunk] = []
    start = _skip_space(text, 0)
    while start < len(text):
        cut = _choose_cut(text, start, positions, strengths)
        end = len(text[start:cut].rstrip()) + start
        if end <= start:
            start = _skip_space(text, cut)
            continue
        body = text[start:end]
        repetition = repetitions[body]
        repetitions[body] += 1
        chunks.append(
            Chunk(
                id=chunk_id(doc_id, body, repetition),
                doc_id=doc_id,
                seq=len(chunks),
                start=start,
                end=end,
                text=body,
                heading=section.path_at(start),
                page_start=max(1, bisect_right(page_starts, start)),
                page_end=max(1, bisect_right(page_starts, end - 1)),
                reading=as_read[start:end],
            )
        )
        start = _skip_space(text, cut)
    return attach_furniture(chunks, furniture)


def _skip_space(text: str, position: int) -> int:
    match = _WHITESPACE.match(text, position)
    return match.end() if match else position


class _SectionTracker:
    """The enclosing section titles at increasing positions, outermost first."""

    def __init__(self, headings: list[Heading]) -> None:
        self._headings = headings
        self._next = 0
        self._stack: list[Heading] = []

    def path_at(self, position: int) -> tuple[str, ...]:
        while self._next < len(self._headings) and self._headings[self._next].offset <= position:
            heading = self._headings[self._next]
            while self._stack and self._stack[-1].level >= heading.level:
                self._stack.pop()
            self._stack.append(heading)
            self._next += 1
        return tuple(heading.title for heading in self._stack)


def attach_furniture(chunks: list[Chunk], furniture: Sequence[Furniture]) -> list[Chunk]:
    """The chunks, each with the furniture that lies inside it."""
    if not furniture:
        return chunks
    ordered = sorted(furniture, key=lambda item: item.start)
    starts = [item.start for item in ordered]
    attached = []
    for chunk in chunks:
        first = max(0, bisect_right(starts, chunk.start) - 1)
        inside = tuple(
            item
            for item in ordered[first : bisect_right(starts, chunk.end)]
            if item.start < chunk.end and item.end > chunk.start
        )
        attached.append(replace(chunk, furniture=inside) if inside else chunk)
    return attached
