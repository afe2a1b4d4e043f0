"""A damaged library: detected, never written to, and repaired with a report of what was lost."""

from __future__ import annotations

import random
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from reader.answer import Answerer
from reader.errors import LibraryDamagedError
from reader.library import Library
from reader.library.repair import repair_library
from reader.store import LibraryStore, file_guard
from tests.damage import (
    ESSAY,
    damage_document_records,
    digest,
    library_of_two_documents,
    overwrite_pages,
)


def reader(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "reader.cli", *args], capture_output=True, text=True
    )


@pytest.fixture
def two_documents(reader_home: Path, tmp_path: Path) -> dict[str, object]:
    return library_of_two_documents(tmp_path)


def test_every_command_reports_a_damaged_library_in_one_line_and_writes_nothing(
    two_documents, tmp_path
):
    path = two_documents["path"]
    size = path.stat().st_size
    with path.open("r+b") as handle:  # 4 KiB of noise in the middle of the file
        handle.seek(size // 2 // 4096 * 4096)
        handle.write(random.Random(3).randbytes(4096))
    damaged_bytes = digest(path)
    other = tmp_path / "other.txt"
    other.write_text("Another document that must not be added to a damaged library.")
    letter_id = str(two_documents["letter_id"])
    for arguments in (
        ["list"],
        ["text", letter_id],
        ["chunks", letter_id],
        ["search", "mooring"],
        ["ask", letter_id, "How many crowns?", "--no-model"],
        ["history"],
        ["stats"],
        ["ingest", str(other)],
    ):
        completed = reader(*arguments)
        assert completed.returncode == 2, (arguments, completed)
        lines = completed.stderr.strip().splitlines()
        assert len(lines) == 1, (arguments, completed.stderr)
        assert "is damaged" in lines[0] and "reader repair" in lines[0], lines[0]
        assert "unexpectedly" not in lines[0]
    assert digest(path) == damaged_bytes


def test_damage_met_after_opening_stops_every_later_write(two_documents, tmp_path):
    path = two_documents["path"]
    overwrite_pages(path, two_documents["essay_pages"][5:6])
    file_guard.mark_healthy(path)  # as if the damage happened after the last check
    damaged_bytes = digest(path)
    other = tmp_path / "other.txt"
    other.write_text("A short document that would be written if nothing noticed the damage.")
    with Library() as library:
        with pytest.raises(LibraryDamagedError, match="reader repair"):
            library.document(str(two_documents["essay_id"]))
        with pytest.raises(LibraryDamagedError):
            library.ingest(other)
        answer = Answerer(library, None, mode="passages").ask(
            "How many crowns per mooring?", [str(two_documents["letter_id"])]
        )
        assert answer.claims  # reading what is sound still works
        assert answer.not_recorded is not None and "reader repair" in answer.not_recorded
    assert digest(path) == damaged_bytes
    assert not file_guard.seen_healthy(path)  # a damaged session never stamps the file healthy


def test_repair_keeps_sound_documents_and_rereads_a_damaged_one_from_its_file(two_documents):
    path = two_documents["path"]
    overwrite_pages(path, two_documents["essay_pages"][3:5])
    damaged_bytes = digest(path)

    report = repair_library()

    assert report.damage is not None
    assert report.kept == ["letter"]
    assert report.reextracted == ["essay"]
    assert report.lost == []
    assert report.chunk_ids_compared >= len(two_documents["essay_chunks"])
    assert report.chunk_ids_changed == 0
    assert report.answers_kept == 1 and report.answers_lost == 0
    assert report.damaged_copy is not None and digest(report.damaged_copy) == damaged_bytes
    with Library() as library:
        essay_id = str(two_documents["essay_id"])
        assert library.document(essay_id).text == ESSAY
        assert [c.id for c in library.chunks(essay_id)] == two_documents["essay_chunks"]
        hits = library.search("lighthouse storms", doc_id=essay_id)
        assert hits
        verification = library.verifier(essay_id).verify("Lighthouse keepers logged 99 storms")
        assert verification.status == "exact"
        assert len(library.store.answers()) == 1
    completed = reader("list")
    assert completed.returncode == 0 and "essay" in completed.stdout


def test_repair_says_which_documents_were_lost(two_documents):
    path = two_documents["path"]
    overwrite_pages(path, two_documents["essay_pages"][3:5])
    Path(two_documents["essay"]).unlink()  # type: ignore[arg-type]

    completed = reader("repair")

    assert completed.returncode == 0, completed.stderr
    assert "1 kept from the library, 0 re-read from their files, 1 lost" in completed.stdout
    assert f"lost: essay ({two_documents['essay_id']})" in completed.stdout
    assert "is gone" in completed.stdout
    assert "Answers: 1 kept, 0 lost." in completed.stdout
    with Library() as library:
        assert [d.id for d in library.documents()] == [two_documents["letter_id"]]


def test_repair_of_a_sound_library_rebuilds_its_index(two_documents):
    path = two_documents["path"]
    with sqlite3.connect(path) as connection:  # an index that lost its rows
        connection.execute("DELETE FROM chunks_fts")
    connection.close()
    with Library() as library:
        assert library.search("mooring") == []

    report = repair_library()

    assert report.damage is None and report.damaged_copy is None
    assert "not damaged" in report.lines()[0]
    with Library() as library:
        assert library.search("mooring")
        assert len(library.documents()) == 2


def test_a_library_that_cannot_be_read_at_all_is_replaced_and_kept(reader_home):
    reader_home.mkdir(parents=True, exist_ok=True)
    path = reader_home / "library.db"
    path.write_bytes(b"not a database at all " * 400)
    report = repair_library()
    assert report.kept == [] and report.lost == []
    assert report.damaged_copy is not None
    assert report.damaged_copy.read_bytes() == b"not a database at all " * 400
    with LibraryStore(path) as store:
        assert store.list_documents() == []


def test_repair_keeps_what_ocr_read_on_a_scanned_document(two_documents, make_scan):
    scan = make_scan(
        [
            [
                "Harbour notice. The harbour master collects eleven crowns for each mooring "
                "and keeps the ledger in the stone house by the quay."
            ]
        ],
        name="notice.pdf",
        dpi=200,
    ).path
    with Library() as library:
        scan_id = library.ingest(scan).doc_id
        before = library.document(scan_id)
        boxes_before = library.store.ocr_boxes(scan_id, 1)
    assert before.ocr_page_numbers() == [1] and before.ocr_words and boxes_before
    overwrite_pages(Path(two_documents["path"]), two_documents["essay_pages"][3:5])  # type: ignore[arg-type]

    report = repair_library()

    assert report.damage is not None
    assert before.title in report.kept and "essay" in report.reextracted
    with Library() as library:
        after = library.document(scan_id)
        assert after.text == before.text
        assert after.ocr_pages == before.ocr_pages
        assert after.ocr_words == before.ocr_words
        assert library.store.ocr_boxes(scan_id, 1) == boxes_before
        assert library.search("mooring ledger", doc_id=scan_id)


def test_the_library_file_is_never_missing_while_the_repair_swaps_it_in(two_documents, monkeypatch):
    """Before every file operation of the swap, the library is at its path: a process
    killed at any of those instants leaves the old library or the new one there."""
    import os as os_module
    import shutil

    import reader.library.repair_swap

    path = two_documents["path"]
    overwrite_pages(path, two_documents["essay_pages"][3:5])
    damaged = digest(path)
    seen: list[bool] = []

    def checked(operation):
        def run(*args, **kwargs):
            rebuilds = (
                Path(path).with_name(Path(path).name + s) for s in (".repairing", ".repaired")
            )
            if any(rebuild.exists() for rebuild in rebuilds):
                seen.append(Path(path).exists())
            return operation(*args, **kwargs)

        return run

    monkeypatch.setattr(reader.library.repair_swap.os, "link", checked(os_module.link))
    monkeypatch.setattr(shutil, "copy2", checked(shutil.copy2))
    monkeypatch.setattr(Path, "replace", checked(Path.replace))
    monkeypatch.setattr(Path, "unlink", checked(Path.unlink))
    report = repair_library()
    assert seen and all(seen), seen
    assert report.damaged_copy is not None and digest(report.damaged_copy) == damaged
    with Library() as library:
        assert len(library.documents()) == 2


def test_repair_keeps_the_printed_page_numbers(two_documents, tmp_path):
    from tests.ingest.test_page_labels import ROMAN_THEN_ARABIC, labelled_pdf

    with Library() as library:
        labelled_id = library.ingest(labelled_pdf(tmp_path, ROMAN_THEN_ARABIC)).doc_id
    overwrite_pages(Path(two_documents["path"]), two_documents["essay_pages"][3:5])  # type: ignore[arg-type]

    report = repair_library()

    assert report.damage is not None and "labelled" in report.kept
    with Library() as library:
        assert library.document(labelled_id).page_labels == ["i", "ii", "1", "2"]


def test_a_document_whose_record_is_unreadable_is_read_again_from_its_recorded_file(
    two_documents,
):
    path = Path(two_documents["path"])  # type: ignore[arg-type]
    damage_document_records(path)
    with pytest.raises(LibraryDamagedError):
        Library()

    report = repair_library()

    assert report.lost == []
    assert sorted(report.reextracted) == ["essay", "letter"]
    assert report.chunk_ids_changed == 0 and report.chunk_ids_compared > 0
    assert "  re-read from its file: letter" in report.lines()
    with Library() as library:
        essay_id = str(two_documents["essay_id"])
        assert library.document(essay_id).text == ESSAY
        assert [c.id for c in library.chunks(essay_id)] == two_documents["essay_chunks"]
        assert {d.id for d in library.documents()} == {essay_id, two_documents["letter_id"]}
        assert len(library.store.answers()) == 1
