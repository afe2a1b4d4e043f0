"""Libraries that cannot be written: a read-only folder, a full disk, a write that fails."""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from reader.answer import Answerer
from reader.errors import LibraryReadOnlyError
from reader.library import Library

LETTER = "\n\n".join(
    f"Paragraph {n}: the harbour authority charged {n * 7} crowns for each mooring in spring."
    for n in range(30)
)
QUESTION = "How many crowns did the harbour authority charge for each mooring?"


def in_mount_namespace(
    setup: str, *steps: list[str] | str
) -> list[subprocess.CompletedProcess[str]]:
    """Run ``setup`` (shell) then each step in a private mount namespace.

    A step is a reader command (its results are returned, in order) or a shell
    line. Root needs no user namespace; anyone else maps themselves to root in one.
    """
    python = shlex.quote(sys.executable)
    lines = ["set -e", setup, "set +e"]
    commands = [step for step in steps if isinstance(step, list)]
    number = -1  # counted, not looked up: the same command may run twice
    for step in steps:
        if isinstance(step, str):
            lines.append(step)
            continue
        number += 1
        arguments = " ".join(shlex.quote(a) for a in step)
        lines.append(
            f"{python} -m reader.cli {arguments} >out{number} 2>err{number}; echo $? >rc{number}"
        )
    flags = ["--mount"] if os.geteuid() == 0 else ["--mount", "--map-root-user"]
    work = Path(os.environ["READER_HOME"]).parent / "namespace-output"
    work.mkdir(exist_ok=True)
    completed = subprocess.run(
        ["unshare", *flags, "sh", "-c", "\n".join(lines)],
        cwd=work,
        capture_output=True,
        text=True,
    )
    assert completed.returncode == 0, completed.stderr
    return [
        subprocess.CompletedProcess(
            command,
            int((work / f"rc{n}").read_text()),
            (work / f"out{n}").read_text(),
            (work / f"err{n}").read_text(),
        )
        for n, command in enumerate(commands)
    ]


@pytest.fixture
def letter_library(reader_home: Path, tmp_path: Path) -> dict[str, str]:
    letter = tmp_path / "letter.txt"
    letter.write_text(LETTER, encoding="utf-8")
    with Library() as library:
        doc_id = library.ingest(letter).doc_id
        Answerer(library, None, mode="passages").ask(QUESTION, [doc_id])
    return {"doc_id": doc_id, "path": str(letter)}


def test_a_read_only_library_can_be_read_searched_and_asked(letter_library, reader_home, tmp_path):
    other = tmp_path / "other.txt"
    other.write_text("A document that cannot be added to a read-only library.")
    before = sorted(p.name for p in reader_home.iterdir())
    home = shlex.quote(str(reader_home))
    doc_id = letter_library["doc_id"]

    listing, text, search, ask, history, ingest = in_mount_namespace(
        f"mount --bind {home} {home}; mount -o remount,ro,bind {home}",
        ["list"],
        ["text", doc_id],
        ["search", "mooring crowns"],
        ["ask", letter_library["path"], QUESTION, "--no-model"],
        ["history"],
        ["ingest", str(other)],
    )

    for completed in (listing, text, search, ask, history):
        assert completed.returncode == 0, completed
        assert "cannot be written (the file or its folder is read-only)" in completed.stderr
    assert doc_id in listing.stdout
    assert text.stdout == LETTER
    assert "mooring" in search.stdout
    assert "[1] p.1:" in ask.stdout and "(exact; evidence)" in ask.stdout
    assert "note: this answer is not recorded: the file or its folder is read-only" in ask.stderr
    assert QUESTION in history.stdout
    assert ingest.returncode == 2
    assert ingest.stderr.strip().splitlines()[-1].startswith("error: The library at")
    assert "is read-only" in ingest.stderr and "READER_HOME" in ingest.stderr
    assert sorted(p.name for p in reader_home.iterdir()) == before
    with Library() as library:  # the history holds only the answer asked before
        assert len(library.store.answers()) == 1


