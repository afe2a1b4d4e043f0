"""What OCR read on a document's scanned pages, kept beside the document.

Per page: each word's range of the canonical text with the engine's confidence
in it (the verifier says when a quote rests on an uncertain word), and a box per
character of the page's text (the page view draws a quote on the scanned image
with them, as it does with a text layer's boxes). Both are zlib-compressed
JSON (see ``reader.store.rows``): a page of a few thousand characters takes a
few kilobytes.
"""

from __future__ import annotations

import sqlite3

from reader.records import Document, OcrBox, OcrConfidence
from reader.store.rows import ocr_boxes_from_blob, ocr_words_from_blob, packed


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
                packed(words_by_page.get(info.page, [])),
                packed(document.ocr_boxes.get(info.page, [])),
            )
            for info in document.ocr_pages
        ),
    )


def delete_pages(conn: sqlite3.Connection, doc_id: str) -> None:
    conn.execute("DELETE FROM ocr_pages WHERE doc_id = ?", [doc_id])


def page_boxes(conn: sqlite3.Connection, doc_id: str, page: int) -> list[OcrBox | None] | None:
    row = conn.execute(
        "SELECT boxes FROM ocr_pages WHERE doc_id = ? AND page = ?", [doc_id, page]
    ).fetchone()
    return None if row is None else ocr_boxes_from_blob(row[0])


def word_confidences(conn: sqlite3.Connection, doc_id: str) -> list[OcrConfidence]:
    rows = conn.execute(
        "SELECT words FROM ocr_pages WHERE doc_id = ? ORDER BY page", [doc_id]
    ).fetchall()
    return [word for row in rows for word in ocr_words_from_blob(row[0])]
