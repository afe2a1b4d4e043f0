"""Turn a file into canonical text, a page map and headings.

Everything PyMuPDF opens (PDF, EPUB, XPS, MOBI, FB2, CBZ, SVG) goes through
``layout``; plain text and Markdown are decoded here. Every expected failure is
raised as an ``IngestError`` whose message says what to do.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pymupdf

from reader.errors import (
    CorruptDocumentError,
    EmptyDocumentError,
    EncryptedDocumentError,
    UnsupportedFormatError,
)
from reader.ingest.extractor_version import ExtractorVersion
from reader.ingest.files import check_document_file
from reader.ingest.furniture import PageLayout, find_furniture
from reader.ingest.gc_pause import collection_resumed
from reader.ingest.headings import headings_from_layout, headings_from_outline
from reader.ingest.hocr import ScannedPage, scanned_page
from reader.ingest.layout import LAYOUT_VERSION, open_document_file
from reader.ingest.ocr import UNRELIABLE_BELOW, OcrSettings, PageReading, read_pages
from reader.ingest.ocr_languages import language_names
from reader.ingest.page_labels import printed_page_labels
from reader.ingest.plain_text import read_plain_text
from reader.ingest.tesseract import find_tesseract, require_tesseract
from reader.ingest.text_layer import TextLayer, read_text_layer, require_usable_text
from reader.ingest.titles import choose_title, first_pages_title, without_running_lines
from reader.records import Furniture, Heading, OcrBox, OcrConfidence, OcrPageInfo

PYMUPDF_TYPES = {
    ".pdf": "pdf",
    ".xps": "xps",
    ".oxps": "xps",
    ".epub": "epub",
    ".mobi": "mobi",
    ".fb2": "fb2",
    ".cbz": "cbz",
    ".svg": "svg",
}
TEXT_TYPES = {".txt": "text", ".text": "text", ".md": "markdown", ".markdown": "markdown"}
PAGE_SEPARATOR = "\n\n"
TEXT_EXTRACTOR = "text-1"

ProgressCallback = Callable[[int, int], None]

pymupdf.TOOLS.mupdf_display_errors(False)
pymupdf.TOOLS.mupdf_display_warnings(False)


@dataclass
class Extraction:
    """What ingest learns from a file before it is chunked and stored."""

    text: str
    page_starts: list[int]
    kind: str
    title: str
    extractor: str
    headings: list[Heading] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    furniture: list[Furniture] = field(default_factory=list)
    ocr_pages: list[OcrPageInfo] = field(default_factory=list)
    ocr_words: list[OcrConfidence] = field(default_factory=list)
    ocr_boxes: dict[int, list[OcrBox | None]] = field(default_factory=dict)
    page_labels: list[str] = field(default_factory=list)


def pymupdf_extractor_version() -> str:
    return f"pymupdf-{pymupdf.__version__}+mupdf-{pymupdf.VersionFitz}/{LAYOUT_VERSION}"


def detect_kind(path: Path) -> str:
    suffix = path.suffix.lower()
    if suffix in PYMUPDF_TYPES:
        return PYMUPDF_TYPES[suffix]
    if suffix in TEXT_TYPES:
        return TEXT_TYPES[suffix]
    with path.open("rb") as handle:
        head = handle.read(1024)
    if b"%PDF-" in head:
        return "pdf"
    raise UnsupportedFormatError(
        f"{path.name}: reader cannot open '{suffix or 'extension-less'}' files; "
        "convert it to PDF, EPUB or plain text and ingest that."
    )


def extract(
    path: str | Path,
    password: str | None = None,
    progress: ProgressCallback | None = None,
    ocr: OcrSettings | None = None,
) -> Extraction:
    """Extract the canonical text of the file at ``path``; pages without a usable
    text layer are read by OCR as ``ocr`` says (by default: when needed, in English).

    ``progress(done, total)`` counts pages read from their text layer, then pages
    read by OCR on top (``total`` grows by the OCR'd pages once they are known).
    """
    path = check_document_file(path)
    if path.stat().st_size == 0:
        raise EmptyDocumentError(f"{path.name} is empty (0 bytes): there is nothing to read.")
    kind = detect_kind(path)
    if kind in ("text", "markdown"):
        return _extract_text(path, kind)
    return _extract_pymupdf(path, kind, password, progress, ocr or OcrSettings())


# -- PyMuPDF documents -------------------------------------------------------


def _open_pymupdf(path: Path, kind: str, password: str | None) -> pymupdf.Document:
    try:
        document = open_document_file(path, kind)
    except Exception as error:  # PyMuPDF raises several types for damaged files
        raise CorruptDocumentError(
            f"{path.name} is damaged or not really a {kind.upper()} file "
            f"({_first_line(error)}); re-download it or re-save it from another program."
        ) from None
    # PyMuPDF asked MuPDF as it opened the file; asking again costs as much.
    if document.is_encrypted:
        if not password:
            document.close()
            raise EncryptedDocumentError(
                f"{path.name} is password-protected: ingest it again with --password."
            )
        if not document.authenticate(password) and not (
            _saslprep(password) != password and document.authenticate(_saslprep(password))
        ):
            document.close()
            raise EncryptedDocumentError(
                f"The password given for {path.name} is not right: check it and try again."
            )
    return document


# Characters SASLprep (RFC 4013) maps to nothing: a password typed or pasted with
# them is the password without them.
_MAPPED_TO_NOTHING = dict.fromkeys(
    map(ord, "\u00ad\u034f\u1806\u180b\u180c\u180d\u200b\u200c\u200d\u2060\ufeff"), None
)


def _saslprep(password: str) -> str:
    """The password as a PDF with AES-256 encryption compares it (SASLprep, as its
    standard asks): "S\u00aaSL\u00adprep" is "SaSLprep"."""
    spaced = "".join(" " if char.isspace() else char for char in password)
    return unicodedata.normalize("NFKC", spaced.translate(_MAPPED_TO_NOTHING))


def _extract_pymupdf(
    path: Path,
    kind: str,
    password: str | None,
    progress: ProgressCallback | None,
    ocr: OcrSettings,
) -> Extraction:
    document = _open_pymupdf(path, kind, password)
    with document:
        page_count = _page_count(path, document)
        page_labels = printed_page_labels(document)
        pages = read_text_layer(document, page_count, ocr.mode, progress)

        read_by_ocr, ocr_warning, ocr_notes, engine_name, page_engines = _read_scanned(
            path, document, pages.scanned, ocr, progress, page_count
        )
        for number, scanned_result in read_by_ocr.items():
            pages.block_lists[number] = scanned_result.blocks
            pages.texts[number] = "\n\n".join(block.text for block in scanned_result.blocks)

        try:
            toc = document.get_toc(simple=True)
        except Exception:
            toc = []
        metadata_title = (document.metadata or {}).get("title") or ""
        page_title = first_pages_title(document, pages.block_lists, read_by_ocr, pages.first_pages)

    text, page_starts = _join_pages(pages.texts)
    require_usable_text(path, text, ocr, ocr_warning)
    warnings = _empty_page_warnings(pages, page_count, ocr_warning)
    warnings.extend(ocr_notes)

    if toc:
        headings = headings_from_outline(toc, pages.texts, page_starts)
    else:
        headings = without_running_lines(
            headings_from_layout(pages.block_lists, page_starts), page_starts
        )
    title = choose_title([metadata_title, page_title], path.name)
    furniture = find_furniture(
        [
            PageLayout(blocks, height, start)
            for blocks, height, start in zip(
                pages.block_lists, pages.heights, page_starts, strict=True
            )
        ]
    )
    extraction = Extraction(
        text=text,
        page_starts=page_starts,
        kind=kind,
        title=title,
        extractor=ExtractorVersion(
            pymupdf_extractor_version(), engine_name if read_by_ocr else None
        ).format(),
        headings=headings,
        warnings=warnings,
        furniture=furniture,
        page_labels=page_labels,
    )
    _add_ocr_pages(extraction, read_by_ocr, page_engines)
    return extraction


def _page_count(path: Path, document: pymupdf.Document) -> int:
    """The document's page count; a document without pages, or whose count cannot be
    read, is damaged."""
    try:
        page_count = document.page_count
    except Exception as error:
        raise CorruptDocumentError(
            f"{path.name} is damaged: its page count cannot be read "
            f"({_first_line(error)}); re-save it from another program."
        ) from None
    if page_count == 0:
        raise CorruptDocumentError(
            f"{path.name} has no pages (the file is damaged or empty); "
            "re-download it or re-save it from another program."
        )
    return page_count


def _empty_page_warnings(pages: TextLayer, page_count: int, ocr_warning: str) -> list[str]:
    """Which pages hold no text, OCR included, and which could not be read at all."""
    warnings = []
    empty_pages = [n + 1 for n, page in enumerate(pages.texts) if not page.strip()]
    if empty_pages:
        verb = "has" if len(empty_pages) == 1 else "have"
        warnings.append(
            f"{len(empty_pages)} of {page_count} pages {verb} no text (scanned or blank): "
            f"{_page_list(empty_pages)} cannot be searched or cited"
            + (f"; {ocr_warning}." if ocr_warning else ".")
        )
    if pages.unreadable:
        verb = "was" if len(pages.unreadable) == 1 else "were"
        warnings.append(f"{_page_list(pages.unreadable)} could not be read and {verb} left empty.")
    return warnings


def _add_ocr_pages(
    extraction: Extraction, read_by_ocr: dict[int, ScannedPage], page_engines: dict[int, str]
) -> None:
    """Record on ``extraction`` how each page read by OCR was read: its confidence and
    engine, each word's confidence (at its place in the text) and its boxes."""
    for number, scanned_result in sorted(read_by_ocr.items()):
        start = extraction.page_starts[number]
        extraction.ocr_pages.append(
            OcrPageInfo(
                number + 1, scanned_result.confidence, scanned_result.turned, page_engines[number]
            )
        )
        extraction.ocr_words.extend(
            OcrConfidence(start + low, start + high, confidence)
            for low, high, confidence in scanned_result.words
        )
        extraction.ocr_boxes[number + 1] = scanned_result.boxes


def _read_scanned(
    path: Path,
    document: pymupdf.Document,
    numbers: list[int],
    ocr: OcrSettings,
    progress: ProgressCallback | None,
    page_count: int,
) -> tuple[dict[int, ScannedPage], str, list[str], str, dict[int, str]]:
    """The pages ``numbers`` read by OCR; a warning if they could not be; warnings on
    how they were read; the engine's name with the languages used (for ``auto``, each
    page's, then "-auto"); and the name of what read each page. Without Tesseract,
    ``auto`` leaves the pages empty and says why."""
    if not numbers:
        return {}, "", [], "", {}
    if ocr.mode == "auto" and find_tesseract() is None:
        return (
            {},
            "OCR, which would read them, is not installed (sudo apt install tesseract-ocr)",
            [],
            "",
            {},
        )
    engine = require_tesseract(ocr.languages)
    engine_prefix = f"tesseract-{engine.version}-"
    total = page_count + len(numbers)

    def waiting(done: int) -> None:
        if progress is not None:
            progress(page_count + done, total)

    results: dict[int, ScannedPage] = {}
    readings: list[PageReading] = []
    blank = []
    pages = read_pages(document, numbers, engine, ocr.languages, waiting)
    with collection_resumed():  # OCR takes seconds a page: no pause holds that long
        for done, reading in enumerate(pages, start=1):
            readings.append(reading)
            if reading.page.words():
                results[reading.number] = scanned_page(reading.page)
            else:
                blank.append(reading.number + 1)
            waiting(done)
    found_nothing = f"OCR found no text on {_page_list(blank)}" if blank else ""
    page_engines = {r.number: "ocr-" + engine_prefix + "+".join(r.languages) for r in readings}
    if ocr.automatic:
        used = dict.fromkeys("+".join(r.languages) for r in readings if r.number in results)
        name = engine_prefix + ",".join(used or ["none"]) + "-auto"
    else:
        name = engine_prefix + ocr.language_tag
    return results, found_nothing, _ocr_notes(readings, results), name, page_engines


def _ocr_notes(readings: list[PageReading], results: dict[int, ScannedPage]) -> list[str]:
    """What a reader should know of how pages were read: in which languages, when they
    were chosen by the detected script; at a resolution cut to fit the pixel budget;
    with a confidence too low to trust the text."""
    notes = []
    by_script: dict[tuple[tuple[str, ...], str], list[int]] = {}
    for reading in readings:
        if reading.script:
            key = (reading.languages, reading.script)
            by_script.setdefault(key, []).append(reading.number + 1)
    for (languages, script), pages in by_script.items():
        notes.append(
            f"{_page_list(pages)} read as {language_names(languages)} "
            f"({'+'.join(languages)}): Tesseract detected {script} script"
        )
    for reading in readings:
        if reading.reduced:
            notes.append(
                f"page {reading.number + 1} is very large: read by OCR at {reading.dpi} dpi"
            )
    unreliable = [
        (number + 1, round(page.confidence))
        for number, page in sorted(results.items())
        if page.confidence < UNRELIABLE_BELOW
    ]
    if len(unreliable) == 1:
        ((page, confidence),) = unreliable
        notes.append(
            f"page {page} was read with a mean confidence of {confidence}%: "
            "check it against the page image"
        )
    elif unreliable:
        notes.append(
            f"{_page_list([page for page, _ in unreliable])} were read with mean confidences "
            f"of {', '.join(f'{confidence}%' for _, confidence in unreliable)}: "
            "check them against the page images"
        )
    return notes


def _join_pages(page_texts: list[str]) -> tuple[str, list[int]]:
    page_starts = []
    offset = 0
    for index, page in enumerate(page_texts):
        if index:
            offset += len(PAGE_SEPARATOR)
        page_starts.append(offset)
        offset += len(page)
    return PAGE_SEPARATOR.join(page_texts), page_starts


def _extract_text(path: Path, kind: str) -> Extraction:
    read = read_plain_text(path, kind)
    return Extraction(
        text=read.text,
        page_starts=read.page_starts,
        kind=kind,
        title=read.title,
        extractor=TEXT_EXTRACTOR,
        headings=read.headings,
    )


def _first_line(error: BaseException) -> str:
    lines = str(error).strip().splitlines()
    if not lines or lines[0].startswith("Failed to open file"):
        return "MuPDF cannot parse it"
    return lines[0][:120]


def _page_list(pages: list[int]) -> str:
    """The pages as words: "page 3", "pages 2, 5 and 9" (past ten, a count of the rest)."""
    if len(pages) == 1:
        return f"page {pages[0]}"
    if len(pages) > 10:
        shown = ", ".join(str(page) for page in pages[:10])
        return f"pages {shown} and {len(pages) - 10} more"
    return "pages " + ", ".join(str(page) for page in pages[:-1]) + f" and {pages[-1]}"
