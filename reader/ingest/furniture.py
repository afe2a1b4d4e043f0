"""Page furniture: what a page prints that is not part of what it says.

Found per document, after every page is read:

- running headers and footers: among the lines in the outer fifth of a
  page's height, top or bottom, lines that repeat on several
  pages once digits and roman numerals are masked, so "PUZZLES 203" and
  "PUZZLES 205" are one header; pages of each parity are counted apart too,
  since books alternate left and right heads;
- page numbers: one of a page's two top or bottom lines that is only a number ("17", "xvii",
  "Page 3 of 9", "- 4 -", "47699");
- printer's slugs and margin stamps: short lines printed on half the pages
  or more, wherever they stand;
- footnote markers: superscript digits or symbols (PyMuPDF's span flag)
  inside a line, not those opening it (a footnote's own number) nor those
  raised after a digit (an exponent).

The canonical text is not changed: furniture is recorded as ranges of it.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from dataclasses import dataclass

from reader.ingest.layout import TextBlock
from reader.ingest.line_keys import line_key, line_keys
from reader.records import Furniture, FurnitureKind

# Lines this near the top or bottom of the page can be furniture.
EDGE_SHARE = 0.2
EDGE_LINES = 2
# Furniture lines are short.
MAX_FURNITURE_CHARS = 120
# Up to five digits: the Federal Register numbers its pages through the year (47699).
_PAGE_NUMBER = re.compile(
    r"^(?:page\s+)?[-–—\s]*(?:\d{1,5}|[ivxlcdm]{1,7})[-–—\s]*(?:(?:of|/)\s*\d{1,5})?$",
    re.IGNORECASE,
)
# Matched in case-folded text, where the only letter besides these that
# IGNORECASE would take for one of them is the dotless i (U+0131): without the
# flag, the same matches a third faster. Written as "\b(?:\d+|[ivxlcdm\u0131]{1,7})\b"
# reads, but starting with the number's first character, which the search skips
# to, and looking behind it for the word boundary: a quarter faster again.
_NUMBERS = re.compile(
    r"[\divxlcdm\u0131](?<!\w[\divxlcdm\u0131])"
    r"(?:(?<=\d)\d*|(?<=[ivxlcdm\u0131])[ivxlcdm\u0131]{0,6})\b"
)
_MARKER = re.compile(r"^(?:[\d*†‡§¶]{1,3})(?:,[\d]{1,3})*$")
_MATH_AFTER = re.compile(r"\s*[=+−×·^<>≤≥±]")


@dataclass
class PageLayout:
    """One page as ingest saw it: its blocks in reading order, its height, its offset."""

    blocks: list[TextBlock]
    height: float
    start: int


@dataclass(slots=True)
class _Line:
    page: int
    start: int
    end: int
    top: float
    bottom: float
    text: str


class _Keys:
    """``_key`` of each text, made once: a line's key is asked for by several passes,
    and running heads repeat from page to page."""

    def __init__(self, texts: list[str]) -> None:
        # Number masking acts within a line, as folding does: done on all lines
        # at once (see ``line_keys``).
        self.in_order = line_keys(texts, _mask_numbers)  # the key of each of ``texts``
        self._keys = dict(zip(texts, self.in_order, strict=True))
        self._letters: dict[str, int] = {}

    def of(self, text: str) -> str:
        key = self._keys.get(text)
        if key is None:
            key = self._keys[text] = _key(text)
        return key

    def letters(self, key: str) -> int:
        """How many of the key's characters are letters."""
        count = self._letters.get(key)
        if count is None:
            count = self._letters[key] = sum(map(str.isalpha, key))
        return count


def find_furniture(pages: list[PageLayout]) -> list[Furniture]:
    """Furniture ranges of the canonical text, in order."""
    # Each page's lines short enough to be furniture, read once for every pass.
    short_lines = [_short_lines(number, page) for number, page in enumerate(pages)]
    keys = _Keys([line.text for lines in short_lines for line in lines])
    edge_lines = [_edge_lines(lines, page) for lines, page in zip(short_lines, pages, strict=True)]
    found: list[Furniture] = []
    repeats = _repeated_keys(edge_lines, len(pages), keys)
    for lines in edge_lines:
        outermost = _outermost(lines)
        for line, zone in lines:
            text = line.text.strip()
            key = keys.of(text)
            if line.start in outermost and _PAGE_NUMBER.match(text):
                found.append(Furniture(line.start, line.end, "page-number"))
            elif key in repeats[zone] or key in repeats[f"{zone}{line.page % 2}"]:
                kind: FurnitureKind = "header" if zone == "top" else "footer"
                found.append(Furniture(line.start, line.end, kind))
    found += _stamps(pages, short_lines, keys)
    found += _markers(pages)
    return sorted(set(found), key=lambda item: item.start)


