"""Generated books: prose running on from page to page under running heads and numbers."""

from __future__ import annotations

import random
from pathlib import Path

import pymupdf

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
            # (Not after a number: a raised digit there is an exponent.)
            if row in (3, 9) and len(marker_words) < markers and not line[-1].isdigit():
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
