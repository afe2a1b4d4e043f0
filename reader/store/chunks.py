"""The chunks table: each document's text in passages, in order (``seq``).

A chunk's rowid is also its row in the full-text index (``reader.store.search_index``),
and a document's chunks are written together, so their rowids make one short run.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable

from reader.errors import ChunkNotFoundError
from reader.records import Chunk
from reader.store.rows import CHUNK_COLUMNS, chunk_from_row, chunk_values


def insert_chunks(conn: sqlite3.Connection, chunks: list[Chunk]) -> int:
    """Write the chunks inside the caller's transaction; returns the first one's rowid,
    the rest following it in order."""
    # Rowids are assigned here so the index rows can be written directly
    # with VALUES, several times faster than looking each rowid up.
    first = int(conn.execute("SELECT coalesce(max(rowid), 0) + 1 FROM chunks").fetchone()[0])
    conn.executemany(
        f"INSERT INTO chunks (rowid, {CHUNK_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        ((first + n, *chunk_values(chunk)) for n, chunk in enumerate(chunks)),
    )
    return first


def delete_chunks(conn: sqlite3.Connection, doc_id: str) -> None:
    conn.execute("DELETE FROM chunks WHERE doc_id = ?", [doc_id])


def document_chunks(conn: sqlite3.Connection, doc_id: str) -> list[Chunk]:
    rows = conn.execute(
        f"SELECT {CHUNK_COLUMNS} FROM chunks WHERE doc_id = ? ORDER BY seq", [doc_id]
    ).fetchall()
    return [chunk_from_row(row) for row in rows]


def chunks_between(conn: sqlite3.Connection, doc_id: str, first: int, last: int) -> list[Chunk]:
    rows = conn.execute(
        f"SELECT {CHUNK_COLUMNS} FROM chunks WHERE doc_id = ? AND seq BETWEEN ? AND ? ORDER BY seq",
        [doc_id, first, last],
    ).fetchall()
    return [chunk_from_row(row) for row in rows]


def chunk(conn: sqlite3.Connection, chunk_id: str) -> Chunk:
    row = conn.execute(f"SELECT {CHUNK_COLUMNS} FROM chunks WHERE id = ?", [chunk_id]).fetchone()
    if row is None:
        raise ChunkNotFoundError(f"No chunk with id {chunk_id} in the library.")
    return chunk_from_row(row)


def chunks_by_rowid(conn: sqlite3.Connection, rowids: Iterable[int]) -> dict[int, Chunk]:
    ids = list(rowids)
    if not ids:
        return {}
    marks = ", ".join("?" * len(ids))
    rows = conn.execute(
        f"SELECT rowid, {CHUNK_COLUMNS} FROM chunks WHERE rowid IN ({marks})", ids
    ).fetchall()
    return {row[0]: chunk_from_row(row[1:]) for row in rows}


def chunk_count(conn: sqlite3.Connection, doc_id: str) -> int:
    row = conn.execute("SELECT count(*) FROM chunks WHERE doc_id = ?", [doc_id]).fetchone()
    return int(row[0])


def rowid_range(conn: sqlite3.Connection, doc_id: str) -> tuple[int, int] | None:
    row = conn.execute(
        "SELECT min(rowid), max(rowid) FROM chunks WHERE doc_id = ?", [doc_id]
    ).fetchone()
    return None if row[0] is None else (int(row[0]), int(row[1]))
