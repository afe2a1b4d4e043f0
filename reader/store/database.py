"""Reading and writing the library.

``LibraryStore`` holds the connection: it opens the file (read-only, or refusing
a damaged one, as ``reader.store.file_guard`` judges), gates every write, and gives
the tables' functions the connection. The tables are kept by their own modules:
``documents``, ``chunks``, ``search_index`` (the full-text index), ``ocr_pages``,
``sources`` (the files documents came from) and ``history`` (answers); ``rows``
says how records are kept in those rows.

One ``LibraryStore`` per thread: SQLite connections must not cross threads, so
workers receive the database path and open their own.
"""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Iterable, Iterator
from pathlib import Path

import sqlite_utils

from reader.errors import LibraryDamagedError, LibraryReadOnlyError, StoreError
from reader.records import (
    Answer,
    Chunk,
    Document,
    DocumentSummary,
    OcrBox,
    OcrConfidence,
    PageStarts,
)
from reader.store import chunks, documents, file_guard, history, ocr_pages, search_index
from reader.store.migrations import apply_migrations, pending_migrations
from reader.store.sources import SourceFile, delete_sources, write_source


class LibraryStore:
    """The SQLite database holding documents, chunks and the full-text index.

    A file reader may not write is opened read-only (``read_only``): reading
    works, every write raises ``LibraryReadOnlyError``. A damaged file raises
    ``LibraryDamagedError`` on open, or on the first query that meets the
    damage; from then on nothing is written to it (see ``reader.store.file_guard``).
    ``allow_damaged`` opens a damaged file anyway, for salvage.

    An open store holds the library's lock shared, so a repair (which holds it
    alone) never replaces the file under it; ``lock=False`` is for the repair's
    own stores, opened while it holds the lock.
    """

    def __init__(self, path: str | Path, allow_damaged: bool = False, lock: bool = True) -> None:
        self.path = Path(path)
        # An existing library in a folder reader cannot write is opened read-only.
        with contextlib.suppress(OSError):
            self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = file_guard.share_lock(self.path) if lock else None
        try:
            self._connect(allow_damaged)
        except BaseException:
            self._release_lock()
            raise

    def _connect(self, allow_damaged: bool) -> None:
        if not self.path.exists():
            # Made empty now, the library would hide what a repair left: say so instead.
            evidence = file_guard.repair_evidence(self.path)
            if evidence:
                raise file_guard.missing(self.path, evidence)
        # Why the library cannot be written, when it cannot: then it opens read-only.
        self.read_only_reason: str | None = (
            None if file_guard.writable(self.path) else file_guard.READ_ONLY
        )
        self.db = sqlite_utils.Database(memory=True)
        # Judged before connecting: opening the file creates its journal files.
        unchanged = file_guard.seen_healthy(self.path)
        try:
            try:
                self._open(unchanged, allow_damaged)
            except sqlite3.OperationalError:
                # A full disk cannot take the journal files a writer needs; the
                # library can still be read as it is.
                if self.read_only or not file_guard.disk_full(self.path):
                    raise
                self.db.conn.close()
                self.read_only_reason = file_guard.DISK_FULL
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
        self.connection = file_guard.connect(self.path, self.read_only)
        self.db = sqlite_utils.Database(self.connection)
        try:
            fresh = self.db.execute("SELECT count(*) FROM sqlite_master").fetchone()[0] == 0
        except LibraryDamagedError:
            fresh = False  # the guard has recorded the damage
        if not fresh and self.damage is None and not unchanged:
            self.connection.damage = file_guard.check(self.connection)
        if self.damage is not None and not allow_damaged:
            raise file_guard.damaged(self.path, self.damage)
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
            raise file_guard.damaged(self.path, self.damage)
        if self.read_only_reason == file_guard.DISK_FULL:
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
        try:
            if self.read_only:
                return
            if self.damage is not None:
                file_guard.forget_healthy(self.path)  # the next open checks the file again
            elif seen_healthy:
                file_guard.mark_healthy(self.path)
        finally:
            self._release_lock()  # once closed and stamped: a repair may now replace the file

    def _release_lock(self) -> None:
        file_guard.release_lock(self._lock)
        self._lock = None

    def __enter__(self) -> LibraryStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- documents -----------------------------------------------------------

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
        source_path = source.path if source is not None else None
        try:
            with conn:
                document.title = (
                    documents.user_title(conn, document.id, source_path) or extracted_title
                )
                self.delete_document_rows(document.id)
                documents.insert_document(conn, document, extracted_title)
                ocr_pages.write_pages(conn, document)
                self._insert_chunks(chunks)
                if source is not None:
                    write_source(conn, source)
        except sqlite3.DatabaseError as error:
            document.title = extracted_title
            raise StoreError(
                f"Could not save {document.path} to the library ({error}); nothing was changed"
                + (
                    "; free some disk space and try again."
                    if file_guard.is_disk_full(error)
                    else "."
                )
            ) from None

    def _insert_chunks(self, new_chunks: list[Chunk]) -> None:
        """Write the chunks and their index rows inside the caller's transaction."""
        first_rowid = chunks.insert_chunks(self.db.conn, new_chunks)
        search_index.index_chunks(self.db.conn, first_rowid, new_chunks)

    def delete_document_rows(self, doc_id: str) -> None:
        """Delete a document's row, chunks and index rows inside the caller's transaction."""
        conn = self.db.conn
        search_index.unindex_document(conn, doc_id)  # found by its chunks, so first
        chunks.delete_chunks(conn, doc_id)
        ocr_pages.delete_pages(conn, doc_id)
        documents.delete_document(conn, doc_id)

    def remove_document(self, doc_id: str) -> None:
        with self.writing() as conn:
            self.delete_document_rows(doc_id)
            delete_sources(conn, doc_id)

    def rename_document(self, doc_id: str, title: str | None) -> str:
        """Show the document under ``title`` from now on, or under the title read from
        its file again (``title`` None); returns the title it now has."""
        with self.writing() as conn:
            documents.set_title(conn, doc_id, title)
        shown = self.titles([doc_id]).get(doc_id)
        if shown is None:
            raise documents.not_found(doc_id)
        return shown

    def get_document(self, doc_id: str) -> Document:
        return documents.get_document(self.db.conn, doc_id)

    def document_extractor(self, doc_id: str) -> str | None:
        return documents.extractor(self.db.conn, doc_id)

    def page_map(self, doc_id: str) -> PageStarts:
        """Where each page of the document starts and the number printed on it,
        without reading its text."""
        return documents.page_map(self.db.conn, doc_id)

    def find_document_ids(self, prefix: str) -> list[str]:
        return documents.find_document_ids(self.db.conn, prefix)

    def titles(self, doc_ids: list[str]) -> dict[str, str]:
        """Titles of the given documents (those still in the library), without their text."""
        return documents.titles(self.db.conn, doc_ids)

    def is_empty(self) -> bool:
        """Whether the library holds no document."""
        return documents.is_empty(self.db.conn)

    def list_documents(self) -> list[DocumentSummary]:
        return documents.list_documents(self.db.conn)

    def document_summary(self, doc_id: str) -> DocumentSummary:
        """The document as ``list_documents`` lists it, without its text."""
        return documents.document_summary(self.db.conn, doc_id)

    def ocr_words(self, doc_id: str) -> list[OcrConfidence]:
        """Every word OCR read in the document, with its confidence; none for a text layer."""
        return ocr_pages.word_confidences(self.db.conn, doc_id)

    def ocr_boxes(self, doc_id: str, page: int) -> list[OcrBox | None] | None:
        """A box per character of an OCR'd page's text; None if the page has a text layer."""
        return ocr_pages.page_boxes(self.db.conn, doc_id, page)

    # -- chunks ----------------------------------------------------------------

    def chunks(self, doc_id: str) -> list[Chunk]:
        return chunks.document_chunks(self.db.conn, doc_id)

    def chunks_between(self, doc_id: str, first: int, last: int) -> list[Chunk]:
        """The document's chunks with ``first <= seq <= last``, in order."""
        return chunks.chunks_between(self.db.conn, doc_id, first, last)

    def chunk(self, chunk_id: str) -> Chunk:
        return chunks.chunk(self.db.conn, chunk_id)

    def chunks_by_rowid(self, rowids: Iterable[int]) -> dict[int, Chunk]:
        return chunks.chunks_by_rowid(self.db.conn, rowids)

    def chunk_count(self, doc_id: str) -> int:
        return chunks.chunk_count(self.db.conn, doc_id)

    def chunk_rowid_range(self, doc_id: str) -> tuple[int, int] | None:
        """The lowest and highest rowid of the document's chunks, None if it has none.

        A document's chunks are written together, so the range holds few or no
        other chunks, and a search limited to it reads that part of the index only.
        """
        return chunks.rowid_range(self.db.conn, doc_id)

    # -- the full-text index -----------------------------------------------------

    def rebuild_index(self) -> int:
        """Write the full-text index again from the chunks; returns how many were indexed."""
        with self.writing() as conn:
            indexed = search_index.rebuild(conn)
        self.merge_index()
        return indexed

    def merge_index(self) -> None:
        """Merge the full-text index into one b-tree.

        Every ingested document leaves segments of its own; searching a large
        library over hundreds of them costs about twice as much as over one
        merged b-tree (bench/library.py: 520 ms against 261 ms p50 at 1.1
        million chunks). Merging takes about 13 s at that size, so it follows
        bulk work, not every document.
        """
        with self.writing() as conn:
            search_index.merge(conn)

    def term_rarity(self, words: Iterable[str]) -> dict[str, float]:
        """Inverse document frequency of each word over all chunks (BM25's idf).

        Words are looked up by the index's Porter stem; a word no chunk holds
        gets the highest weight.
        """
        return search_index.term_rarity(self.db.conn, words)

    def chunks_holding(self, words: Iterable[str]) -> dict[str, int]:
        """How many chunks hold each word, looked up by the index's Porter stem."""
        return search_index.chunks_holding(self.db.conn, words)

    def terms_starting(self, prefix: str) -> list[str]:
        """The index's terms (Porter stems) that begin with ``prefix``."""
        return search_index.terms_starting(self.db.conn, prefix)

    def indexed_chunks(self) -> int:
        """How many chunks the full-text index holds, without counting them
        (see ``search_index.indexed_chunks``)."""
        return search_index.indexed_chunks(self.db.conn)

    def index_signature(self) -> tuple[bytes, int]:
        """A cheap value that changes whenever chunks are indexed or removed, for
        caches of what the index holds: FTS5's averages record (rows, and tokens
        per column) with the highest chunk rowid (a new chunk's is above it)."""
        return search_index.signature(self.db.conn)

    # -- answers -------------------------------------------------------------------

    def add_answer(self, answer: Answer) -> int:
        """Record an answer in the history; returns its id."""
        history.date(answer)  # before the write is refused: an unrecorded answer shows its time
        return history.add_answer(self.writing(), answer)

    def answer(self, answer_id: int) -> Answer | None:
        return history.answer(self.db.conn, answer_id)

    def answers(self, doc_id: str | None = None, limit: int = 50) -> list[Answer]:
        """Stored answers, newest first, as they were recorded."""
        return history.answers(self.db.conn, doc_id, limit)

    def answer_rows(self) -> list[dict[str, object]]:
        """The per-answer figures behind ``reader stats``, oldest first.

        The model's own figures (its claims apart from the evidence shown) are
        read from each answer as recorded; an answer recorded before they were
        kept has them counted from its claims.
        """
        return history.answer_rows(self.db.conn)

    # -- any query -------------------------------------------------------------------

    def execute(self, sql: str, parameters: Iterable[object] = ()) -> Iterator[tuple]:
        try:
            yield from self.db.execute(sql, list(parameters))
        except sqlite3.OperationalError as error:
            raise StoreError(f"The library query failed ({error}).") from None
