"""Numbered schema migrations, applied in order, each in its own transaction."""

from __future__ import annotations

import json
from collections.abc import Callable

import sqlite_utils

Migration = Callable[[sqlite_utils.Database], None]
MIGRATIONS: dict[int, Migration] = {}


def migration(number: int) -> Callable[[Migration], Migration]:
    def register(function: Migration) -> Migration:
        if number in MIGRATIONS:
            raise ValueError(f"migration {number} is registered twice")
        MIGRATIONS[number] = function
        return function

    return register


def pending_migrations(db: sqlite_utils.Database) -> list[int]:
    """The migrations the file has not had yet (all of them for a new file)."""
    if not db["_migrations"].exists():
        return sorted(MIGRATIONS)
    applied = {row[0] for row in db.execute("SELECT number FROM _migrations").fetchall()}
    return [number for number in sorted(MIGRATIONS) if number not in applied]


def apply_migrations(db: sqlite_utils.Database) -> list[int]:
    """Apply every migration not yet recorded; return the numbers applied."""
    db.execute(
        "CREATE TABLE IF NOT EXISTS _migrations (number INTEGER PRIMARY KEY, applied_at TEXT)"
    )
    applied = {row[0] for row in db.execute("SELECT number FROM _migrations").fetchall()}
    done = []
    for number in sorted(MIGRATIONS):
        if number in applied:
            continue
        # Python's sqlite3 opens a transaction only before a row is written, so a
        # migration's ALTER TABLE would be committed on its own: a process killed
        # before the migration is recorded would leave a file that fails it next time.
        db.execute("BEGIN IMMEDIATE")
        try:
            MIGRATIONS[number](db)
            db.execute(
                "INSERT INTO _migrations (number, applied_at) VALUES (?, datetime('now'))",
                [number],
            )
        except BaseException:
            db.conn.rollback()
            raise
        db.conn.commit()
        done.append(number)
    return done


@migration(1)
def create_documents_and_chunks(db: sqlite_utils.Database) -> None:
    db.execute(
        """
        CREATE TABLE documents (
            id TEXT PRIMARY KEY,
            title TEXT NOT NULL,
            path TEXT NOT NULL,
            kind TEXT NOT NULL,
            pages INTEGER NOT NULL,
            chars INTEGER NOT NULL,
            extractor TEXT NOT NULL,
            ingested_at TEXT NOT NULL,
            page_starts TEXT NOT NULL,
            headings TEXT NOT NULL,
            warnings TEXT NOT NULL,
            text TEXT NOT NULL
        )
        """
    )
    db.execute(
        """
        CREATE TABLE chunks (
            rowid INTEGER PRIMARY KEY,
            id TEXT NOT NULL UNIQUE,
            doc_id TEXT NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
            seq INTEGER NOT NULL,
            start INTEGER NOT NULL,
            "end" INTEGER NOT NULL,
            text TEXT NOT NULL,
            heading TEXT NOT NULL,
            page_start INTEGER NOT NULL,
            page_end INTEGER NOT NULL
        )
        """
    )
    db.execute("CREATE INDEX chunks_by_document ON chunks (doc_id, seq)")
    # The index keeps its own copy of the text in search form (see
    # reader.text.words.search_form), so it is not an external-content table.
    db.execute(
        "CREATE VIRTUAL TABLE chunks_fts USING fts5("
        "text, heading, tokenize = 'unicode61 remove_diacritics 2')"
    )


@migration(2)
def create_answers(db: sqlite_utils.Database) -> None:
    """Answer history: what was asked, what came back, how much of it verified."""
    db.execute(
        """
        CREATE TABLE answers (
            id INTEGER PRIMARY KEY,
            created_at TEXT NOT NULL,
            question TEXT NOT NULL,
            doc_ids TEXT NOT NULL,
            model TEXT NOT NULL,
            mode TEXT NOT NULL,
            claims INTEGER NOT NULL,
            exact INTEGER NOT NULL,
            fuzzy INTEGER NOT NULL,
            miss INTEGER NOT NULL,
            verification_rate REAL,
            seconds REAL NOT NULL,
            prompt_tokens INTEGER NOT NULL,
            completion_tokens INTEGER NOT NULL,
            payload TEXT NOT NULL
        )
        """
    )
    db.execute("CREATE INDEX answers_by_time ON answers (created_at)")
    db.execute(
        "CREATE TABLE answer_documents (answer_id INTEGER NOT NULL "
        "REFERENCES answers(id) ON DELETE CASCADE, doc_id TEXT NOT NULL)"
    )
    db.execute("CREATE INDEX answer_documents_by_doc ON answer_documents (doc_id)")


