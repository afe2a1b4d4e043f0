"""The files documents came from: path, size and modification time per ingested file.

A file whose size and modification time are those recorded is taken as unchanged
without reading it; anything else is read and hashed again. Paths are resolved
absolute paths, so the same file named two ways is one record; a path that is
not UTF-8 is kept as its bytes (``rows.path_value``), so any file can be recorded.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import sqlite_utils

from reader.errors import StoreError
from reader.store import file_guard, history
from reader.store.rows import path_from_value, path_value


@dataclass(frozen=True)
class SourceFile:
    """A file as it was when the document ``doc_id`` was ingested from it (or last seen)."""

    path: str
    doc_id: str
    size: int | None
    mtime_ns: int | None

    @classmethod
    def of(cls, path: str | Path, doc_id: str, status: os.stat_result) -> SourceFile:
        return cls(os.path.realpath(path), doc_id, status.st_size, status.st_mtime_ns)

    @classmethod
    def from_row(cls, row: Sequence[Any]) -> SourceFile:
        """The record in a row of ``path, doc_id, size, mtime_ns``."""
        return cls(path_from_value(row[0]), row[1], row[2], row[3])

    def matches(self, status: os.stat_result) -> bool:
        """The file at the path has the size and modification time recorded."""
        return self.size == status.st_size and self.mtime_ns == status.st_mtime_ns


@dataclass(frozen=True)
class RecordedFile:
    """A recorded file whose document is in the library, with that document's extractor."""

    source: SourceFile
    extractor: str


class Store(Protocol):
    """The part of ``LibraryStore`` these functions use. The store imports this
    module (it records a document's file as it stores the document), so the store
    is described here rather than imported."""

    db: sqlite_utils.Database

    @property
    def read_only(self) -> bool: ...

    def writing(self) -> sqlite3.Connection: ...

    def delete_document_rows(self, doc_id: str) -> None: ...


def write_source(conn: sqlite3.Connection, source: SourceFile) -> None:
    """Record ``source`` inside the caller's transaction."""
    conn.execute(
        "INSERT OR REPLACE INTO source_files (path, doc_id, size, mtime_ns) VALUES (?, ?, ?, ?)",
        [path_value(source.path), source.doc_id, source.size, source.mtime_ns],
    )


def delete_sources(conn: sqlite3.Connection, doc_id: str) -> None:
    """Forget every file recorded for the document, inside the caller's transaction."""
    conn.execute("DELETE FROM source_files WHERE doc_id = ?", [doc_id])


def record_source(store: Store, source: SourceFile) -> None:
    """Remember where a document's file is now; a read-only library remembers nothing."""
    if store.read_only:
        return
    with store.writing() as conn:
        write_source(conn, source)
        conn.execute(
            "UPDATE documents SET path = ? WHERE id = ?", [path_value(source.path), source.doc_id]
        )


def recorded_file(store: Store, path: str | Path) -> RecordedFile | None:
    """What was recorded for the file at ``path``, if its document is still in the library."""
    row = store.db.execute(
        "SELECT f.path, f.doc_id, f.size, f.mtime_ns, d.extractor FROM source_files f "
        "JOIN documents d ON d.id = f.doc_id WHERE f.path = ?",
        [path_value(os.path.realpath(path))],
    ).fetchone()
    return RecordedFile(SourceFile.from_row(row[:4]), row[4]) if row else None


def document_sources(store: Store) -> dict[str, list[SourceFile]]:
    """Every document's recorded files; a document with none has its last known path,
    with no size or time (so it is read once to be recognised)."""
    documents = {
        doc_id: path_from_value(path)
        for doc_id, path in store.db.execute("SELECT id, path FROM documents").fetchall()
    }
    sources: dict[str, list[SourceFile]] = {doc_id: [] for doc_id in documents}
    for row in store.db.execute(
        "SELECT path, doc_id, size, mtime_ns FROM source_files ORDER BY path"
    ).fetchall():
        if row[1] in sources:
            sources[row[1]].append(SourceFile.from_row(row))
    for doc_id, path in documents.items():
        if not any(source.path == path for source in sources[doc_id]):
            sources[doc_id].append(SourceFile(path, doc_id, None, None))
    return sources


def recorded_at(store: Store, path: str) -> SourceFile | None:
    """The record for ``path`` whatever document it names (in the library or not)."""
    row = store.db.execute(
        "SELECT path, doc_id, size, mtime_ns FROM source_files WHERE path = ?", [path_value(path)]
    ).fetchone()
    return SourceFile.from_row(row) if row else None


def replace_document(store: Store, old_id: str, new_id: str) -> int:
    """Point the stored answers that cite ``old_id`` at ``new_id`` and remove the old
    document, in one transaction; returns how many answers were moved.

    The answers keep their quotes and chunk ids: when history checks them again the
    old chunks are gone, so each quote is found again in the new version, or the
    claim is shown as no longer verified.
    """
    conn = store.writing()
    try:
        with conn:
            moved = history.move_answers(conn, old_id, new_id)
            store.delete_document_rows(old_id)
    except sqlite3.DatabaseError as error:
        raise StoreError(
            f"Could not replace document {old_id} with its new version ({error}); "
            "nothing was changed"
            + ("; free some disk space and try again." if file_guard.is_disk_full(error) else ".")
        ) from None
    return moved
