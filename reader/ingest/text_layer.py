"""A document's pages as their text layer reads, and whether that text is usable.

``reader.ingest.extract`` reads every page here first; the pages this finds
scanned are then read by OCR on top, and the joined text must still hold
something to search, or the document is refused with what to do about it.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pymupdf

from reader.errors import NoTextLayerError
from reader.ingest.layout import TextBlock, page_blocks, page_dict_blocks
from reader.ingest.ocr import OcrSettings, page_needs_ocr
from reader.ingest.titles import BODY_PAGES

# U+FFFD and control characters are what glyphs without a Unicode mapping become.
_UNMAPPED = re.compile(r"[\ufffd\x00-\x08\x0e-\x1f]")


@dataclass
class TextLayer:
    """Each page of a document as its text layer reads, one entry a page in each list."""

    texts: list[str]
    block_lists: list[list[TextBlock]]
    heights: list[float]  # 0.0 for a page that could not be read
    unreadable: list[int]  # the pages that could not be read, numbered from 1
    scanned: list[int]  # the pages to read by OCR, numbered from 0
    # The first pages' blocks as extracted, which the title is read from too.
    first_pages: dict[int, list[dict]]


def read_text_layer(
    document: pymupdf.Document,
    page_count: int,
    ocr_mode: str,
    progress: Callable[[int, int], None] | None,
) -> TextLayer:
    """Every page's text and blocks, and which pages ``ocr_mode`` reads by OCR; a page
    that cannot be read is left empty. ``progress(done, page_count)`` after each page."""
    pages = TextLayer([], [], [], [], [], {})
    for number in range(page_count):
        # One height a page, read or not: the furniture pass pairs them with the pages.
        height = 0.0
        try:
            page = document[number]
            height = page.rect.height
            raw_blocks = page_dict_blocks(page)
            if number < BODY_PAGES:
                pages.first_pages[number] = raw_blocks
            blocks = page_blocks(page, raw_blocks=raw_blocks)
            text = "\n\n".join(block.text for block in blocks)
            if page_needs_ocr(page, text, ocr_mode):
                pages.scanned.append(number)
        except Exception:
            blocks, text, height = [], "", 0.0
            pages.unreadable.append(number + 1)
        pages.heights.append(height)
        pages.block_lists.append(blocks)
        pages.texts.append(text)
        if progress is not None:
            progress(number + 1, page_count)
    return pages


def require_usable_text(path: Path, text: str, ocr: OcrSettings, ocr_warning: str) -> None:
    """Refuse a document whose text, OCR included, holds nothing to search: blank or
    scanned pages (``ocr_warning`` says why OCR did not read them), or glyphs without
    a character mapping."""
    # The lengths of the runs between whitespace (split() takes what \s does), rather
    # than a list of every whitespace character of a book to count them.
    visible = sum(map(len, text.split()))
    if visible == 0:
        if ocr.mode == "never":
            advice = " (it looks scanned): ingest it with --ocr auto to read it by OCR"
        elif ocr_warning:
            advice = f" (it looks scanned) and {ocr_warning}"
        else:
            advice = ": its pages are blank"
        raise NoTextLayerError(f"{path.name} has no text layer{advice}.")
    if len(_UNMAPPED.findall(text)) > 0.5 * visible:
        raise NoTextLayerError(
            f"{path.name} has no usable text layer (its fonts carry no character "
            "mapping): run OCR on it first, for example `ocrmypdf --force-ocr`."
        )
