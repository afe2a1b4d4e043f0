import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from reader.errors import CorruptDocumentError, StoreError
from reader.library import Library
from reader.store import LibraryStore
from reader.store.migrations import MIGRATIONS

TEXT = "\n\n".join(
    f"Paragraph {n} explains topic {n} in some detail. It has a second sentence too."
    for n in range(60)
)


def test_migrations_are_recorded_and_not_reapplied(reader_home):
    path = reader_home / "library.db"
    with LibraryStore(path) as store:
        numbers = [row[0] for row in store.db.execute("SELECT number FROM _migrations")]
    assert numbers == sorted(MIGRATIONS)
    with LibraryStore(path) as store:  # opening again applies nothing new
        count = store.db.execute("SELECT count(*) FROM _migrations").fetchone()[0]
    assert count == len(MIGRATIONS)


def test_ingest_stores_document_chunks_and_index(library, make_file):
    result = library.ingest(make_file("a.txt", TEXT.encode()))
    assert result.added and result.chunks > 1
    document = library.document(result.doc_id)
    assert document.text == TEXT
    chunks = library.chunks(result.doc_id)
    assert all(TEXT[c.start : c.end] == c.text for c in chunks)
    indexed = library.store.db.execute("SELECT count(*) FROM chunks_fts").fetchone()[0]
    assert indexed == len(chunks)


def test_ingesting_the_same_file_twice_is_a_no_op(library, make_file):
    path = make_file("a.txt", TEXT.encode())
    first = library.ingest(path)
    stamp = library.document(first.doc_id).ingested_at
    second = library.ingest(path)
    assert not second.added
    assert second.doc_id == first.doc_id
    assert library.document(first.doc_id).ingested_at == stamp
    assert library.store.db.execute("SELECT count(*) FROM documents").fetchone()[0] == 1


def test_ids_survive_reingest_and_changes_to_other_files(library, make_file, tmp_path):
    path = make_file("a.txt", TEXT.encode())
    first = library.ingest(path)
    ids = [c.id for c in library.chunks(first.doc_id)]
    other = make_file("b.txt", b"Another document entirely. With words.")
    library.ingest(other)
    other.rename(tmp_path / "b-renamed.txt")
    library.ingest(tmp_path / "b-renamed.txt")
    library.remove(library.ingest(tmp_path / "b-renamed.txt").doc_id)
    # A fresh library built from scratch gives the same ids.
    with Library(tmp_path / "second.db") as fresh:
        again = fresh.ingest(path)
        assert again.doc_id == first.doc_id
        assert [c.id for c in fresh.chunks(again.doc_id)] == ids
    assert [c.id for c in library.chunks(first.doc_id)] == ids


def test_a_changed_extractor_reingests_and_keeps_unchanged_chunk_ids(library, make_file):
    path = make_file("a.txt", TEXT.encode())
    result = library.ingest(path)
    ids = [c.id for c in library.chunks(result.doc_id)]
    with library.store.db.conn:
        library.store.db.execute("UPDATE documents SET extractor = 'old-extractor'")
    again = library.ingest(path)
    assert again.added
    assert library.document(result.doc_id).extractor != "old-extractor"
    assert [c.id for c in library.chunks(result.doc_id)] == ids


def test_a_failed_ingest_leaves_the_library_as_it_was(library, make_file):
    good = library.ingest(make_file("good.txt", TEXT.encode()))
    with pytest.raises(CorruptDocumentError):
        library.ingest(make_file("bad.pdf", b"not a pdf" * 100))
    assert [d.id for d in library.documents()] == [good.doc_id]


def test_process_killed_mid_ingest_leaves_no_half_document(reader_home, make_file):
    good = make_file("good.txt", b"A document that is safely stored. It stays.")
    big = make_file("big.txt", TEXT.encode())
    script = f"""
import os
from reader.library import Library
from reader.store.database import LibraryStore

library = Library()
library.ingest({str(good)!r})
original = LibraryStore._insert_chunks

def insert_then_die(self, chunks):
    original(self, chunks)  # rows written inside the open transaction
    os._exit(9)

LibraryStore._insert_chunks = insert_then_die
library.ingest({str(big)!r})
"""
    completed = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert completed.returncode == 9, completed.stderr
    with Library() as library:
        documents = library.documents()
        assert [d.path for d in documents] == [str(good.resolve())]
        counts = library.store.db.execute(
            "SELECT (SELECT count(*) FROM chunks), (SELECT count(*) FROM chunks_fts)"
        ).fetchone()
        assert counts[0] == counts[1] == len(library.chunks(documents[0].id))
        assert library.ingest(big).added  # and it ingests cleanly afterwards


def test_a_file_that_is_not_a_database_is_a_damaged_library(tmp_path):
    path = tmp_path / "library.db"
    path.write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(StoreError, match=r"is damaged .*reader repair"):
        LibraryStore(path)
    assert path.read_bytes() == b"this is not sqlite" * 100


def test_headings_and_warnings_round_trip(library, make_pdf):
    path = make_pdf(
        [[("Intro", 18), "Some text here."], [], [("Next", 18), "More text."]],
        toc=[[1, "Intro", 1], [1, "Next", 3]],
    )
    result = library.ingest(path)
    document = library.document(result.doc_id)
    assert [h.title for h in document.headings] == ["Intro", "Next"]
    assert document.warnings and "page 2 cannot be searched" in document.warnings[0]
    listed = library.documents()[0]
    assert listed.pages == 3 and listed.chunks == len(library.chunks(result.doc_id))
    raw = sqlite3.connect(library.store.path).execute("SELECT headings FROM documents")
    assert json.loads(raw.fetchone()[0])[1][2] == "Next"


def test_library_path_follows_reader_home(reader_home):
    with Library() as library:
        assert Path(library.store.path) == reader_home / "library.db"


KILLED_IN_A_MIGRATION = """
import os, signal, sys
from pathlib import Path
from reader.store import LibraryStore
from reader.store.migrations import MIGRATIONS

def killed_after(migration):
    def run(db):
        migration(db)
        os.kill(os.getpid(), signal.SIGKILL)  # before the migration is recorded
    return run

MIGRATIONS[4] = killed_after(MIGRATIONS[4])
LibraryStore(Path(sys.argv[1]))
"""


def test_a_process_killed_inside_a_migration_leaves_it_to_be_applied_again(reader_home):
    path = reader_home / "library.db"
    killed = subprocess.run([sys.executable, "-c", KILLED_IN_A_MIGRATION, str(path)])
    assert killed.returncode == -9

    with sqlite3.connect(path) as connection:
        applied = [row[0] for row in connection.execute("SELECT number FROM _migrations")]
        columns = [row[1] for row in connection.execute("PRAGMA table_info(answers)")]
    assert applied == [1, 2, 3]
    assert "grounded" not in columns  # the migration's first change went with it

    with LibraryStore(path) as store:  # and the next open applies it whole
        numbers = [row[0] for row in store.db.execute("SELECT number FROM _migrations")]
        columns = [row[1] for row in store.db.execute("PRAGMA table_info(answers)")]
    assert numbers == sorted(MIGRATIONS)
    assert "grounded" in columns and "answered" in columns
