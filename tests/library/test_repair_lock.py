"""A repair and the library's other users, as real processes: nothing written while it runs
is lost at its swap.

A process is held at a real point by the pipe it prints to: a pipe filled before the
process starts blocks its first line of output, so a repair waits at its first
progress step (holding the library's lock) and an ingest at its first "added" line
(holding the library open), until the test reads the pipe.
"""

from __future__ import annotations

import fcntl
import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from reader.library import Library
from reader.store import file_guard
from tests.damage import library_of_two_documents, overwrite_pages

READER = [sys.executable, "-m", "reader.cli"]


def reader(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*READER, *args], capture_output=True, text=True)


class HeldOutput:
    """A pipe already full: the process writing to it stops at its first write."""

    def __init__(self) -> None:
        self.read_end, self.write_end = os.pipe()
        os.set_blocking(self.write_end, False)
        try:
            while True:
                os.write(self.write_end, b"." * 4096)
        except BlockingIOError:
            pass
        os.set_blocking(self.write_end, True)
        self.text = ""
        self._reader: threading.Thread | None = None

    def started(self) -> None:
        os.close(self.write_end)  # the child holds its own copy

    def release(self) -> None:
        """Read the pipe from now on, so the process goes on; ``text`` gets what it wrote."""

        def drain() -> None:
            chunks = []
            while chunk := os.read(self.read_end, 65536):
                chunks.append(chunk)
            os.close(self.read_end)
            self.text = b"".join(chunks).lstrip(b".").decode()

        self._reader = threading.Thread(target=drain)
        self._reader.start()

    def join(self) -> str:
        assert self._reader is not None
        self._reader.join()
        return self.text


def lock_held(library: Path, alone: bool) -> bool:
    """Whether another process holds the library's lock: alone (a repair), or at all."""
    try:
        descriptor = os.open(library.with_name(library.name + ".lock"), os.O_RDONLY)
    except FileNotFoundError:
        return False
    try:
        fcntl.flock(descriptor, (fcntl.LOCK_SH if alone else fcntl.LOCK_EX) | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(descriptor)
    return False


def writing_to_a_full_pipe(process: subprocess.Popen[str]) -> bool:
    """Whether the process is stopped at its first line of output (its kernel wait channel)."""
    try:
        return "pipe_write" in Path(f"/proc/{process.pid}/wchan").read_text()
    except OSError:
        return False


def wait_for(condition: Callable[[], bool], process: subprocess.Popen[str]) -> None:
    """Wait until ``condition`` holds while ``process`` runs (a bound only against a hang)."""
    deadline = time.monotonic() + 120
    while not condition():
        assert process.poll() is None, "the process ended before reaching the point"
        assert time.monotonic() < deadline, "the process never reached the point"
        time.sleep(0.05)


def start_repair(held: HeldOutput, output: Path) -> subprocess.Popen[str]:
    with output.open("w") as stdout:
        process = subprocess.Popen([*READER, "repair"], stdout=stdout, stderr=held.write_end)
    held.started()
    return process


@pytest.fixture
def damaged_unnoticed(reader_home: Path, tmp_path: Path) -> dict[str, object]:
    """A library damaged since it was last seen healthy: a writer opening it notices
    nothing (no check), and writes, until a query meets the damage."""
    library = library_of_two_documents(tmp_path)
    path = Path(library["path"])  # type: ignore[arg-type]
    overwrite_pages(path, library["essay_pages"][3:5])  # type: ignore[index]
    file_guard.mark_healthy(path)
    return library


def test_an_ingest_during_a_repair_is_refused_and_nothing_reported_added_is_lost(
    damaged_unnoticed, tmp_path
):
    path = Path(damaged_unnoticed["path"])  # type: ignore[arg-type]
    other = tmp_path / "other.txt"
    other.write_text("A note about the harbour ledger, ingested while the repair runs.")
    held = HeldOutput()
    repair = start_repair(held, tmp_path / "repair.out")
    # At its first step, with (once it takes one) the library's lock.
    wait_for(lambda: writing_to_a_full_pipe(repair) or lock_held(path, alone=True), repair)

    letter_id = str(damaged_unnoticed["letter_id"])
    during = [reader("ingest", str(other)), reader("list"), reader("rename", letter_id, "x")]

    held.release()
    assert repair.wait() == 0, held.join()
    assert "repair: document: letter" in held.join()
    for completed in during:
        assert completed.returncode == 2, completed
        assert completed.stderr.strip().splitlines() == [
            "error: A repair of the library is running; try again when it finishes."
        ]
    assert "added" not in during[0].stdout
    after = reader("ingest", str(other))
    assert after.returncode == 0 and "added" in after.stdout, after
    with Library() as library:
        titles = sorted(document.title for document in library.documents())
    assert titles == ["essay", "letter", "other"]


def test_a_repair_is_refused_while_an_ingest_has_the_library_open(damaged_unnoticed, tmp_path):
    path = Path(damaged_unnoticed["path"])  # type: ignore[arg-type]
    folder = tmp_path / "notes"
    folder.mkdir()
    for n in range(3):
        (folder / f"note-{n}.txt").write_text(f"Note {n}: the quay was mended in year {n}.")
    held = HeldOutput()
    with (tmp_path / "ingest.err").open("w") as stderr:
        ingest = subprocess.Popen(
            [*READER, "ingest", str(folder), "--workers", "1"],
            stdout=held.write_end,
            stderr=stderr,
        )
    held.started()
    # At its first "added" line, with the library open.
    wait_for(lambda: writing_to_a_full_pipe(ingest) or lock_held(path, alone=False), ingest)

    refused = reader("repair")

    held.release()
    assert ingest.wait() == 0, (tmp_path / "ingest.err").read_text()
    added = [line for line in held.join().splitlines() if ": added" in line]
    assert len(added) == 3, held.text
    assert refused.returncode == 2, refused
    assert refused.stderr.strip().splitlines()[-1] == (
        f"error: The library at {path} is open in another reader (the window, or an ingest "
        "still running); close it or let it finish, then run `reader repair` again."
    )
    repaired = reader("repair")
    assert repaired.returncode == 0, repaired
    assert "Repaired the library" in repaired.stdout
    with Library() as library:
        ids = {document.id for document in library.documents()}
    assert {line.split()[0] for line in added} <= ids  # every document reported added
    assert len(ids) == 5
