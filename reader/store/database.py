"""Reading and writing the library.

One ``LibraryStore`` per thread: SQLite connections must not cross threads, so
workers receive the database path and open their own.
"""

from __future__ import annotations

import contextlib
import json
import math
import sqlite3
from collections.abc import Iterable, Iterator
from datetime import UTC, datetime
from pathlib import Path

import sqlite_utils

from reader.errors import (
    ChunkNotFoundError,
    DocumentNotFoundError,
    LibraryDamagedError,
    LibraryReadOnlyError,
    StoreError,
)
from reader.records import (
    Answer,
    Chunk,
    Document,
    DocumentSummary,
    Heading,
    OcrBox,
    OcrConfidence,
    OcrPageInfo,
    answer_from_json,
    furniture_from_json,
)
from reader.store import health, ocr_pages
from reader.store.migrations import apply_migrations, pending_migrations
from reader.store.sources import SourceFile, write_source
from reader.text.words import porter_stem, search_form

_CHUNK_COLUMNS = 'id, doc_id, seq, start, "end", text, heading, page_start, page_end, furniture'


class LibraryStore:
    """The SQLite database holding documents, chunks and the full-text index.

    A file reader may not write is opened read-only (``read_only``): reading
    works, every write raises ``LibraryReadOnlyError``. A damaged file raises
    ``LibraryDamagedError`` on open, or on the first query that meets the
    damage; from then on nothing is written to it (see ``reader.store.health``).
    ``allow_damaged`` opens a damaged file anyway, for salvage.
    """

    def __init__(self, path: str | Path, allow_damaged: bool = False) -> None:
        self.path = Path(path)
        # An existing library in a folder reader cannot write is opened read-only.
        with contextlib.suppress(OSError):
            self.path.parent.mkdir(parents=True, exist_ok=True)
        # Why the library cannot be written, when it cannot: then it opens read-only.
        self.read_only_reason: str | None = None if health.writable(self.path) else health.READ_ONLY
        self.db = sqlite_utils.Database(memory=True)
        # Judged before connecting: opening the file creates its journal files.
        unchanged = health.seen_healthy(self.path)
        try:
            try:
                self._open(unchanged, allow_damaged)
            except sqlite3.OperationalError:
                # A full disk cannot take the journal files a writer needs; the
                # library can still be read as it is.
                if self.read_only or not health.disk_full(self.path):
                    raise
                self.db.conn.close()
                self.read_only_reason = health.DISK_FULL
                self._open(unchanged, allow_damaged)
        except LibraryDamagedError:
            self.close(seen_healthy=False)
            raise
        except sqlite3.DatabaseError as error:
            self.close(seen_healthy=False)
            raise StoreError(
                f"The library at {self.path} cannot be opened ({error}); "
                "move it aside or point READER_HOME at another folder."
            ) from None

    @property
    def read_only(self) -> bool:
        return self.read_only_reason is not None

    def _open(self, unchanged: bool, allow_damaged: bool) -> None:
        self.connection = health.connect(self.path, self.read_only)
        self.db = sqlite_utils.Database(self.connection)
        try:
            fresh = self.db.execute("SELECT count(*) FROM sqlite_master").fetchone()[0] == 0
        except LibraryDamagedError:
            fresh = False  # the guard has recorded the damage
        if not fresh and self.damage is None and not unchanged:
            self.connection.damage = health.check(self.connection)
        if self.damage is not None and not allow_damaged:
            raise health.damaged(self.path, self.damage)
        if self.damage is None:
            self._prepare(fresh)

    def _prepare(self, fresh: bool) -> None:
        if self.read_only:
            if fresh or pending_migrations(self.db):
                raise StoreError(
                    f"The library at {self.path} cannot be written ({self.read_only_reason}) "
                    "and needs upgrading by this version of reader; open it once with write "
                    "access."
                )
            return
        self.db.execute("PRAGMA journal_mode = WAL")
        self.db.execute("PRAGMA foreign_keys = ON")
        self.db.execute("PRAGMA synchronous = NORMAL")
        apply_migrations(self.db)

    @property
    def damage(self) -> str | None:
        """What SQLite found wrong with the file, once it has found anything."""
        return getattr(self.db.conn, "damage", None)

    def writing(self) -> sqlite3.Connection:
        """The connection, for a write transaction; refused when the file is damaged
        or read-only, so a damaged library is never written to."""
        if self.damage is not None:
            raise health.damaged(self.path, self.damage)
        if self.read_only_reason == health.DISK_FULL:
            raise LibraryReadOnlyError(
                f"The library at {self.path} cannot be written: the disk is full; "
                "free some disk space and try again."
            )
        if self.read_only:
            raise LibraryReadOnlyError(
                f"The library at {self.path} is read-only: reader can show, search and answer "
                "from it but not change it; make it writable, or point READER_HOME at a "
                "folder reader may write to."
            )
        return self.db.conn

    def close(self, seen_healthy: bool = True) -> None:
        self.db.conn.close()
        if self.read_only:
            return
        if self.damage is not None:
            health.forget_healthy(self.path)  # the next open checks the file again
        elif seen_healthy:
            health.mark_healthy(self.path)

    def __enter__(self) -> LibraryStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- documents -----------------------------------------------------------

    def document_extractor(self, doc_id: str) -> str | None:
        row = self.db.execute("SELECT extractor FROM documents WHERE id = ?", [doc_id]).fetchone()
        return row[0] if row else None

    def add_document(
        self, document: Document, chunks: list[Chunk], source: SourceFile | None = None
    ) -> None:
        """Store a document and its chunks (and the file they came from) in one
        transaction, replacing any old copy.

        A title the user gave the document, or the version of it last ingested from
        the same file, is kept: ``document.title`` becomes that title.

        Either everything lands or nothing does: a process that dies midway
        leaves the library as it was.
        """
        conn = self.writing()
        extracted_title = document.title
        try:
            with conn:
                document.title = self._user_title(document.id, source) or extracted_title
                self.delete_document_rows(document.id)
                conn.execute(
                    "INSERT INTO documents (id, title, path, kind, pages, chars, extractor, "
                    "ingested_at, page_starts, headings, warnings, text, furniture, ocr, "
                    "extracted_title) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    [
                        document.id,
                        document.title,
                        document.path,
                        document.kind,
                        document.pages,
                        document.chars,
                        document.extractor,
                        document.ingested_at or datetime.now(UTC).isoformat(timespec="seconds"),
                        json.dumps(document.page_starts),
                        json.dumps([[h.offset, h.level, h.title] for h in document.headings]),
                        json.dumps(document.warnings),
                        document.text,
                        json.dumps([item.to_json() for item in document.furniture]),
                        json.dumps([info.to_json() for info in document.ocr_pages]),
                        extracted_title,
                    ],
                )
                ocr_pages.write_pages(conn, document)
                self._insert_chunks(chunks)
                if source is not None:
                    write_source(conn, source)
        except sqlite3.DatabaseError as error:
            document.title = extracted_title
            raise StoreError(
                f"Could not save {document.path} to the library ({error}); nothing was changed"
                + ("; free some disk space and try again." if health.is_disk_full(error) else ".")
            ) from None

    def _user_title(self, doc_id: str, source: SourceFile | None) -> str | None:
        """The title the user gave this document, or else the document last ingested
        from ``source``'s path (an earlier version of the file), if they renamed it."""
        row = self.db.execute(
            "SELECT title, extracted_title FROM documents WHERE id = ?", [doc_id]
        ).fetchone()
        if row is None and source is not None:
            row = self.db.execute(
                "SELECT d.title, d.extracted_title FROM source_files f "
                "JOIN documents d ON d.id = f.doc_id WHERE f.path = ?",
                [source.path],
            ).fetchone()
        return str(row[0]) if row is not None and row[0] != row[1] else None

    def rename_document(self, doc_id: str, title: str | None) -> str:
        """Show the document under ``title`` from now on, or under the title read from
        its file again (``title`` None); returns the title it now has."""
        with self.writing() as conn:
            if title is None:
                conn.execute("UPDATE documents SET title = extracted_title WHERE id = ?", [doc_id])
            else:
                conn.execute("UPDATE documents SET title = ? WHERE id = ?", [title, doc_id])
        shown = self.titles([doc_id]).get(doc_id)
        if shown is None:
            raise DocumentNotFoundError(
                f"No document with id {doc_id} in the library; `reader list` shows what is there."
            )
        return shown

    def ocr_words(self, doc_id: str) -> list[OcrConfidence]:
        """Every word OCR read in the document, with its confidence; none for a text layer."""
        return ocr_pages.word_confidences(self.db.conn, doc_id)

    def ocr_boxes(self, doc_id: str, page: int) -> list[OcrBox | None] | None:
        """A box per character of an OCR'd page's text; None if the page has a text layer."""
        return ocr_pages.page_boxes(self.db.conn, doc_id, page)

    def _insert_chunks(self, chunks: list[Chunk]) -> None:
        conn = self.db.conn
        # Rowids are assigned here so the index rows can be written directly
        # with VALUES, several times faster than looking each rowid up.
        first = conn.execute("SELECT coalesce(max(rowid), 0) + 1 FROM chunks").fetchone()[0]
        conn.executemany(
            f"INSERT INTO chunks (rowid, {_CHUNK_COLUMNS}) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                (
                    first + n,
                    c.id,
                    c.doc_id,
                    c.seq,
                    c.start,
                    c.end,
                    c.text,
                    json.dumps(list(c.heading)),
                    c.page_start,
                    c.page_end,
                    json.dumps([item.to_json() for item in c.furniture]),
                )
                for n, c in enumerate(chunks)
            ),
        )
        conn.executemany(
            "INSERT INTO chunks_fts (rowid, text, heading) VALUES (?, ?, ?)",
            (
                (first + n, search_form(c.reading_text), search_form(c.heading_path))
                for n, c in enumerate(chunks)
            ),
        )

    def delete_document_rows(self, doc_id: str) -> None:
        """Delete a document's row, chunks and index rows inside the caller's transaction."""
        conn = self.db.conn
        conn.execute(
            "DELETE FROM chunks_fts WHERE rowid IN (SELECT rowid FROM chunks WHERE doc_id = ?)",
            [doc_id],
        )
        conn.execute("DELETE FROM chunks WHERE doc_id = ?", [doc_id])
        conn.execute("DELETE FROM ocr_pages WHERE doc_id = ?", [doc_id])
        conn.execute("DELETE FROM documents WHERE id = ?", [doc_id])

    def rebuild_index(self) -> int:
        """Write the full-text index again from the chunks; returns how many were indexed."""
        conn = self.writing()
        with conn:
            conn.execute("DELETE FROM chunks_fts")
            rows = conn.execute(f"SELECT rowid, {_CHUNK_COLUMNS} FROM chunks").fetchall()
            conn.executemany(
                "INSERT INTO chunks_fts (rowid, text, heading) VALUES (?, ?, ?)",
                (
                    (row[0], search_form(chunk.reading_text), search_form(chunk.heading_path))
                    for row in rows
                    for chunk in [_chunk_from_row(row[1:])]
                ),
            )
        self.merge_index()
        return len(rows)

    def merge_index(self) -> None:
        """Merge the full-text index into one b-tree.

        Every ingested document leaves segments of its own; searching a large
        library over hundreds of them costs about twice as much as over one
        merged b-tree (bench/library.py: 520 ms against 261 ms p50 at 1.1
        million chunks). Merging takes about 13 s at that size, so it follows
        bulk work, not every document.
        """
        with self.writing() as conn:
            conn.execute("INSERT INTO chunks_fts(chunks_fts) VALUES ('optimize')")

    def remove_document(self, doc_id: str) -> None:
        with self.writing() as conn:
            self.delete_document_rows(doc_id)
            conn.execute("DELETE FROM source_files WHERE doc_id = ?", [doc_id])

    def get_document(self, doc_id: str) -> Document:
        row = self.db.execute(
            "SELECT id, title, path, kind, extractor, ingested_at, page_starts, headings, "
            "warnings, text, furniture, ocr FROM documents WHERE id = ?",
            [doc_id],
        ).fetchone()
        if row is None:
            raise DocumentNotFoundError(
                f"No document with id {doc_id} in the library; `reader list` shows what is there."
            )
        document = Document(
            id=row[0],
            title=row[1],
            path=row[2],
            kind=row[3],
            extractor=row[4],
            ingested_at=row[5],
            page_starts=json.loads(row[6]),
            headings=[Heading(o, lv, t) for o, lv, t in json.loads(row[7])],
            warnings=json.loads(row[8]),
            text=row[9],
            furniture=list(furniture_from_json(json.loads(row[10]))),
            ocr_pages=[OcrPageInfo(*item) for item in json.loads(row[11])],
        )
        if document.ocr_pages:
            document.ocr_words = ocr_pages.word_confidences(self.db.conn, doc_id)
        return document

    def find_document_ids(self, prefix: str) -> list[str]:
        escaped = prefix.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
        rows = self.db.execute(
            "SELECT id FROM documents WHERE id LIKE ? ESCAPE '\\'", [escaped + "%"]
        ).fetchall()
        return [row[0] for row in rows]

    def titles(self, doc_ids: list[str]) -> dict[str, str]:
        """Titles of the given documents (those still in the library), without their text."""
        if not doc_ids:
            return {}
        marks = ", ".join("?" * len(doc_ids))
        rows = self.db.execute(
            f"SELECT id, title FROM documents WHERE id IN ({marks})", list(doc_ids)
        ).fetchall()
        return {row[0]: row[1] for row in rows}

    def is_empty(self) -> bool:
        """Whether the library holds no document."""
        return self.db.execute("SELECT 1 FROM documents LIMIT 1").fetchone() is None

    def chunk_count(self, doc_id: str) -> int:
        row = self.db.execute("SELECT count(*) FROM chunks WHERE doc_id = ?", [doc_id]).fetchone()
        return int(row[0])

    def chunk_rowid_range(self, doc_id: str) -> tuple[int, int] | None:
        """The lowest and highest rowid of the document's chunks, None if it has none.

        A document's chunks are written together, so the range holds few or no
        other chunks, and a search limited to it reads that part of the index only.
        """
        row = self.db.execute(
            "SELECT min(rowid), max(rowid) FROM chunks WHERE doc_id = ?", [doc_id]
        ).fetchone()
        return None if row[0] is None else (int(row[0]), int(row[1]))

    def answer(self, answer_id: int) -> Answer | None:
        row = self.db.execute("SELECT payload FROM answers WHERE id = ?", [answer_id]).fetchone()
        return answer_from_json(json.loads(row[0]), answer_id) if row else None

    def list_documents(self) -> list[DocumentSummary]:
        rows = self.db.execute(
            "SELECT d.id, d.title, d.path, d.kind, d.pages, d.chars, d.extractor, d.ingested_at, "
            "(SELECT count(*) FROM chunks c WHERE c.doc_id = d.id), d.warnings, "
            # From the OCR table, not the documents row: its columns after ``text``
            # are reached only by reading the whole text.
            "(SELECT json_group_array(o.page) FROM ocr_pages o WHERE o.doc_id = d.id) "
            "FROM documents d ORDER BY d.ingested_at, d.title"
        ).fetchall()
        return [_summary_from_row(row) for row in rows]

    # -- chunks ----------------------------------------------------------------

    def chunks(self, doc_id: str) -> list[Chunk]:
        rows = self.db.execute(
            f"SELECT {_CHUNK_COLUMNS} FROM chunks WHERE doc_id = ? ORDER BY seq", [doc_id]
        ).fetchall()
        return [_chunk_from_row(row) for row in rows]

    def chunks_between(self, doc_id: str, first: int, last: int) -> list[Chunk]:
        """The document's chunks with ``first <= seq <= last``, in order."""
        rows = self.db.execute(
            f"SELECT {_CHUNK_COLUMNS} FROM chunks WHERE doc_id = ? AND seq BETWEEN ? AND ? "
            "ORDER BY seq",
            [doc_id, first, last],
        ).fetchall()
        return [_chunk_from_row(row) for row in rows]

    def page_starts(self, doc_id: str) -> list[int]:
        """Where each page of the document starts, without reading its text."""
        row = self.db.execute("SELECT page_starts FROM documents WHERE id = ?", [doc_id]).fetchone()
        if row is None:
            raise DocumentNotFoundError(
                f"No document with id {doc_id} in the library; `reader list` shows what is there."
            )
        return [int(start) for start in json.loads(row[0])]

    def chunk(self, chunk_id: str) -> Chunk:
        row = self.db.execute(
            f"SELECT {_CHUNK_COLUMNS} FROM chunks WHERE id = ?", [chunk_id]
        ).fetchone()
        if row is None:
            raise ChunkNotFoundError(f"No chunk with id {chunk_id} in the library.")
        return _chunk_from_row(row)

    def term_rarity(self, words: Iterable[str]) -> dict[str, float]:
        """Inverse document frequency of each word over all chunks (BM25's idf).

        Words are looked up by the index's Porter stem; a word no chunk holds
        gets the highest weight.
        """
        total = self.indexed_chunks() or 1
        return {
            word: math.log(1 + (total - found + 0.5) / (found + 0.5))
            for word, found in self.chunks_holding(words).items()
        }

    def chunks_holding(self, words: Iterable[str]) -> dict[str, int]:
        """How many chunks hold each word, looked up by the index's Porter stem."""
        stems = {word: porter_stem(word) for word in words}
        unique = sorted(set(stems.values()))
        found: dict[str, int] = {}
        if unique:
            marks = ", ".join("?" for _ in unique)
            found = dict(
                self.db.execute(
                    f"SELECT term, doc FROM chunks_vocab WHERE term IN ({marks})", unique
                ).fetchall()
            )
        return {word: found.get(stem, 0) for word, stem in stems.items()}

    def indexed_chunks(self) -> int:
        """How many chunks the full-text index holds, without counting them.

        FTS5 keeps the number of rows it indexes (for BM25) at the head of its
        "averages" record (row 1 of ``chunks_fts_data``), a varint; reading it
        costs the same for ten chunks or a million, where ``count(*)`` reads
        every row on every question. Should the record not be there or not
        parse, the rows are counted.
        """
        row = self.db.execute("SELECT block FROM chunks_fts_data WHERE id = 1").fetchone()
        total = _varint(row[0]) if row and isinstance(row[0], bytes) else None
        if total is None:
            total = int(self.db.execute("SELECT count(*) FROM chunks_fts").fetchone()[0])
        return total

    def index_signature(self) -> tuple[bytes, int]:
        """A cheap value that changes whenever chunks are indexed or removed, for
        caches of what the index holds: FTS5's averages record (rows, and tokens
        per column) with the highest chunk rowid (a new chunk's is above it)."""
        row = self.db.execute("SELECT block FROM chunks_fts_data WHERE id = 1").fetchone()
        highest = self.db.execute("SELECT max(rowid) FROM chunks").fetchone()[0]
        averages = row[0] if row and isinstance(row[0], bytes) else b""
        return averages, int(highest or 0)

    def chunks_by_rowid(self, rowids: Iterable[int]) -> dict[int, Chunk]:
        ids = list(rowids)
        if not ids:
            return {}
        marks = ", ".join("?" * len(ids))
        rows = self.db.execute(
            f"SELECT rowid, {_CHUNK_COLUMNS} FROM chunks WHERE rowid IN ({marks})", ids
        ).fetchall()
        return {row[0]: _chunk_from_row(row[1:]) for row in rows}

    # -- answers -------------------------------------------------------------------

    def add_answer(self, answer: Answer) -> int:
        """Record an answer in the history; returns its id."""
        metrics = answer.metrics
        created = answer.created_at or datetime.now(UTC).isoformat(timespec="seconds")
        answer.created_at = created
        conn = self.writing()
        try:
            with conn:
                cursor = conn.execute(
                    "INSERT INTO answers (created_at, question, doc_ids, model, mode, claims, "
                    "exact, fuzzy, miss, grounded, answered, verification_rate, seconds, "
                    "prompt_tokens, completion_tokens, payload) "
                    f"VALUES ({', '.join('?' * 16)})",
                    [
                        created,
                        answer.question,
                        json.dumps(answer.doc_ids),
                        answer.model,
                        answer.mode,
                        metrics.claims,
                        metrics.exact,
                        metrics.fuzzy,
                        metrics.miss,
                        metrics.grounded,
                        answer.not_found is None,
                        metrics.verification_rate,
                        metrics.seconds,
                        metrics.prompt_tokens,
                        metrics.completion_tokens,
                        json.dumps(answer.to_json(), ensure_ascii=False),
                    ],
                )
                answer_id = int(cursor.lastrowid or 0)
                conn.executemany(
                    "INSERT INTO answer_documents (answer_id, doc_id) VALUES (?, ?)",
                    [(answer_id, doc_id) for doc_id in answer.doc_ids],
                )
        except sqlite3.DatabaseError as error:
            raise StoreError(
                f"The answer could not be recorded in the history ({error})"
                + ("; free some disk space." if health.is_disk_full(error) else ".")
            ) from None
        answer.id = answer_id
        return answer_id

    def answers(self, doc_id: str | None = None, limit: int = 50) -> list[Answer]:
        """Stored answers, newest first, as they were recorded."""
        if doc_id is None:
            rows = self.db.execute(
                "SELECT id, payload FROM answers ORDER BY id DESC LIMIT ?", [limit]
            ).fetchall()
        else:
            rows = self.db.execute(
                "SELECT a.id, a.payload FROM answers a JOIN answer_documents d "
                "ON d.answer_id = a.id WHERE d.doc_id = ? ORDER BY a.id DESC LIMIT ?",
                [doc_id, limit],
            ).fetchall()
        return [answer_from_json(json.loads(payload), answer_id) for answer_id, payload in rows]

    def answer_rows(self) -> list[dict[str, object]]:
        """The per-answer figures behind ``reader stats``, oldest first.

        The model's own figures (its claims apart from the evidence shown) are
        read from each answer as recorded; an answer recorded before they were
        kept has them counted from its claims.
        """
        keys = [
            "id",
            "created_at",
            "model",
            "mode",
            "doc_ids",
            "claims",
            "exact",
            "fuzzy",
            "miss",
            "grounded",
            "answered",
            "verification_rate",
            "seconds",
        ]
        rows = self.db.execute(
            f"SELECT {', '.join(keys)}, payload FROM answers ORDER BY id"
        ).fetchall()
        records = []
        for row in rows:
            record = dict(zip(keys, row[:-1], strict=True))
            record["doc_ids"] = json.loads(str(record["doc_ids"]))
            record.update(_model_figures(row[-1]))
            records.append(record)
        return records

    def execute(self, sql: str, parameters: Iterable[object] = ()) -> Iterator[tuple]:
        try:
            yield from self.db.execute(sql, list(parameters))
        except sqlite3.OperationalError as error:
            raise StoreError(f"The library query failed ({error}).") from None


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