def test_on_a_full_disk_ask_gives_the_answer_and_says_it_was_not_recorded(tmp_path, monkeypatch):
    home = tmp_path / "small-disk"
    home.mkdir()
    monkeypatch.setenv("READER_HOME", str(home))
    letter = tmp_path / "letter.txt"
    letter.write_text(LETTER, encoding="utf-8")
    second = tmp_path / "second.txt"
    second.write_text("A second letter, about the lighthouse and its keeper.", encoding="utf-8")
    quoted = shlex.quote(str(home))
    ingest, ask, ingest_again = in_mount_namespace(
        f"mount -t tmpfs -o size=2m tmpfs {quoted}",
        ["ingest", str(letter)],
        f"dd if=/dev/zero of={quoted}/filler bs=4096 2>/dev/null",  # the disk fills up
        ["ask", str(letter), QUESTION, "--no-model"],
        ["ingest", str(second)],
    )
    assert ingest.returncode == 0, ingest
    assert ask.returncode == 0, ask
    assert "crowns for each mooring" in ask.stdout and "(exact; evidence)" in ask.stdout
    assert "note: this answer is not recorded: the disk is full" in ask.stderr
    assert ingest_again.returncode == 2
    assert "the disk is full; free some disk space" in ingest_again.stderr


def test_a_write_that_finds_the_disk_full_keeps_the_answer(letter_library):
    with Library() as library:
        # SQLite's own "database or disk is full", at the size the file has now; the
        # question is long enough that its answer cannot fit in the room left in a page.
        pages = library.store.db.execute("PRAGMA page_count").fetchone()[0]
        library.store.db.execute(f"PRAGMA max_page_count = {pages}")
        question = "What did each mooring cost in spring? " + "Say it exactly, please. " * 400
        answer = Answerer(library, None, mode="passages").ask(question, [letter_library["doc_id"]])
        assert answer.claims and answer.claims[0].verified
        assert answer.not_recorded is not None
        assert "could not be recorded" in answer.not_recorded
        assert "free some disk space" in answer.not_recorded
        assert len(library.store.answers()) == 1


def test_writing_to_a_read_only_store_is_refused_before_anything_is_written(letter_library):
    with Library() as library:
        library.store.read_only_reason = "the file or its folder is read-only"
        with pytest.raises(LibraryReadOnlyError, match="READER_HOME"):
            library.remove(letter_library["doc_id"])
        library.store.read_only_reason = None
        assert len(library.documents()) == 1


def test_a_folder_ingest_into_a_read_only_library_stops_before_reading_a_file(
    letter_library, reader_home, tmp_path
):
    folder = tmp_path / "more"
    folder.mkdir()
    for n in range(3):
        (folder / f"note-{n}.txt").write_text(f"Note {n} about the harbour and its moorings.")
    home = shlex.quote(str(reader_home))
    (ingest,) = in_mount_namespace(
        f"mount --bind {home} {home}; mount -o remount,ro,bind {home}",
        ["ingest", str(folder), "--workers", "2"],
    )
    assert ingest.returncode == 2
    lines = ingest.stderr.strip().splitlines()
    assert lines[-1].startswith("error: The library at") and "is read-only" in lines[-1]
    # Nothing was read only to be refused: no file is named, no summary of refusals.
    assert "note-" not in ingest.stderr and "refused" not in ingest.stderr


def test_a_folder_ingest_on_a_full_disk_stops_with_one_message(tmp_path, monkeypatch):
    home = tmp_path / "small-disk"
    home.mkdir()
    monkeypatch.setenv("READER_HOME", str(home))
    letter = tmp_path / "letter.txt"
    letter.write_text(LETTER, encoding="utf-8")
    folder = tmp_path / "more"
    folder.mkdir()
    for n in range(3):
        (folder / f"note-{n}.txt").write_text(f"Note {n} about the harbour and its moorings.")
    quoted = shlex.quote(str(home))
    ingest, ingest_folder = in_mount_namespace(
        f"mount -t tmpfs -o size=2m tmpfs {quoted}",
        ["ingest", str(letter)],
        f"dd if=/dev/zero of={quoted}/filler bs=4096 2>/dev/null",  # the disk fills up
        ["ingest", str(folder), "--workers", "2"],
    )
    assert ingest.returncode == 0, ingest
    assert ingest_folder.returncode == 2
    assert "the disk is full; free some disk space" in ingest_folder.stderr.splitlines()[-1]
    assert "refused" not in ingest_folder.stderr
