"""How documents and chunks are kept in the library's rows, and read back.

A document's lists (page starts, headings, warnings, furniture, the pages OCR
read) and a chunk's heading path and furniture are JSON text in their rows; an
OCR'd page keeps its words and boxes as zlib-compressed JSON. A file's path is
text where it is UTF-8, else its bytes (see ``path_value``).

A document and an OCR'd page are read with each value converted to the type
its record holds, which changes nothing in a row the store wrote; a damaged row
fails here with ``TypeError`` or ``ValueError`` (``zlib.error`` for a blob)
instead of giving a record that fails later. Repair reads a damaged library
through these functions too, and takes those errors as a row it cannot keep.
"""

from __future__ import annotations

import json
import os
import zlib
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime
from functools import lru_cache
from typing import Any

from reader.records import (
    Chunk,
    Document,
    DocumentSummary,
    Furniture,
    Heading,
    OcrBox,
    OcrConfidence,
    OcrPageInfo,
    furniture_from_json,
)

# The columns ``document_values`` fills, in its order.
DOCUMENT_COLUMNS = (
    "id, title, path, kind, pages, chars, extractor, ingested_at, page_starts, headings, "
    "warnings, text, furniture, ocr, extracted_title, page_labels"
)
# What describes a document apart from its text, furniture and OCR pages, in
# the order ``document_from_row`` takes them. The text is selected on its own
# where it may be damaged (repair), so a bad text loses no more than itself.
DOCUMENT_META_COLUMNS = (
    "id, title, path, kind, extractor, ingested_at, page_starts, headings, warnings"
)
CHUNK_COLUMNS = 'id, doc_id, seq, start, "end", text, heading, page_start, page_end, furniture'


# -- paths ---------------------------------------------------------------------


def path_value(path: str) -> str | bytes:
    """A file's path as the ``path`` columns keep it: as text when it is UTF-8, else
    as the bytes the file system gave (a name in another encoding, which Python holds
    with surrogate escapes that SQLite cannot store as text).

    SQLite keeps a BLOB in a TEXT column as it is, and a lookup with the same bytes
    finds it; a path that is UTF-8 is always text, so no path is kept both ways.
    """
    try:
        path.encode("utf-8")
    except UnicodeEncodeError:
        return os.fsencode(path)
    return path


def path_from_value(value: object) -> str:
    """The path ``path_value`` kept, as Python names the file again."""
    return os.fsdecode(value) if isinstance(value, bytes) else str(value)


# -- documents -----------------------------------------------------------------


def document_values(document: Document, extracted_title: str) -> list[Any]:
    """The document's values for ``DOCUMENT_COLUMNS``; a document without an
    ingest time is stamped with the time now."""
    return [
        document.id,
        document.title,
        path_value(document.path),
        document.kind,
        document.pages,
        document.chars,
        document.extractor,
        document.ingested_at or datetime.now(UTC).isoformat(timespec="seconds"),
        json.dumps(document.page_starts),
        json.dumps([[h.offset, h.level, h.title] for h in document.headings]),
        json.dumps(document.warnings),
        document.text,
        furniture_json(document.furniture),
        json.dumps([info.to_json() for info in document.ocr_pages]),
        extracted_title,
        json.dumps(document.page_labels),
    ]


def document_from_row(
    row: Sequence[Any],
    text: str,
    furniture: str = "[]",
    ocr: str = "[]",
    page_labels: str = "[]",
) -> Document:
    """The document in a row of ``DOCUMENT_META_COLUMNS``, with its text, furniture,
    the list of its OCR'd pages (the words and boxes of those are read per page) and
    its printed page numbers."""
    return Document(
        id=str(row[0]),
        title=str(row[1]),
        path=path_from_value(row[2]),
        kind=str(row[3]),
        extractor=str(row[4]),
        ingested_at=str(row[5]),
        page_starts=page_starts_from_json(row[6]),
        headings=[Heading(int(o), int(lv), str(t)) for o, lv, t in json.loads(row[7])],
        warnings=[str(warning) for warning in json.loads(row[8])],
        text=text,
        furniture=list(furniture_from_json(json.loads(furniture))),
        ocr_pages=ocr_pages_from_json(ocr),
        page_labels=page_labels_from_json(page_labels),
    )


def page_starts_from_json(text: str) -> list[int]:
    return [int(start) for start in json.loads(text)]


def page_labels_from_json(text: str) -> list[str]:
    return [str(label) for label in json.loads(text)]


def ocr_pages_from_json(text: str) -> list[OcrPageInfo]:
    return [OcrPageInfo(*item) for item in json.loads(text)]


def furniture_json(items: Iterable[Furniture]) -> str:
    """A document's or a chunk's furniture, as its row keeps it."""
    listed = [item.to_json() for item in items]
    return json.dumps(listed) if listed else "[]"  # most chunks have none


def summary_from_row(row: Sequence[Any]) -> DocumentSummary:
    """A listed document: the documents row's figures, then its chunk count,
    warnings (JSON) and OCR'd pages (a JSON array of page numbers)."""
    doc_id, title, path, kind, pages, chars, extractor, ingested_at, chunks = row[:9]
    return DocumentSummary(
        id=doc_id,
        title=title,
        path=path_from_value(path),
        kind=kind,
        pages=pages,
        chars=chars,
        extractor=extractor,
        ingested_at=ingested_at,
        chunks=chunks,
        warnings=tuple(json.loads(row[9])),
        ocr_pages=tuple(sorted(json.loads(row[10]))),
    )


# -- chunks --------------------------------------------------------------------


def chunk_values(chunk: Chunk) -> tuple[Any, ...]:
    """The chunk's values for the ``CHUNK_COLUMNS`` of its row."""
    return (
        chunk.id,
        chunk.doc_id,
        chunk.seq,
        chunk.start,
        chunk.end,
        chunk.text,
        _heading_json(tuple(chunk.heading)),
        chunk.page_start,
        chunk.page_end,
        furniture_json(chunk.furniture),
    )


@lru_cache(maxsize=256)
def _heading_json(heading: tuple[str, ...]) -> str:
    # The chunks of a section share its heading: each is written out once.
    return json.dumps(list(heading))


def chunk_from_row(row: Sequence[Any]) -> Chunk:
    """The chunk in a row of ``CHUNK_COLUMNS``."""
    return Chunk(
        id=row[0],
        doc_id=row[1],
        seq=row[2],
        start=row[3],
        end=row[4],
        text=row[5],
        heading=tuple(json.loads(row[6])),
        page_start=row[7],
        page_end=row[8],
        furniture=furniture_from_json(json.loads(row[9])),
    )


# -- OCR'd pages -----------------------------------------------------------------


def packed(value: object) -> bytes:
    """An OCR'd page's words or boxes, as its row keeps them."""
    return zlib.compress(json.dumps(value, separators=(",", ":")).encode("utf-8"))


def ocr_words_from_blob(data: bytes) -> list[OcrConfidence]:
    """Each word OCR read on a page: its range of the text and the engine's confidence."""
    return [
        OcrConfidence(int(start), int(end), float(confidence))
        for start, end, confidence in _unpacked(data)
    ]


def ocr_boxes_from_blob(data: bytes) -> list[OcrBox | None]:
    """A box per character of an OCR'd page's text (None where a character has none)."""
    return [(box[0], box[1], box[2], box[3]) if box else None for box in _unpacked(data)]


def _unpacked(data: bytes) -> Any:
    return json.loads(zlib.decompress(data).decode("utf-8"))
