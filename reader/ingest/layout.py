"""How a PDF page becomes canonical text, and how a span maps back onto the page.

The canonical text of a page is assembled from PyMuPDF's ``dict`` extraction:
each text line becomes one line (its spans joined, surrounding whitespace
stripped), the lines of a block are joined with ``\\n``, and blocks are
separated by a blank line, so paragraphs stay visible as paragraphs. Pages are
joined with a blank line as well; the page map (``page_starts``) records where
each page begins.

Extraction flags, chosen deliberately because offsets point into what they
produce:
- ligatures are expanded (no ``TEXT_PRESERVE_LIGATURES``): the text shows and
  searches as "fi", and each expanded letter keeps its own box on the page;
- whitespace is preserved as printed (``TEXT_PRESERVE_WHITESPACE``), then
  stripped at line ends by us;
- no de-hyphenation (no ``TEXT_DEHYPHENATE``): a word broken across a line end
  stays as printed ("con-" / "tinued"), so the viewer matches the page; the
  verifier's normalisation joins such words when matching quotes;
- text outside the page's media box is ignored (``TEXT_MEDIABOX_CLIP``);
- characters without a Unicode mapping come out as U+FFFD rather than raw
  glyph ids, which would read as plausible but wrong letters.

Blocks are put in reading order, column by column (``reading_order``).

The ``rawdict`` extraction yields the same lines as ``dict`` plus a box per
character, so ``page_text_with_boxes`` rebuilds a page's text with one box per
character and a span of the canonical text maps onto rectangles exactly.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import cast

import pymupdf

from reader.ingest.reading_order import reading_order

EXTRACTION_FLAGS = pymupdf.TEXT_PRESERVE_WHITESPACE | pymupdf.TEXT_MEDIABOX_CLIP
# Raised when what a page is read as changes (its text, or its furniture), so
# documents read before are read again.
LAYOUT_VERSION = "layout-3"
# PyMuPDF's span flag for superscript text (footnote markers, mostly).
SUPERSCRIPT = 1

Box = tuple[float, float, float, float]


def _stripped_bounds(text: str) -> tuple[int, int]:
    start = len(text) - len(text.lstrip())
    return start, len(text.rstrip())


def _assemble(blocks: Iterable[Sequence[str]]) -> str:
    return "\n\n".join("\n".join(lines) for lines in blocks if lines)


class TextBlock:
    """One block of a page as it is read: its lines, where they are, what is raised.

    ``line_boxes`` are the lines' rectangles as displayed (page rotation
    applied); ``markers`` are ``(line, start, end)`` ranges of superscript
    text within a line's stripped text; ``text`` is the lines joined by line
    breaks, made once (reading order, the page's text and headings all ask).
    """

    __slots__ = ("bbox", "line_boxes", "line_height", "lines", "markers", "text")

    def __init__(
        self,
        lines: list[str],
        line_height: float,
        bbox: Box = (0.0, 0.0, 0.0, 0.0),
        line_boxes: list[Box] | None = None,
        markers: list[tuple[int, int, int]] | None = None,
    ) -> None:
        self.lines = lines
        self.line_height = line_height
        self.bbox = bbox
        self.line_boxes = line_boxes or []
        self.markers = markers or []
        self.text = "\n".join(lines)


def _displayer(page: pymupdf.Page, rotation: int | None = None) -> Callable[[Sequence[float]], Box]:
    """Maps a box of the page's unrotated space to where it is displayed.

    Done in plain arithmetic with the page's rotation matrix taken once: building a
    PyMuPDF rectangle and the matrix for every line made the layout pass about a
    quarter of a text PDF's ingest (13,845 lines of Free Culture). ``rotation`` is
    the page's, when the caller has read it already (each read asks MuPDF again).
    """
    if (page.rotation if rotation is None else rotation) % 360 == 0:
        # PyMuPDF's boxes are tuples already: then this is no copy.
        return cast("Callable[[Sequence[float]], Box]", tuple)
    matrix = page.rotation_matrix
    a, b, c, d, e, f = (float(matrix[i]) for i in range(6))

    def displayed(box: Sequence[float]) -> Box:
        # A page turns by quarter turns only, so the matrix keeps boxes upright: two
        # opposite corners map to two opposite corners of the displayed box.
        x0, y0, x1, y1 = box
        u0, v0 = a * x0 + c * y0 + e, b * x0 + d * y0 + f
        u1, v1 = a * x1 + c * y1 + e, b * x1 + d * y1 + f
        return (
            u0 if u0 < u1 else u1,
            v0 if v0 < v1 else v1,
            u1 if u0 < u1 else u0,
            v1 if v0 < v1 else v0,
        )

    return displayed


def page_dict_blocks(page: pymupdf.Page) -> list[dict]:
    """The page's blocks as ``page.get_text("dict", flags=EXTRACTION_FLAGS)`` gives them.

    Made from the page's text page directly: ``get_text`` also reads the crop box
    for a page size nothing here uses. Ingest reads each page's blocks once and
    hands them to whatever else wants them (the title of the first pages).
    """
    blocks: list[dict] = page.get_textpage(flags=EXTRACTION_FLAGS).extractDICT()["blocks"]
    return blocks


def page_blocks(
    page: pymupdf.Page, in_reading_order: bool = True, raw_blocks: list[dict] | None = None
) -> list[TextBlock]:
    """The non-empty text blocks of a page, in reading order (see ``reading_order``),
    or in the order the PDF draws them (the baseline ``bench/reading_order.py`` measures).

    Uses the ``dict`` extraction (``raw_blocks``, when the caller has it already),
    which yields the same blocks and lines as ``rawdict`` (what
    ``page_text_with_boxes`` reads), without a box per character.
    """
    if raw_blocks is None:
        raw_blocks = page_dict_blocks(page)
    rotation = page.rotation
    displayed = _displayer(page, rotation)
    sideways = rotation % 180 != 0
    kept: list[TextBlock] = []
    for block in raw_blocks:
        if block["type"] != 0:
            continue
        lines: list[str] = []
        line_boxes: list[Box] = []
        markers: list[tuple[int, int, int]] = []
        for line in block["lines"]:
            spans = line["spans"]
            # Most lines are one span: no join to build, one flag to look at.
            if len(spans) == 1:
                span = spans[0]
                text = span["text"]
                raised = span["flags"] & SUPERSCRIPT
            else:
                text = "".join([span["text"] for span in spans])
                raised = any([span["flags"] & SUPERSCRIPT for span in spans])
            stripped = text.strip()
            if not stripped:
                continue
            if raised:
                start = len(text) - len(text.lstrip())
                end = start + len(stripped)
                position = 0
                for span in spans:
                    span_end = position + len(span["text"])
                    if span["flags"] & SUPERSCRIPT:
                        low, high = max(position, start) - start, min(span_end, end) - start
                        if high > low:
                            markers.append((len(lines), low, high))
                    position = span_end
            lines.append(stripped)
            line_boxes.append(displayed(line["bbox"]))
        if lines:
            x0, y0, x1, y1 = displayed(block["bbox"])
            height = (x1 - x0) if sideways else (y1 - y0)
            kept.append(
                TextBlock(lines, height / len(lines), (x0, y0, x1, y1), line_boxes, markers)
            )
    if not kept or not in_reading_order:
        return kept
    weights = [len(text_block.text) for text_block in kept]
    order = reading_order([text_block.bbox for text_block in kept], weights)
    return [kept[index] for index in order]


def page_text(page: pymupdf.Page) -> str:
    """Canonical text of one page."""
    return _assemble(block.lines for block in page_blocks(page))


def page_text_with_boxes(page: pymupdf.Page) -> tuple[str, list[Box | None]]:
    """The page's canonical text and, for each of its characters, a box.

    Separators (line breaks between lines and blocks) have no box (``None``).
    Blocks come in the same reading order as ``page_blocks``.
    """
    raw = page.get_text("rawdict", flags=EXTRACTION_FLAGS)
    displayed = _displayer(page)
    kept: list[tuple[Box, list[tuple[str, list[Box]]]]] = []
    for block in raw["blocks"]:
        if block["type"] != 0:
            continue
        block_lines: list[tuple[str, list[Box]]] = []
        for line in block["lines"]:
            chars = [char for span in line["spans"] for char in span["chars"]]
            text = "".join(char["c"] for char in chars)
            start, end = _stripped_bounds(text)
            if end > start:
                block_lines.append((text[start:end], [tuple(c["bbox"]) for c in chars[start:end]]))
        if block_lines:
            kept.append((displayed(block["bbox"]), block_lines))
    weights = [sum(len(text) + 1 for text, _ in lines) - 1 for _, lines in kept]
    parts: list[str] = []
    boxes: list[Box | None] = []
    for index in reading_order([box for box, _ in kept], weights):
        if parts:
            parts.append("\n\n")
            boxes.extend([None, None])
        for number, (text, line_boxes) in enumerate(kept[index][1]):
            if number:
                parts.append("\n")
                boxes.append(None)
            parts.append(text)
            boxes.extend(line_boxes)
    return "".join(parts), boxes


def span_rects(
    page: pymupdf.Page, start: int, end: int, boxes: Sequence[Box | None] | None = None
) -> list[pymupdf.Rect]:
    """Rectangles covering characters ``[start, end)`` of the page's text.

    Offsets are relative to the page's first character. One rectangle is
    returned per line touched, which is what a highlighter wants to paint.
    ``boxes`` are the page's character boxes when its text was read by OCR
    (stored at ingest); else they come from the page's text layer.
    """
    if boxes is None:
        _, boxes = page_text_with_boxes(page)
    rects: list[pymupdf.Rect] = []
    current: pymupdf.Rect | None = None
    for box in boxes[max(0, start) : max(0, end)]:
        if box is None:
            if current is not None:
                rects.append(current)
                current = None
            continue
        rect = pymupdf.Rect(box)
        if current is None:
            current = rect
        else:
            current |= rect
    if current is not None:
        rects.append(current)
    return [rect for rect in rects if not rect.is_empty]


def render_page(
    path: str,
    page_number: int,
    password: str | None = None,
    spans: Sequence[tuple[int, int]] = (),
    zoom: float = 1.5,
    ocr_boxes: Sequence[Box | None] | None = None,
) -> tuple[int, int, int, bytes, list[tuple[float, float, float, float]]]:
    """Render a 1-based page; also the pixel rectangles of page-relative spans.

    Returns ``(width, height, stride, rgb_samples, rects)``. Opens and closes
    the document itself, so a caller never shares one across threads.
    ``ocr_boxes``: the page's character boxes, if its text was read by OCR.
    """
    with open_document_file(Path(path)) as document:
        if document.needs_pass:
            document.authenticate(password or "")
        page = document[page_number - 1]
        matrix = pymupdf.Matrix(zoom, zoom)
        pixmap = page.get_pixmap(matrix=matrix, alpha=False)
        rects = []
        for start, end in spans:
            for rect in span_rects(page, start, end, ocr_boxes):
                shown = rect * page.rotation_matrix * matrix
                rects.append((shown.x0, shown.y0, shown.x1, shown.y1))
        return pixmap.width, pixmap.height, pixmap.stride, bytes(pixmap.samples), rects


def open_document_file(path: Path, kind: str | None = None) -> pymupdf.Document:
    """Open a file PyMuPDF reads. MuPDF opens files by UTF-8 names only, so a file
    the file system names in other bytes is opened from its contents."""
    try:
        os.fsencode(path).decode("utf-8")
    except UnicodeDecodeError:
        return pymupdf.open(stream=path.read_bytes(), filetype=kind or path.suffix.lstrip("."))
    return pymupdf.open(path, filetype=kind)
