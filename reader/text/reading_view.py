"""The text as a person reads the page: furniture left out, line breaks undone.

The canonical text keeps everything the page prints, in place, because every
offset points into it. Page furniture (running headers and footers, page
numbers, footnote markers; found at ingest, see ``reader.ingest.furniture``)
and line breaks are only in the way of reading it. Two views remove them:

- ``reading_view``: length-preserving, character for character, so offsets
  into it are offsets into the canonical text. Running heads and page numbers
  become spaces (line breaks kept), footnote markers zero-width spaces, a line
  break inside a paragraph a space, so is a paragraph break that falls inside
  a sentence (a page break, once its furniture is blanked), and a word hyphenated
  at a line end is joined: its hyphen and line break become a soft hyphen and
  a zero-width space, which show as nothing. The full-text index, evidence
  choice and the window's reading view use it.
- ``readable``: for prose shown as a line (prompts, answers, Markdown): the
  reading view with runs of whitespace folded, invisible joiners dropped and a
  space restored after a full stop the PDF ran into the next sentence
  ("copyright.When" reads "copyright. When"). The verifier's normalisation
  treats all of these as equal to the canonical text.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Iterable, Sequence
from typing import Protocol


class Furniture(Protocol):
    """Page furniture at ``[start, end)`` of the canonical text (``reader.records.Furniture``)."""

    @property
    def start(self) -> int: ...
    @property
    def end(self) -> int: ...
    @property
    def kind(self) -> str: ...


SOFT_HYPHEN = "\u00ad"
ZERO_WIDTH_SPACE = "\u200b"
# A word broken at a line end: letter, hyphen, line break, lower-case letter.
_LINE_END_HYPHEN = re.compile(r"-(?<=[^\W\d_]-)\n(?=[^\W\d_A-Z])")
# A paragraph break inside a sentence: after a word or a comma, before a
# lower-case letter. Page breaks (once their furniture is blanked) and blocks
# cut at a column end or around a figure leave these. Written to start with the
# gap's first character, a space or a line break, each checked for the word or
# comma before it: a pattern that starts with a look-behind is tried at every
# character, this one only at those (a third faster, the same matches).
_CONTINUED = re.compile(
    r"(?:[ \t\u200b](?<=[\w,;\-\u200b][ \t\u200b])[ \t\u200b]*\n|\n(?<=[\w,;\-\u200b]\n))"
    r"\s*\n\s*(?=[^\W\d_A-Z])"
)
# Where ``_CONTINUED`` can match: a blank line, with the spaces that end the line
# before it.
_BLANK_LINE = re.compile(r"\n\s*\n")
_TRAILING = frozenset(" \t\u200b")
_WHITESPACE = re.compile(r"\s*")
# A single line break inside a paragraph (not a blank line): a line break with
# none before it or after it. The look-behind comes after the line break, so the
# search skips to line breaks (five times faster than "(?<!\n)\n(?!\n)").
_LINE_BREAK = re.compile(r"\n(?<!\n\n)(?!\n)")
_NOT_NEWLINE = re.compile(r"[^\n]")
_INVISIBLE = re.compile(f"[{SOFT_HYPHEN}{ZERO_WIDTH_SPACE}]")
_RUN_INTO = re.compile(r"(?<=[A-Za-z][.!?;:])(?=[A-Z][a-z])|(?<=[a-z][.!?][\"”’)])(?=[A-Z])")


def reading_view(
    text: str,
    furniture: Iterable[Furniture] = (),
    offset: int = 0,
    keep_furniture: bool = False,
    kept_breaks: Iterable[int] = (),
) -> str:
    """``text`` (which starts at canonical ``offset``) as read, character for character.

    ``keep_furniture`` keeps the furniture's own characters (for a view that
    shows it dimmed) while still joining the sentence around it. A line break at
    one of the canonical offsets ``kept_breaks`` stays (the end of a heading's
    line: "What reader does" is not joined to "reader is ..." below it).
    """
    end = offset + len(text)
    inside = sorted(
        (max(item.start, offset) - offset, min(item.end, end) - offset, item.kind)
        for item in furniture
        if item.start < end and item.end > offset
    )
    viewed = _splice(text, inside, lambda low, high, kind: _blank(text, low, high, kind))
    viewed = _LINE_END_HYPHEN.sub(SOFT_HYPHEN + ZERO_WIDTH_SPACE, viewed)
    kept = {position - offset for position in kept_breaks}
    if kept:

        def joined(gap: re.Match[str]) -> str:
            return gap.group() if gap.start() in kept else " " * len(gap.group())

        viewed = _joined_paragraph_breaks(viewed, kept)
        viewed = _LINE_BREAK.sub(joined, viewed)
    else:  # most calls (a chunk as the index reads it): no call per line break
        viewed = _joined_paragraph_breaks(viewed)
        viewed = _LINE_BREAK.sub(" ", viewed)
    if not keep_furniture or not inside:
        return viewed
    # The furniture's own characters back in place (its line breaks stay as viewed).
    return _splice(
        viewed,
        inside,
        lambda low, high, _kind: "".join(
            v if t == "\n" else t for t, v in zip(text[low:high], viewed[low:high], strict=True)
        ),
    )


def _joined_paragraph_breaks(text: str, kept: Collection[int] = ()) -> str:
    """``_CONTINUED.sub`` with spaces, the gaps starting at ``kept`` left as they are.

    Every gap ``_CONTINUED`` matches holds a blank line and starts after the
    spaces that end its line. Searched for in the few places a blank line
    leaves (from the character before those spaces to the one after the blank
    line's whitespace), not tried at every space of a book: a third of the time.
    """
    pieces: list[str] = []
    cursor = 0
    for blank in _BLANK_LINE.finditer(text):
        start = blank.start()
        while start > cursor and text[start - 1] in _TRAILING:
            start -= 1
        spaces = _WHITESPACE.match(text, blank.end())  # it always matches
        end = spaces.end() if spaces else blank.end()
        # The look-behind sees the characters before ``start``; the look-ahead needs
        # the one after the whitespace.
        for gap in _CONTINUED.finditer(text, max(cursor, start - 1), min(len(text), end + 1)):
            if gap.start() in kept:
                continue
            pieces.append(text[cursor : gap.start()])
            pieces.append(" " * (gap.end() - gap.start()))
            cursor = gap.end()
    if not pieces:
        return text
    pieces.append(text[cursor:])
    return "".join(pieces)


def _splice(
    base: str, ranges: Sequence[tuple[int, int, str]], replace: Callable[[int, int, str], str]
) -> str:
    """``base`` with each of the sorted ``ranges`` replaced (by as many characters)."""
    pieces: list[str] = []
    cursor = 0
    for low, high, kind in ranges:
        low = max(low, cursor)
        if low >= high:
            continue
        pieces.append(base[cursor:low])
        pieces.append(replace(low, high, kind))
        cursor = high
    pieces.append(base[cursor:])
    return "".join(pieces)


def _blank(text: str, low: int, high: int, kind: str) -> str:
    """What furniture ``text[low:high]`` reads as: nothing, in as many characters."""
    if kind != "marker":
        return _NOT_NEWLINE.sub(" ", text[low:high])
    # A marker vanishes ("today.16 These" reads "today. These"), unless it is all
    # that separates two words ("today.16These").
    before = text[low - 1] if low > 0 else " "
    after = text[high] if high < len(text) else " "
    if after.isalnum() and not before.isspace():
        return " " + ZERO_WIDTH_SPACE * (high - low - 1)
    return ZERO_WIDTH_SPACE * (high - low)


def readable(text: str) -> str:
    """Reading-view text as one line of prose."""
    folded = " ".join(_INVISIBLE.sub("", text).split())
    return _RUN_INTO.sub(" ", folded)


def outside(start: int, end: int, furniture: Iterable[Furniture]) -> list[tuple[int, int]]:
    """The parts of ``[start, end)`` that are not furniture: what a highlight covers."""
    parts: list[tuple[int, int]] = []
    cursor = start
    for item in sorted(furniture, key=lambda f: f.start):
        if item.end <= cursor or item.start >= end:
            continue
        if item.start > cursor:
            parts.append((cursor, item.start))
        cursor = max(cursor, item.end)
    if cursor < end:
        parts.append((cursor, end))
    return parts
