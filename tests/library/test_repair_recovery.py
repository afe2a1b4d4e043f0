"""A library file missing beside what a repair left: reported by every command, never made
again empty, and recovered by ``reader repair`` from the most complete of what is there."""

from __future__ import annotations

import os
import shutil
import signal
from pathlib import Path

import pytest

from reader.library import Library
from tests.damage import digest, library_of_two_documents, overwrite_pages
from tests.library.test_repair_lock import (
    HeldOutput,
    lock_held,
    reader,
    start_repair,
    wait_for,
    writing_to_a_full_pipe,
)

STAMP = "20260101-120000"


@pytest.fixture
def two_documents(reader_home: Path, tmp_path: Path) -> dict[str, object]:
    return library_of_two_documents(tmp_path)


def assert_reported_missing(home: Path, tmp_path: Path, names: list[str]) -> None:
    """Every command says the file is missing and what a repair left; none makes it."""
    other = tmp_path / "other.txt"
    other.write_text("A document that must not go into a new, empty library.")
    for arguments in (["list"], ["ingest", str(other)], ["search", "mooring"], ["history"]):
        completed = reader(*arguments)
        assert completed.returncode == 2, (arguments, completed)
        lines = completed.stderr.strip().splitlines()
        assert len(lines) == 1, (arguments, completed.stderr)
        assert lines[0].startswith(f"error: The library file {home / 'library.db'} is missing")
        assert "run `reader repair` to recover the library from " + names[0] in lines[0]
        for name in names:
            assert name in lines[0]
        assert not (home / "library.db").exists()


def test_a_missing_library_is_rebuilt_from_its_damaged_copy(two_documents, reader_home, tmp_path):
    path = Path(two_documents["path"])  # type: ignore[arg-type]
    overwrite_pages(path, two_documents["essay_pages"][3:5])  # type: ignore[index]
    # As an older repair killed between its two renames left it: the damaged file
    # renamed, beside it the rebuild it had not yet put in place.
    copy = path.with_name(f"library.db.damaged-{STAMP}")
    path.rename(copy)
    damaged = digest(copy)
    with Library(path.with_name("library.db.repairing")) as rebuild:
        rebuild.ingest(two_documents["letter"])  # type: ignore[arg-type]
    path.with_name("library.db.repairing.lock").unlink(
        missing_ok=True
    )  # this test's, not a repair's

    assert_reported_missing(reader_home, tmp_path, [copy.name, "library.db.repairing"])
    repaired = reader("repair")

    assert repaired.returncode == 0, repaired
    assert repaired.stdout.splitlines()[0] == (
        f"The library file was missing; it was rebuilt from {copy.name}."
    )
    assert "1 kept from the library, 1 re-read from their files, 0 lost" in repaired.stdout
    assert "Answers: 1 kept, 0 lost." in repaired.stdout
    assert digest(copy) == damaged  # the evidence is as it was
    assert sorted(p.name for p in reader_home.iterdir() if "repair" in p.name) == []
    assert not copy.with_name(copy.name + "-wal").exists()
    with Library() as library:
        assert sorted(d.title for d in library.documents()) == ["essay", "letter"]
        assert len(library.store.answers()) == 1
    assert reader("list").returncode == 0


def test_a_finished_rebuild_is_put_in_place(two_documents, reader_home, tmp_path):
    path = Path(two_documents["path"])  # type: ignore[arg-type]
    shutil.copy2(path, path.with_name(f"library.db.damaged-{STAMP}"))
    # A finished rebuild holds what the damaged copy does not: this one, a third document.
    third = tmp_path / "third.txt"
    third.write_text("A third note, about the lamp room and its keeper.")
    with Library() as library:
        library.ingest(third)
    path.rename(path.with_name("library.db.repaired"))

    assert_reported_missing(reader_home, tmp_path, ["library.db.repaired"])
    repaired = reader("repair")

    assert repaired.returncode == 0, repaired
    assert repaired.stdout.strip() == (
        "Finished an interrupted repair: library.db.repaired is the library now."
    )
    with Library() as library:
        assert sorted(d.title for d in library.documents()) == ["essay", "letter", "third"]


def test_a_repair_killed_midway_and_its_library_deleted_leaves_what_it_had_rebuilt(
    two_documents, reader_home, tmp_path
):
    path = Path(two_documents["path"])  # type: ignore[arg-type]
    overwrite_pages(path, two_documents["essay_pages"][3:5])  # type: ignore[index]
    damaged = digest(path)
    held = HeldOutput()
    repair = start_repair(held, tmp_path / "repair.out")
    rebuild = path.with_name("library.db.repairing")
    wait_for(
        lambda: (
            rebuild.exists() and (writing_to_a_full_pipe(repair) or lock_held(path, alone=True))
        ),
        repair,
    )
    os.kill(repair.pid, signal.SIGKILL)
    assert repair.wait() == -signal.SIGKILL
    os.close(held.read_end)
    assert digest(path) == damaged  # killed mid-way, the repair changed nothing
    path.unlink()  # and then the user deletes the damaged library

    assert_reported_missing(reader_home, tmp_path, ["library.db.repairing"])
    repaired = reader("repair")

    assert repaired.returncode == 0, repaired
    assert repaired.stdout.splitlines()[0] == (
        "The library file was missing; library.db.repairing, which an interrupted repair had "
        "not finished, is the library now: ingest again any document it had not reached."
    )
    assert not rebuild.exists()
    listing = reader("list")
    assert listing.returncode == 0, listing
    again = reader("ingest", str(two_documents["letter"]))
    assert again.returncode == 0 and "added" in again.stdout, again
