"""The full-text index over the chunks (SQLite FTS5), and what it tells of words.

``chunks_fts`` holds each chunk's reading text and heading path in search form
(``reader.text.words.search_form``) under the chunk's rowid; it keeps its own
copy rather than reading the chunks table. ``chunks_vocab`` counts, per Porter
stem, the chunks that hold it.
"""

from __future__ import annotations

import math
import sqlite3
from collections.abc import Iterable

from reader.records import Chunk
from reader.store.rows import CHUNK_COLUMNS, chunk_from_row
from reader.text.words import porter_stem, search_form


def index_chunks(conn: sqlite3.Connection, first_rowid: int, chunks: list[Chunk]) -> None:
    """Index chunks just written with rowids from ``first_rowid`` on, in the caller's
    transaction."""
    conn.executemany(
        "INSERT INTO chunks_fts (rowid, text, heading) VALUES (?, ?, ?)",
        (_index_values(first_rowid + n, chunk) for n, chunk in enumerate(chunks)),
    )


def unindex_document(conn: sqlite3.Connection, doc_id: str) -> None:
    """Remove the index rows of the document's chunks; the chunks must still be there."""
    conn.execute(
        "DELETE FROM chunks_fts WHERE rowid IN (SELECT rowid FROM chunks WHERE doc_id = ?)",
        [doc_id],
    )


def rebuild(conn: sqlite3.Connection) -> int:
    """Index every chunk again, in the caller's transaction; returns how many."""
    conn.execute("DELETE FROM chunks_fts")
    rows = conn.execute(f"SELECT rowid, {CHUNK_COLUMNS} FROM chunks").fetchall()
    conn.executemany(
        "INSERT INTO chunks_fts (rowid, text, heading) VALUES (?, ?, ?)",
        (_index_values(row[0], chunk_from_row(row[1:])) for row in rows),
    )
    return len(rows)


def merge(conn: sqlite3.Connection) -> None:
    """Merge the index's segments into one b-tree (see ``LibraryStore.merge_index``)."""
    conn.execute("INSERT INTO chunks_fts(chunks_fts) VALUES ('optimize')")


def _index_values(rowid: int, chunk: Chunk) -> tuple[int, str, str]:
    return rowid, search_form(chunk.reading_text), search_form(chunk.heading_path)


# -- what the index tells of words ---------------------------------------------


def term_rarity(conn: sqlite3.Connection, words: Iterable[str]) -> dict[str, float]:
    """Inverse document frequency of each word over all chunks (BM25's idf)."""
    total = indexed_chunks(conn)
    return {word: rarity(found, total) for word, found in chunks_holding(conn, words).items()}


def rarity(found: int, total: int) -> float:
    """BM25's inverse document frequency of a word ``found`` in that many of ``total`` chunks."""
    total = total or 1
    return math.log(1 + (total - found + 0.5) / (found + 0.5))


def chunks_holding(conn: sqlite3.Connection, words: Iterable[str]) -> dict[str, int]:
    """How many chunks hold each word, looked up by the index's Porter stem."""
    stems = {word: porter_stem(word) for word in words}
    unique = sorted(set(stems.values()))
    found: dict[str, int] = {}
    if unique:
        marks = ", ".join("?" for _ in unique)
        found = dict(
            conn.execute(
                f"SELECT term, doc FROM chunks_vocab WHERE term IN ({marks})", unique
            ).fetchall()
        )
    return {word: found.get(stem, 0) for word, stem in stems.items()}


def terms_starting(conn: sqlite3.Connection, prefix: str) -> list[str]:
    """The index's terms that begin with ``prefix`` (a range of its sorted vocabulary)."""
    if not prefix:
        return []
    following = prefix[:-1] + chr(ord(prefix[-1]) + 1)
    rows = conn.execute(
        "SELECT term FROM chunks_vocab WHERE term >= ? AND term < ?", [prefix, following]
    )
    return [str(row[0]) for row in rows]


def indexed_chunks(conn: sqlite3.Connection) -> int:
    """How many chunks the index holds, read from FTS5's "averages" record.

    FTS5 keeps the number of rows it indexes (for BM25) at the head of that
    record (row 1 of ``chunks_fts_data``), a varint; reading it costs the same
    for ten chunks or a million, where ``count(*)`` reads every row on every
    question. Should the record not be there or not parse, the rows are counted.
    """
    row = conn.execute("SELECT block FROM chunks_fts_data WHERE id = 1").fetchone()
    total = _varint(row[0]) if row and isinstance(row[0], bytes) else None
    if total is None:
        total = int(conn.execute("SELECT count(*) FROM chunks_fts").fetchone()[0])
    return total


def signature(conn: sqlite3.Connection) -> tuple[bytes, int]:
    """FTS5's averages record (rows, and tokens per column) with the highest chunk
    rowid (a new chunk's is above it): together they change whenever chunks are
    indexed or removed."""
    row = conn.execute("SELECT block FROM chunks_fts_data WHERE id = 1").fetchone()
    highest = conn.execute("SELECT max(rowid) FROM chunks").fetchone()[0]
    averages = row[0] if row and isinstance(row[0], bytes) else b""
    return averages, int(highest or 0)


def _varint(data: bytes) -> int | None:
    """The SQLite varint at the start of ``data`` (big-endian groups of 7 bits, a set
    high bit meaning more follow; a ninth byte gives all 8 bits), or None if cut short."""
    value = 0
    for index, byte in enumerate(data[:9]):
        if index == 8:
            return (value << 8) | byte
        value = (value << 7) | (byte & 0x7F)
        if byte < 0x80:
            return value
    return None
