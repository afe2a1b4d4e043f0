"""Ingest: a file becomes a ``Document`` (canonical text, page map, headings) and chunks.

PyMuPDF is imported only when a file is read, so commands that only read the
library (list, search, history) start without it.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import TYPE_CHECKING

from reader.ingest.chunking import chunk_text
from reader.ingest.extractor_version import ExtractorVersion
from reader.ingest.gc_pause import collection_paused
from reader.records import Chunk, Document

if TYPE_CHECKING:
    from reader.ingest.extract import ProgressCallback
    from reader.ingest.ocr import OcrSettings

__all__ = [
    "ExtractorVersion",
    "document_id",
    "extractor_for",
    "extractor_is_current",
    "read_document",
]


def document_id(path: str | Path) -> str:
    """The document id: derived from the file's bytes alone, so renaming or
    moving a file, or adding and removing others, never changes it."""
    digest = hashlib.sha256()
    with Path(path).open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()[:16]


def extractor_for(path: str | Path) -> str:
    """The extractor version that ingesting ``path`` now would record."""
    from reader.ingest.extract import TEXT_EXTRACTOR, detect_kind, pymupdf_extractor_version

    kind = detect_kind(Path(path))
    return TEXT_EXTRACTOR if kind in ("text", "markdown") else pymupdf_extractor_version()


def extractor_is_current(
    stored: str | None, path: str | Path, ocr: OcrSettings | None = None
) -> bool:
    """Whether a document stored by extractor ``stored`` is what ingesting ``path``
    would give now: the same extractor and, when OCR settings are asked for
    (``ocr``), OCR as asked: every page read by OCR for ``always``, in the same
    languages, none for ``never``. Without ``ocr``, a document is taken as it was
    read, so naming a file read in German does not read it again in English."""
    if stored is None:
        return False
    version = ExtractorVersion.parse(stored)
    if version.text != extractor_for(path):
        return False
    if ocr is None:
        return True
    if version.ocr_languages is None:
        return ocr.mode != "always"
    return ocr.mode != "never" and version.ocr_languages == ocr.language_tag


def read_document(
    path: str | Path,
    password: str | None = None,
    progress: ProgressCallback | None = None,
    doc_id: str | None = None,
    ocr: OcrSettings | None = None,
) -> tuple[Document, list[Chunk]]:
    """Extract and chunk the file at ``path`` (nothing is stored)."""
    path = Path(path)
    # Reading a text layer allocates a great deal that outlives no page (see gc_pause).
    with collection_paused():
        return _read_document(path, password, progress, doc_id, ocr)


def _read_document(
    path: Path,
    password: str | None,
    progress: ProgressCallback | None,
    doc_id: str | None,
    ocr: OcrSettings | None,
) -> tuple[Document, list[Chunk]]:
    from reader.ingest.extract import extract

    extraction = extract(path, password=password, progress=progress, ocr=ocr)
    doc_id = doc_id or document_id(path)
    document = Document(
        id=doc_id,
        title=extraction.title,
        path=str(path.resolve()),
        kind=extraction.kind,
        text=extraction.text,
        page_starts=extraction.page_starts,
        extractor=extraction.extractor,
        headings=extraction.headings,
        warnings=extraction.warnings,
        furniture=extraction.furniture,
        ocr_pages=extraction.ocr_pages,
        ocr_words=extraction.ocr_words,
        ocr_boxes=extraction.ocr_boxes,
        page_labels=extraction.page_labels,
    )
    chunks = chunk_text(
        doc_id, extraction.text, extraction.page_starts, extraction.headings, extraction.furniture
    )
    return document, chunks
