"""Ingest: a file becomes a ``Document`` (canonical text, page map, headings) and chunks.

PyMuPDF is imported only when a file is read, so commands that only read the
library (list, search, history) start without it.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import TYPE_CHECKING

from reader.ingest.chunking import chunk_text
from reader.records import Chunk, Document

if TYPE_CHECKING:
    from reader.ingest.extract import ProgressCallback

__all__ = ["document_id", "extractor_for", "read_document"]


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


def read_document(
    path: str | Path,
    password: str | None = None,
    progress: ProgressCallback | None = None,
    doc_id: str | None = None,
) -> tuple[Document, list[Chunk]]:
    """Extract and chunk the file at ``path`` (nothing is stored)."""
    from reader.ingest.extract import extract

    path = Path(path)
    extraction = extract(path, password=password, progress=progress)
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
    )
    chunks = chunk_text(
        doc_id, extraction.text, extraction.page_starts, extraction.headings, extraction.furniture
    )
    return document, chunks