@migration(3)
def stem_the_index(db: sqlite_utils.Database) -> None:
    """Index words by their Porter stem, so "licensing" finds "licences".

    The index is rebuilt from the chunks table in place; the search form of
    each chunk is recomputed the way ``LibraryStore`` writes it.
    """
    from reader.text.words import search_form

    db.execute("DROP TABLE chunks_fts")
    db.execute(
        "CREATE VIRTUAL TABLE chunks_fts USING fts5("
        "text, heading, tokenize = 'porter unicode61 remove_diacritics 2')"
    )
    # How many chunks hold each stem: the rarity weights of evidence choice.
    db.execute("CREATE VIRTUAL TABLE IF NOT EXISTS chunks_vocab USING fts5vocab(chunks_fts, row)")
    rows = db.execute("SELECT rowid, text, heading FROM chunks").fetchall()
    db.conn.executemany(
        "INSERT INTO chunks_fts (rowid, text, heading) VALUES (?, ?, ?)",
        (
            (rowid, search_form(text), search_form(" > ".join(json.loads(heading))))
            for rowid, text, heading in rows
        ),
    )


@migration(4)
def answers_grounded(db: sqlite_utils.Database) -> None:
    """Per answer: how many claims were grounded, and whether it answered at all."""
    db.execute("ALTER TABLE answers ADD COLUMN grounded INTEGER NOT NULL DEFAULT 0")
    db.execute("ALTER TABLE answers ADD COLUMN answered INTEGER NOT NULL DEFAULT 1")


@migration(5)
def page_furniture(db: sqlite_utils.Database) -> None:
    """Page furniture (running heads, page numbers, footnote markers) as ranges of the
    canonical text, per document and per chunk; documents ingested before have none
    until they are ingested again."""
    db.execute("ALTER TABLE documents ADD COLUMN furniture TEXT NOT NULL DEFAULT '[]'")
    db.execute("ALTER TABLE chunks ADD COLUMN furniture TEXT NOT NULL DEFAULT '[]'")


@migration(6)
def source_files(db: sqlite_utils.Database) -> None:
    """Where each document's file is, with the size and modification time it had when
    ingested, so an unchanged file is known again by ``stat`` alone, without reading it.

    Documents ingested before are recorded at their last path with no size or time:
    the first look at each reads it once.
    """
    db.execute(
        """
        CREATE TABLE source_files (
            path TEXT PRIMARY KEY,
            doc_id TEXT NOT NULL,
            size INTEGER,
            mtime_ns INTEGER
        )
        """
    )
    db.execute("CREATE INDEX source_files_by_doc ON source_files (doc_id)")
    db.execute("INSERT OR IGNORE INTO source_files (path, doc_id) SELECT path, id FROM documents")


@migration(7)
def ocr_pages(db: sqlite_utils.Database) -> None:
    """Pages read by OCR: per document, which pages, how sure the engine was, and
    per page the confidence of each word and a box per character (zlib-compressed
    JSON), which draw a quote on the page image as a text layer's boxes do."""
    db.execute("ALTER TABLE documents ADD COLUMN ocr TEXT NOT NULL DEFAULT '[]'")
    db.execute(
        """
        CREATE TABLE ocr_pages (
            doc_id TEXT NOT NULL,
            page INTEGER NOT NULL,
            words BLOB NOT NULL,
            boxes BLOB NOT NULL,
            PRIMARY KEY (doc_id, page)
        )
        """
    )


@migration(8)
def extracted_titles(db: sqlite_utils.Database) -> None:
    """The title read from the file, beside the title shown (``title``), which is the
    user's when they renamed the document: a title differing from the file's own is
    the user's, and a new ingest of the file keeps it. Documents stored before were
    never renamed."""
    db.execute("ALTER TABLE documents ADD COLUMN extracted_title TEXT NOT NULL DEFAULT ''")
    db.execute("UPDATE documents SET extracted_title = title")


@migration(9)
def page_labels(db: sqlite_utils.Database) -> None:
    """The number printed on each page, from a PDF's page labels; documents stored
    before show their pages' own numbers until they are read again."""
    db.execute("ALTER TABLE documents ADD COLUMN page_labels TEXT NOT NULL DEFAULT '[]'")
