"""The documents table: per document its canonical text, pages, headings, warnings,
furniture and the pages OCR read, with the title shown and the title read from
its file (``extracted_title``: they differ when the user renamed it).
"""

from __future__ import annotations

import sqlite3

from reader.errors import DocumentNotFoundError
from reader.records import Document, DocumentSummary, PageStarts
from reader.store import ocr_pages
from reader.store.rows import (
    DOCUMENT_COLUMNS,
    DOCUMENT_META_COLUMNS,
    document_from_row,
    document_values,
    page_labels_from_json,
    page_starts_from_json,
    path_value,
    summary_from_row,
)


def insert_document(conn: sqlite3.Connection, document: Document, extracted_title: str) -> None:
    """Write the document's row inside the caller's transaction."""
    conn.execute(
        f"INSERT INTO documents ({DOCUMENT_COLUMNS}) VALUES ({', '.join('?' * 16)})",
        document_values(document, extracted_title),
    )


def delete_document(conn: sqlite3.Connection, doc_id: str) -> None:
    conn.execute("DELETE FROM documents WHERE id = ?", [doc_id])


def user_title(conn: sqlite3.Connection, doc_id: str, source_path: str | None) -> str | None:
    """The title the user gave this document, or else the document last ingested
    from ``source_path`` (an earlier version of the file), if they renamed it."""
    row = conn.execute(
        "SELECT title, extracted_title FROM documents WHERE id = ?", [doc_id]
    ).fetchone()
    if row is None and source_path is not None:
        row = conn.execute(
            "SELECT d.title, d.extracted_title FROM source_files f "
            "JOIN documents d ON d.id = f.doc_id WHERE f.path = ?",
            [path_value(source_path)],
        ).fetchone()
    return str(row[0]) if row is not None and row[0] != row[1] else None


def set_title(conn: sqlite3.Connection, doc_id: str, title: str | None) -> None:
    """Show the document under ``title``, or under its file's own title (None)."""
    if title is None:
        conn.execute("UPDATE documents SET title = extracted_title WHERE id = ?", [doc_id])
    else:
        conn.execute("UPDATE documents SET title = ? WHERE id = ?", [title, doc_id])


def get_document(conn: sqlite3.Connection, doc_id: str) -> Document:
    row = conn.execute(
        f"SELECT {DOCUMENT_META_COLUMNS}, text, furniture, ocr, page_labels FROM documents "
        "WHERE id = ?",
        [doc_id],
    ).fetchone()
    if row is None:
        raise not_found(doc_id)
    meta, (text, furniture, ocr, labels) = row[:-4], row[-4:]
    document = document_from_row(meta, text, furniture, ocr, labels)
    if document.ocr_pages:
        document.ocr_words = ocr_pages.word_confidences(conn, doc_id)
    return document


def extractor(conn: sqlite3.Connection, doc_id: str) -> str | None:
    row = conn.execute("SELECT extractor FROM documents WHERE id = ?", [doc_id]).fetchone()
    return row[0] if row else None


def page_map(conn: sqlite3.Connection, doc_id: str) -> PageStarts:
    row = conn.execute(
        "SELECT page_starts, page_labels FROM documents WHERE id = ?", [doc_id]
    ).fetchone()
    if row is None:
        raise not_found(doc_id)
    return PageStarts(tuple(page_starts_from_json(row[0])), tuple(page_labels_from_json(row[1])))


def find_document_ids(conn: sqlite3.Connection, prefix: str) -> list[str]:
    escaped = prefix.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    rows = conn.execute(
        "SELECT id FROM documents WHERE id LIKE ? ESCAPE '\\'", [escaped + "%"]
    ).fetchall()
    return [row[0] for row in rows]


def titles(conn: sqlite3.Connection, doc_ids: list[str]) -> dict[str, str]:
    if not doc_ids:
        return {}
    marks = ", ".join("?" * len(doc_ids))
    rows = conn.execute(
        f"SELECT id, title FROM documents WHERE id IN ({marks})", list(doc_ids)
    ).fetchall()
    return {row[0]: row[1] for row in rows}


def is_empty(conn: sqlite3.Connection) -> bool:
    return conn.execute("SELECT 1 FROM documents LIMIT 1").fetchone() is None


_SUMMARY = (
    "SELECT d.id, d.title, d.path, d.kind, d.pages, d.chars, d.extractor, d.ingested_at, "
    "(SELECT count(*) FROM chunks c WHERE c.doc_id = d.id), d.warnings, "
    # From the OCR table, not the documents row: its columns after ``text``
    # are reached only by reading the whole text.
    "(SELECT json_group_array(o.page) FROM ocr_pages o WHERE o.doc_id = d.id) "
    "FROM documents d"
)


def list_documents(conn: sqlite3.Connection) -> list[DocumentSummary]:
    rows = conn.execute(_SUMMARY + " ORDER BY d.ingested_at, d.title").fetchall()
    return [summary_from_row(row) for row in rows]


def document_summary(conn: sqlite3.Connection, doc_id: str) -> DocumentSummary:
    row = conn.execute(_SUMMARY + " WHERE d.id = ?", [doc_id]).fetchone()
    if row is None:
        raise not_found(doc_id)
    return summary_from_row(row)


def not_found(doc_id: str) -> DocumentNotFoundError:
    return DocumentNotFoundError(
        f"No document with id {doc_id} in the library; `reader list` shows what is there."
    )
