"""What OCR read on a document's scanned pages, kept beside the document.

Per page: each word's range of the canonical text with the engine's confidence
in it (the verifier says when a quote rests on an uncertain word), and a box per
character of the page's text (the page view draws a quote on the scanned image
with them, as it does with a text layer's boxes). Both are zlib-compressed
JSON: a page of a few thousand characters takes a few kilobytes.
"""

from __future__ import annotations

import json
import sqlite3
import zlib
from typing import Any

from reader.records import Document, OcrBox, OcrConfidence


def write_pages(conn: sqlite3.Connection, document: Document) -> None:
    """Store the document's OCR'd pages, inside the caller's transaction."""
    words_by_page: dict[int, list[list[float]]] = {}
    for word in document.ocr_words:
        words_by_page.setdefault(document.page_of(word.start), []).append(
            [word.start, word.end, round(word.confidence, 1)]
        )
    conn.executemany(
        "INSERT INTO ocr_pages (doc_id, page, words, boxes) VALUES (?, ?, ?, ?)",
        (
            (
                document.id,
                info.page,
                _packed(words_by_page.get(info.page, [])),
                _packed(document.ocr_boxes.get(info.page, [])),
            )
            for info in document.ocr_pages
        ),
    )


def page_boxes(conn: sqlite3.Connection, doc_id: str, page: int) -> list[OcrBox | None] | None:
    row = conn.execute(
        "SELECT boxes FROM ocr_pages WHERE doc_id = ? AND page = ?", [doc_id, page]
    ).fetchone()
    if row is None:
        return None
    return [(box[0], box[1], box[2], box[3]) if box else None for box in _unpacked(row[0])]


def word_confidences(conn: sqlite3.Connection, doc_id: str) -> list[OcrConfidence]:
    rows = conn.execute(
        "SELECT words FROM ocr_pages WHERE doc_id = ? ORDER BY page", [doc_id]
    ).fetchall()
    return [
        OcrConfidence(int(start), int(end), float(confidence))
        for row in rows
        for start, end, confidence in _unpacked(row[0])
    ]


def _packed(value: object) -> bytes:
    return zlib.compress(json.dumps(value, separators=(",", ":")).encode("utf-8"))


def _unpacked(data: bytes) -> Any:
    return json.loads(zlib.decompress(data).decode("utf-8"))
