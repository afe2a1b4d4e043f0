"""Page furniture: what a page prints that is not part of what it says.

Found per document, after every page is read:

- running headers and footers: among the two top and two bottom lines of a
  page (within the outer fifth of its height), lines that repeat on several
  pages once digits and roman numerals are masked, so "PUZZLES 203" and
  "PUZZLES 205" are one header; pages of each parity are counted apart too,
  since books alternate left and right heads;
- page numbers: a top or bottom line that is only a number ("17", "xvii",
  "Page 3 of 9", "- 4 -");
- footnote markers: superscript digits or symbols (PyMuPDF's span flag) that
  follow a word, not those opening a line (a footnote's own number).

The canonical text is not changed: furniture is recorded as ranges of it.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass

from reader.ingest.layout import TextBlock
from reader.records import Furniture, FurnitureKind

# Lines this near the top or bottom of the page can be furniture.
EDGE_SHARE = 0.2
EDGE_LINES = 2
# Furniture lines are short.
MAX_FURNITURE_CHARS = 120
_PAGE_NUMBER = re.compile(
    r"^(?:page\s+)?[-–—\s]*(?:\d{1,4}|[ivxlcdm]{1,7})[-–—\s]*(?:(?:of|/)\s*\d{1,4})?$",
    re.IGNORECASE,
)
_NUMBERS = re.compile(r"\b(?:\d+|[ivxlcdm]{1,7})\b", re.IGNORECASE)
_MARKER = re.compile(r"^(?:[\d*†‡§¶]{1,3})(?:,[\d]{1,3})*$")


@dataclass
class PageLayout:
    """One page as ingest saw it: its blocks in reading order, its height, its offset."""

    blocks: list[TextBlock]
    height: float
    start: int


@dataclass
class _Line:
    page: int
    start: int
    end: int
    top: float
    bottom: float
    text: str


def find_furniture(pages: list[PageLayout]) -> list[Furniture]:
    """Furniture ranges of the canonical text, in order."""
    edge_lines = [_edge_lines(number, page) for number, page in enumerate(pages)]
    found: list[Furniture] = []
    repeats = _repeated_keys(edge_lines, len(pages))
    for lines in edge_lines:
        for line, zone in lines:
            text = line.text.strip()
            if _PAGE_NUMBER.match(text):
                found.append(Furniture(line.start, line.end, "page-number"))
            elif _key(text) in repeats[zone] or _key(text) in repeats[f"{zone}{line.page % 2}"]:
                kind: FurnitureKind = "header" if zone == "top" else "footer"
                found.append(Furniture(line.start, line.end, kind))
    found += _markers(pages)
    return sorted(set(found), key=lambda item: item.start)


def _lines(page: PageLayout) -> list[_Line]:
    lines = []
    offset = page.start
    for block in page.blocks:
        for index, text in enumerate(block.lines):
            box = block.line_boxes[index] if index < len(block.line_boxes) else block.bbox
            lines.append(_Line(0, offset, offset + len(text), box[1], box[3], text))
            offset += len(text) + 1
        offset += 1  # blocks are separated by a blank line: "\n\n"
    return lines


def _edge_lines(number: int, page: PageLayout) -> list[tuple[_Line, str]]:
    """The page's top and bottom lines that lie near its edges."""
    lines = _lines(page)
    for line in lines:
        line.page = number
    if not lines or page.height <= 0:
        return []
    by_top = sorted(lines, key=lambda line: line.top)
    chosen: dict[int, tuple[_Line, str]] = {}
    for line in by_top[:EDGE_LINES]:
        if line.bottom <= page.height * EDGE_SHARE:
            chosen[line.start] = (line, "top")
    for line in by_top[-EDGE_LINES:]:
        if line.top >= page.height * (1 - EDGE_SHARE) and line.start not in chosen:
            chosen[line.start] = (line, "bottom")
    return [item for item in chosen.values() if len(item[0].text) <= MAX_FURNITURE_CHARS]


def _key(text: str) -> str:
    return " ".join(_NUMBERS.sub("#", text.casefold()).split())


def _repeated_keys(edge_lines: list[list[tuple[_Line, str]]], pages: int) -> dict[str, set[str]]:
    """Keys of edge lines found on enough pages, per zone and per zone and parity."""
    needed = 2 if pages <= 6 else 3
    seen: dict[str, dict[str, set[int]]] = defaultdict(lambda: defaultdict(set))
    for lines in edge_lines:
        for line, zone in lines:
            key = _key(line.text)
            if sum(char.isalpha() for char in key) < 2:
                continue  # numbers alone are page numbers, judged on their own
            seen[zone][key].add(line.page)
            seen[f"{zone}{line.page % 2}"][key].add(line.page)
    return defaultdict(
        set,
        {
            zone: {key for key, where in keys.items() if len(where) >= needed}
            for zone, keys in seen.items()
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
                if low == 0 or text[low - 1].isspace():
                    continue  # a footnote's own number, or a stray raised sign
                if _MARKER.match(text[low:high].strip()):
                    found.append(
                        Furniture(line_starts[line] + low, line_starts[line] + high, "marker")
                    )
            offset = position + 1
    return found
