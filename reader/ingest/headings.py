"""Where a document's sections start: from its outline, or from its typography.

A PDF's outline (its table of contents) names each section and its page; the
title is then found on that page, so a heading points at the printed words.
Without an outline, short blocks set clearly larger than the body text are
taken as headings, their sizes ranked into levels.
"""

from __future__ import annotations

import re
from collections import Counter

from reader.ingest.layout import TextBlock
from reader.records import Heading
from reader.text.words import WORD_RUN, words


def headings_from_outline(
    toc: list[list], page_texts: list[str], page_starts: list[int]
) -> list[Heading]:
    """Place each outline entry at its title on its page, else at the page top."""
    headings = []
    for entry in toc:
        level, title, page = int(entry[0]), " ".join(str(entry[1]).split()), int(entry[2])
        if not title or not 1 <= page <= len(page_texts):
            continue
        offset = page_starts[page - 1] + _find_title(title, page_texts[page - 1])
        headings.append(Heading(offset=offset, level=level, title=title))
    headings.sort(key=lambda heading: heading.offset)
    return headings


def _find_title(title: str, page_text: str) -> int:
    """Where ``title`` starts on the page (0, the top, if it is not there)."""
    found = page_text.find(title)
    if found >= 0:
        return found
    words = [re.escape(word) for word in WORD_RUN.findall(title)]
    if not words:
        return 0
    # Outline titles often differ from the printed ones in case, punctuation
    # and line breaks; match the words in order.
    pattern = r"\W+".join(words[:8])
    match = re.search(pattern, page_text, re.IGNORECASE)
    return match.start() if match else 0


# A markup tag a typesetting system left in the text ("</GPH>").
_TAG = re.compile(r"</?[A-Za-z][\w-]*>")


def _reads_as_words(text: str) -> bool:
    """Whether large type says something in words: not a figure's placeholder code
    ("EP06AU20.010</GPH>") or a lone number."""
    plain = _TAG.sub(" ", text)
    # A word of letters only: a code like "EP06AU20.010" is not one; a CJK character is.
    lettered = any(w.isalpha() and (len(w) >= 2 or not w.isascii()) for w in words(plain))
    return sum(char.isalpha() for char in plain) >= 3 and lettered


def headings_from_layout(
    page_block_lists: list[list[TextBlock]], page_starts: list[int]
) -> list[Heading]:
    """Headings from typography: short blocks set clearly larger than body text.

    Type size is read from line height (block height over line count), which
    the fast ``blocks`` extraction gives without per-span font data.
    """
    sizes: Counter[float] = Counter()
    for blocks in page_block_lists:
        for block in blocks:
            sizes[round(block.line_height * 2) / 2] += len(block.text)
    if not sizes:
        return []
    body = sizes.most_common(1)[0][0]
    candidates: list[tuple[int, float, str]] = []
    for page_index, blocks in enumerate(page_block_lists):
        offset = page_starts[page_index]
        for block in blocks:
            if (
                block.line_height >= body * 1.15
                and block.line_height - body >= 1.0
                and len(block.lines) <= 3
            ):
                text = " ".join(block.lines)
                if len(text) <= 120 and _reads_as_words(text):
                    candidates.append((offset, round(block.line_height * 2) / 2, text))
            offset += len(block.text) + 2
    if len(candidates) > 0.5 * sum(len(blocks) for blocks in page_block_lists):
        return []  # large type everywhere is a layout, not a hierarchy
    distinct_sizes = sorted({candidate[1] for candidate in candidates}, reverse=True)
    levels = {size: rank + 1 for rank, size in enumerate(distinct_sizes)}
    return [Heading(offset, min(levels[size], 3), text) for offset, size, text in candidates]
