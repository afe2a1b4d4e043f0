"""Page furniture: what a page prints that is not part of what it says.

Found per document, after every page is read:

- running headers and footers: among the lines in the outer fifth of a
  page's height, top or bottom, lines that repeat on several
  pages once digits and roman numerals are masked, so "PUZZLES 203" and
  "PUZZLES 205" are one header; pages of each parity are counted apart too,
  since books alternate left and right heads;
- page numbers: one of a page's two top or bottom lines that is only a number ("17", "xvii",
  "Page 3 of 9", "- 4 -");
- printer's slugs and margin stamps: short lines printed on half the pages
  or more, wherever they stand;
- footnote markers: superscript digits or symbols (PyMuPDF's span flag)
  inside a line, not those opening it (a footnote's own number) nor those
  raised after a digit (an exponent).

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
_MATH_AFTER = re.compile(r"\s*[=+−×·^<>≤≥±]")


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
        outermost = _outermost(lines)
        for line, zone in lines:
            text = line.text.strip()
            key = _key(text)
            if line.start in outermost and _PAGE_NUMBER.match(text):
                found.append(Furniture(line.start, line.end, "page-number"))
            elif key in repeats[zone] or key in repeats[f"{zone}{line.page % 2}"]:
                kind: FurnitureKind = "header" if zone == "top" else "footer"
                found.append(Furniture(line.start, line.end, kind))
    found += _stamps(pages)
    found += _markers(pages)
    return sorted(set(found), key=lambda item: item.start)


def _stamps(pages: list[PageLayout]) -> list[Furniture]:
    """Lines printed on most pages wherever they stand: a printer's slug, a margin stamp."""
    if len(pages) < 3:
        return []
    where: dict[str, set[int]] = defaultdict(set)
    lines = _all_lines(pages)
    keys = [_key(line.text) for line in lines]
    for line, key in zip(lines, keys, strict=True):
        if sum(map(str.isalpha, key)) >= 6:
            where[key].add(line.page)
    common = {key for key, seen in where.items() if len(seen) >= max(3, len(pages) / 2)}
    found = []
    for line, key in zip(lines, keys, strict=True):
        if key in common:
            middle = (line.top + line.bottom) / 2
            kind: FurnitureKind = "header" if middle < pages[line.page].height / 2 else "footer"
            found.append(Furniture(line.start, line.end, kind))
    return found


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
    """The page's lines near its top and bottom edges, with their zone."""
    lines = _lines(page)
    for line in lines:
        line.page = number
    if not lines or page.height <= 0:
        return []
    chosen = []
    for line in lines:
        if len(line.text) > MAX_FURNITURE_CHARS:
            continue
        if line.bottom <= page.height * EDGE_SHARE:
            chosen.append((line, "top"))
        elif line.top >= page.height * (1 - EDGE_SHARE):
            chosen.append((line, "bottom"))
    return chosen


def _outermost(lines: list[tuple[_Line, str]]) -> set[int]:
    """Starts of the two top-most and two bottom-most of a page's edge lines."""
    tops = sorted((line for line, zone in lines if zone == "top"), key=lambda line: line.top)
    bottoms = sorted((line for line, zone in lines if zone == "bottom"), key=lambda line: line.top)
    return {line.start for line in tops[:EDGE_LINES] + bottoms[-EDGE_LINES:]}


def _all_lines(pages: list[PageLayout]) -> list[_Line]:
    found = []
    for number, page in enumerate(pages):
        for line in _lines(page):
            line.page = number
            if len(line.text) <= MAX_FURNITURE_CHARS:
                found.append(line)
    return found


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