def _chunk_from_row(row: tuple) -> Chunk:
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


def _model_figures(payload: object) -> dict[str, int]:
    """The model's claims, verified, supported and re-anchored, and the evidence shown."""
    try:
        data = json.loads(str(payload))
        claims = [c for c in data.get("claims", []) if isinstance(c, dict)]
    except (ValueError, AttributeError):
        claims = []
    made = [c for c in claims if c.get("origin") != "evidence"]
    linked = [c for c in made if c.get("status") in ("exact", "fuzzy")]
    return {
        "model_claims": len(made),
        "model_verified": len(linked),
        "model_supported": sum(bool(c.get("grounded")) for c in linked),
        "reanchored": sum(bool(c.get("reanchored")) for c in linked),
        "evidence_shown": len(claims) - len(made),
    }


def _summary_from_row(row: tuple) -> DocumentSummary:
    doc_id, title, path, kind, pages, chars, extractor, ingested_at, chunks = row[:9]
    return DocumentSummary(
        id=doc_id,
        title=title,
        path=path,
        kind=kind,
        pages=pages,
        chars=chars,
        extractor=extractor,
        ingested_at=ingested_at,
        chunks=chunks,
        warnings=tuple(json.loads(row[9])),
        ocr_pages=tuple(sorted(json.loads(row[10]))),
    )