def _stamps(
    pages: list[PageLayout], short_lines: list[list[_Line]], keys: _Keys
) -> list[Furniture]:
    """Lines printed on most pages wherever they stand: a printer's slug, a margin stamp."""
    if len(pages) < 3:
        return []
    # The keys were made in this order: each page's are the next len(lines) of them.
    page_keys, position = [], 0
    for lines in short_lines:
        page_keys.append(keys.in_order[position : position + len(lines)])
        position += len(lines)
    pages_with: Counter[str] = Counter()
    for on_page in page_keys:
        pages_with.update(set(on_page))
    # Letters are counted only for keys on enough pages: most lines are said once.
    common = {
        key
        for key, seen in pages_with.items()
        if seen >= max(3, len(pages) / 2) and keys.letters(key) >= 6
    }
    found = []
    for lines, on_page in zip(short_lines, page_keys, strict=True):
        for line, key in zip(lines, on_page, strict=True):
            if key not in common:
                continue
            middle = (line.top + line.bottom) / 2
            kind: FurnitureKind = "header" if middle < pages[line.page].height / 2 else "footer"
            found.append(Furniture(line.start, line.end, kind))
    return found


def _short_lines(number: int, page: PageLayout) -> list[_Line]:
    """The page's lines of at most ``MAX_FURNITURE_CHARS``, with where they are."""
    lines = []
    offset = page.start
    for block in page.blocks:
        boxes = block.line_boxes
        for index, text in enumerate(block.lines):
            size = len(text)
            if size <= MAX_FURNITURE_CHARS:
                box = boxes[index] if index < len(boxes) else block.bbox
                lines.append(_Line(number, offset, offset + size, box[1], box[3], text))
            offset += size + 1
        offset += 1  # blocks are separated by a blank line: "\n\n"
    return lines


def _edge_lines(lines: list[_Line], page: PageLayout) -> list[tuple[_Line, str]]:
    """The page's (short) lines near its top and bottom edges, with their zone."""
    if page.height <= 0:
        return []
    top_edge = page.height * EDGE_SHARE
    bottom_edge = page.height * (1 - EDGE_SHARE)
    chosen = []
    for line in lines:
        if line.bottom <= top_edge:
            chosen.append((line, "top"))
        elif line.top >= bottom_edge:
            chosen.append((line, "bottom"))
    return chosen


def _outermost(lines: list[tuple[_Line, str]]) -> set[int]:
    """Starts of the two top-most and two bottom-most of a page's edge lines."""
    tops = sorted((line for line, zone in lines if zone == "top"), key=lambda line: line.top)
    bottoms = sorted((line for line, zone in lines if zone == "bottom"), key=lambda line: line.top)
    return {line.start for line in tops[:EDGE_LINES] + bottoms[-EDGE_LINES:]}


def _mask_numbers(folded: str) -> str:
    return _NUMBERS.sub("#", folded)


def _key(text: str) -> str:
    return line_key(text, _mask_numbers)


def _repeated_keys(
    edge_lines: list[list[tuple[_Line, str]]], pages: int, keys: _Keys
) -> dict[str, set[str]]:
    """Keys of edge lines found on enough pages, per zone and per zone and parity."""
    needed = 2 if pages <= 6 else 3
    seen: dict[str, dict[str, set[int]]] = defaultdict(lambda: defaultdict(set))
    for lines in edge_lines:
        for line, zone in lines:
            key = keys.of(line.text)
            seen[zone][key].add(line.page)
            seen[f"{zone}{line.page % 2}"][key].add(line.page)
    # Numbers alone (fewer than two letters) are page numbers, judged on their own.
    return defaultdict(
        set,
        {
            zone: {
                key
                for key, where in keys_seen.items()
                if len(where) >= needed and keys.letters(key) >= 2
            }
            for zone, keys_seen in seen.items()
        },
    )


def _markers(pages: list[PageLayout]) -> list[Furniture]:
    """Superscript footnote markers that follow a word or a full stop."""
    found = []
    for page in pages:
        offset = page.start
        for block in page.blocks:
            line_starts = []
            position = offset
            for text in block.lines:
                line_starts.append(position)
                position += len(text) + 1
            for line, low, high in block.markers:
                text = block.lines[line]
                if low == 0 or text[low - 1].isdigit():
                    continue  # a footnote's own number, or an exponent (10 to the 6)
                if _MATH_AFTER.match(text[high:]):
                    continue  # an exponent in a formula ("I2 = 99%")
                if _MARKER.match(text[low:high].strip()):
                    found.append(
                        Furniture(line_starts[line] + low, line_starts[line] + high, "marker")
                    )
            offset = position + 1
    return found
