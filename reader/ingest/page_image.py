"""The page image Tesseract reads: rendered by PyMuPDF at the resolution that reads
best (a scan at its own), within a pixel budget, as a fast-written PNG, with the map
from its pixels back to the page."""

from __future__ import annotations

import math
import struct
import zlib
from dataclasses import dataclass
from typing import TYPE_CHECKING

from reader.ingest.hocr import PixelsToPage

if TYPE_CHECKING:
    import pymupdf

# Pages are rendered at OCR_DPI, but a scan from MIN_SCAN_DPI to OCR_DPI is read
# at its own resolution, and a coarser one at MIN_SCAN_DPI (``render_for_ocr``).
OCR_DPI = 300
MIN_SCAN_DPI = 200
# The most pixels a page is rendered with for OCR: an A2 page at 300 dpi is 35
# million. Tesseract's memory grows with the image (a one-page PDF 7,000 points
# square, rendered at 300 dpi, is 850 million pixels and took it 3.4 GB and 49 s),
# so a larger page is rendered at the resolution that fits.
MAX_OCR_PIXELS = 40_000_000
# An image covering this share of the page or more makes it a scan; images of a
# twentieth of the page or more are its layers.
SCAN_COVERS = 0.8
SCAN_LAYER = 0.05


@dataclass(frozen=True, slots=True)
class PageImage:
    """A page rendered for Tesseract: the image (PNG), its resolution, and the map
    from its pixels back to the page."""

    data: bytes
    dpi: int
    to_page: PixelsToPage
    # The resolution the page would have had within no pixel budget (MAX_OCR_PIXELS).
    wanted_dpi: int


def render_for_ocr(page: pymupdf.Page, turn: int = 0) -> PageImage:
    """The page as Tesseract reads it best, turned by ``turn`` degrees.

    A scan of ``MIN_SCAN_DPI`` to ``OCR_DPI`` is rendered at its own resolution
    and in its own colours, which gives Tesseract the scanner's pixels. A coarser
    scan is resampled to ``MIN_SCAN_DPI``: on 150 dpi grey scans of corpus prose
    Tesseract got 0.83% of the characters wrong read as they were, 0.21% at
    200 dpi in a tenth to a fifth more time (0.20% at 300 dpi, in a quarter
    more); on 72 dpi scans, 7% and 1.9%. Resampled, grey read as well as
    colour and faster, so coarser and finer scans, and pages that are not
    scans, are rendered grey.
    """
    scan = _page_scan(page)
    if scan is None:
        return render_page_image(page, OCR_DPI, False, turn)
    native, colour = scan
    if MIN_SCAN_DPI <= native <= OCR_DPI:
        return render_page_image(page, native, colour, turn)
    return render_page_image(page, MIN_SCAN_DPI if native < MIN_SCAN_DPI else OCR_DPI, False, turn)


def render_page_image(page: pymupdf.Page, dpi: int, colour: bool, turn: int) -> PageImage:
    import pymupdf

    wanted_dpi, dpi = dpi, min(dpi, fitting_dpi(page))
    matrix = pymupdf.Matrix(dpi / 72, dpi / 72).prerotate(turn)
    colourspace = pymupdf.csRGB if colour else pymupdf.csGRAY
    pixmap = page.get_pixmap(matrix=matrix, colorspace=colourspace, alpha=False)
    bounds = (page.rect * matrix).irect
    to_page = PixelsToPage(page, matrix, pymupdf.Point(bounds.x0, bounds.y0))
    return PageImage(_fast_png(pixmap, dpi), dpi, to_page, wanted_dpi)


def fitting_dpi(page: pymupdf.Page) -> int:
    """The highest resolution at which the page has at most ``MAX_OCR_PIXELS``."""
    area = abs(page.rect) / (72 * 72)  # square inches
    if area <= 0:
        return OCR_DPI
    return max(1, int(math.sqrt(MAX_OCR_PIXELS / area)))


def _page_scan(page: pymupdf.Page) -> tuple[int, bool] | None:
    """If an image covers most of the page, the page is a scan: its resolution
    (dots per inch of the page) and whether it is in colour. A scan stored in
    layers (a coarse colour background, the text as sharper black masks) is read
    as its finest layer."""
    try:
        images = page.get_image_info()
    except Exception:
        return None
    page_area = abs(page.rect)
    largest = 0.0
    layers = []
    for info in images:
        a, b, c, d, _, _ = info["transform"]
        across, down = math.hypot(a, b), math.hypot(c, d)  # the image's sides, in points
        largest = max(largest, across * down)
        if across * down >= SCAN_LAYER * page_area and info["width"] and info["height"]:
            dpi = max(info["width"] * 72 / across, info["height"] * 72 / down)
            layers.append((dpi, int(info.get("colorspace") or 1) >= 3))
    if not page_area or largest < SCAN_COVERS * page_area or not layers:
        return None
    dpi, colour = max(layers)
    return round(dpi), colour


def _fast_png(pixmap: pymupdf.Pixmap, dpi: int) -> bytes:
    """The pixmap (grey or RGB, no alpha) as a PNG compressed for speed.

    MuPDF's PNG filters each row and compresses hard, which took longer than the
    difference it makes to the bytes piped to Tesseract; an image format that is
    not compressed (PNM) reached Tesseract slower still, through its standard input.
    """
    stride = pixmap.stride
    samples = pixmap.samples_mv
    per_metre = round(dpi / 0.0254)
    rows = b"".join(
        b"\x00" + samples[row * stride : (row + 1) * stride] for row in range(pixmap.height)
    )
    header = struct.pack(
        ">IIBBBBB", pixmap.width, pixmap.height, 8, 2 if pixmap.n == 3 else 0, 0, 0, 0
    )
    return b"".join(
        (
            b"\x89PNG\r\n\x1a\n",
            _png_chunk(b"IHDR", header),
            _png_chunk(b"pHYs", struct.pack(">IIB", per_metre, per_metre, 1)),
            _png_chunk(b"IDAT", zlib.compress(rows, 1)),
            _png_chunk(b"IEND", b""),
        )
    )


def _png_chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
