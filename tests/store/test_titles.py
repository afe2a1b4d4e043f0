"""A document renamed by the user: shown so everywhere, kept when its file is read again."""

from __future__ import annotations

import sqlite3

import pytest

from reader.errors import DocumentNotFoundError, ReaderError
from reader.ingest.ocr import OcrSettings
from reader.library import Library
from reader.library.batch import ingest_paths
from reader.library.stale import stale_documents
from reader.store import LibraryStore

NOTES = b"# Introduction\n\nThe harbour fee is four guilders a tide.\n"


def test_a_renamed_document_is_shown_so_everywhere(library, make_file):
    doc_id = library.ingest(make_file("harbour-notes.md", NOTES)).doc_id
    assert library.document(doc_id).title == "harbour notes"
    assert library.rename(doc_id, "  Harbour   Fees of Utrecht ") == "Harbour Fees of Utrecht"
    assert library.document(doc_id).title == "Harbour Fees of Utrecht"
    assert library.store.titles([doc_id]) == {doc_id: "Harbour Fees of Utrecht"}
    assert [record.title for record in library.documents()] == ["Harbour Fees of Utrecht"]


def test_a_rename_survives_reading_the_file_again(library, make_pdf):
    path = make_pdf([[("Proposed Rules", 20.0), "The fee is four guilders a tide."]])
    doc_id = library.ingest(path, ocr=OcrSettings("never")).doc_id
    library.rename(doc_id, "Harbour Fees")
    again = library.ingest(path, ocr=OcrSettings("always"))  # read again, by OCR
    assert again.added and again.title == "Harbour Fees"
    assert library.document(doc_id).title == "Harbour Fees"
    # ... and an unchanged file ingested once more is reported under it too
    (outcome,) = ingest_paths(library, [path]).outcomes
    assert (outcome.state, outcome.title) == ("unchanged", "Harbour Fees")


def test_a_rename_moves_to_the_new_version_of_the_file(library, make_file):
    path = make_file("notes.md", NOTES)
    old_id = library.ingest(path).doc_id
    library.rename(old_id, "Harbour Fees")
    path.write_bytes(NOTES + b"\nThe fee doubled in 1710.\n")
    assert [stale.state for stale in stale_documents(library)] == ["changed"]
    (outcome,) = ingest_paths(library, [path], update=True).outcomes
    assert outcome.state == "updated" and outcome.doc_id != old_id
    assert outcome.title == "Harbour Fees"
    assert library.store.titles([outcome.doc_id]) == {outcome.doc_id: "Harbour Fees"}


def test_reset_shows_the_files_own_title_again_and_reading_takes_it_anew(library, make_file):
    path = make_file("harbour-notes.md", NOTES)
    doc_id = library.ingest(path).doc_id
    library.rename(doc_id, "Harbour Fees")
    assert library.rename(doc_id, None) == "harbour notes"
    assert library.ingest(path, ocr=OcrSettings("always")).title == "harbour notes"


def test_a_title_must_have_words_and_a_document(library, make_file):
    doc_id = library.ingest(make_file("notes.md", NOTES)).doc_id
    with pytest.raises(ReaderError, match="cannot be empty"):
        library.rename(doc_id, " \n ")
    with pytest.raises(ReaderError, match="at most 200"):
        library.rename(doc_id, "x" * 201)
    with pytest.raises(DocumentNotFoundError):
        library.rename("0123456789abcdef", "Harbour Fees")


def test_a_library_from_before_keeps_its_titles_as_the_files_own(tmp_path, make_file):
    database = tmp_path / "library.db"
    with Library(database) as library:
        doc_id = library.ingest(make_file("harbour-notes.md", NOTES)).doc_id
    # the library as the previous version left it: no column, migration 8 not applied
    connection = sqlite3.connect(database)
    with connection:
        connection.execute("ALTER TABLE documents DROP COLUMN extracted_title")
        connection.execute("DELETE FROM _migrations WHERE number = 8")
    connection.close()
    with LibraryStore(database) as store:
        row = store.db.execute(
            "SELECT title, extracted_title FROM documents WHERE id = ?", [doc_id]
        ).fetchone()
    assert row == ("harbour notes", "harbour notes")
