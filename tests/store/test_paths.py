"""Paths are data: a file name in any bytes the file system allows is stored,
found again and read back as Python names the file."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

from reader.library import Library
from reader.library.batch import ingest_paths
from reader.library.repair import repair_library
from reader.library.stale import stale_documents
from reader.records import Chunk, Document
from reader.store import LibraryStore
from reader.store.rows import path_from_value, path_value
from reader.store.sources import SourceFile, document_sources, recorded_at, recorded_file
from tests.damage import damage_document_records, library_of_two_documents, overwrite_pages

# A name in Latin-1, as an old archive or a Windows share gives it: Python holds
# the bytes that are not UTF-8 as surrogates.
LATIN1 = os.fsdecode(b"/papers/r\xe9sum\xe9-\xff.txt")
TEXT = "The harbour authority charged seven crowns for each mooring in spring."


def document(doc_id: str, path: str, title: str = "r\ufffdsum\ufffd") -> Document:
    return Document(
        id=doc_id,
        title=title,
        path=path,
        kind="text",
        text=TEXT,
        page_starts=[0],
        extractor="text-1",
    )


def add(store: LibraryStore, doc_id: str, path: str, size: int = 70) -> None:
    store.add_document(
        document(doc_id, path),
        [Chunk(f"{doc_id}-c0", doc_id, 0, 0, len(TEXT), TEXT)],
        source=SourceFile(path, doc_id, size, 1_700_000_000_000_000_000),
    )


def stored_forms(db: Path) -> set[tuple[str, str]]:
    """Each stored path's SQLite type, in both tables."""
    with sqlite3.connect(db) as connection:
        rows = connection.execute(
            "SELECT typeof(path), 'documents' FROM documents "
            "UNION SELECT typeof(path), 'source_files' FROM source_files"
        ).fetchall()
    connection.close()
    return set(rows)


def test_a_path_that_is_not_utf8_is_kept_as_its_bytes_and_utf8_as_text():
    assert path_value(LATIN1) == b"/papers/r\xe9sum\xe9-\xff.txt"
    assert path_from_value(path_value(LATIN1)) == LATIN1
    assert path_value("/papers/résumé.txt") == "/papers/résumé.txt"
    assert path_from_value("/papers/résumé.txt") == "/papers/résumé.txt"


def test_the_store_keeps_finds_and_lists_a_document_whose_path_is_not_utf8(tmp_path):
    with LibraryStore(tmp_path / "library.db") as store:
        add(store, "doc1", LATIN1)
        add(store, "doc2", "/papers/plain.txt")

        assert {d.id: d.path for d in store.list_documents()} == {
            "doc1": LATIN1,
            "doc2": "/papers/plain.txt",
        }
        assert store.get_document("doc1").path == LATIN1
        assert store.document_summary("doc1").path == LATIN1
        found = recorded_file(store, LATIN1)
        assert found is not None and found.source.doc_id == "doc1"
        assert found.source.path == LATIN1 and found.extractor == "text-1"
        assert recorded_at(store, LATIN1) == found.source
        assert document_sources(store)["doc1"] == [found.source]
    assert stored_forms(tmp_path / "library.db") == {
        ("text", "documents"),
        ("blob", "documents"),
        ("text", "source_files"),
        ("blob", "source_files"),
    }


def test_a_new_version_of_a_file_whose_name_is_not_utf8_keeps_the_title_given(tmp_path):
    with LibraryStore(tmp_path / "library.db") as store:
        add(store, "old", LATIN1)
        store.rename_document("old", "My résumé")
        add(store, "new", LATIN1, size=71)  # the file saved anew, found by its path
        assert store.titles(["new"]) == {"new": "My résumé"}
        assert recorded_at(store, LATIN1) == SourceFile(
            LATIN1, "new", 71, 1_700_000_000_000_000_000
        )


def test_repair_keeps_a_document_whose_path_is_not_utf8_at_that_path(reader_home, tmp_path):
    two = library_of_two_documents(tmp_path)
    letter = Path(os.fsdecode(os.fsencode(tmp_path) + b"/lettre-\xe9\xff.txt"))
    Path(two["letter"]).rename(letter)  # type: ignore[arg-type]
    with Library() as library:
        assert ingest_paths(library, [letter]).count("unchanged") == 1
    overwrite_pages(Path(two["path"]), two["essay_pages"][3:5])  # type: ignore[arg-type]

    report = repair_library()

    assert report.damage is not None and report.kept == ["letter"]
    with Library() as library:
        assert library.document(str(two["letter_id"])).path == str(letter)
        assert stale_documents(library) == []
        again = ingest_paths(library, [letter])
    assert [outcome.state for outcome in again.outcomes] == ["unchanged"]


def test_repair_reads_again_a_document_whose_record_is_unreadable_from_a_path_not_utf8(
    reader_home, tmp_path
):
    two = library_of_two_documents(tmp_path)
    letter = Path(os.fsdecode(os.fsencode(tmp_path) + b"/lettre-\xe9\xff.txt"))
    Path(two["letter"]).rename(letter)  # type: ignore[arg-type]
    with Library() as library:
        assert ingest_paths(library, [letter]).count("unchanged") == 1
    path = Path(two["path"])  # type: ignore[arg-type]
    damage_document_records(path)

    report = repair_library()

    assert report.lost == []
    # Its title is read again from its file, whose name it now comes from.
    assert sorted(report.reextracted) == ["essay", "lettre \ufffd\ufffd"]
    with Library() as library:
        assert library.document(str(two["letter_id"])).path == str(letter)
