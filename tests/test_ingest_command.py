"""``reader ingest FOLDER``, ``reader list --stale`` and ``reader ingest --update`` as a
user runs them: the real command in a subprocess."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

import pymupdf
import pytest

from reader.config import library_path
from reader.ingest import document_id
from reader.library import Library
from tests.library.test_batch import make_folder, paragraphs, record_answer
from tests.test_cli import run


def many_pdfs(folder: Path, count: int, pages: int = 8) -> Path:
    folder.mkdir(parents=True)
    for number in range(count):
        document = pymupdf.open()
        for page_number in range(pages):
            page = document.new_page()
            text = f"Paper {number}, page {page_number}. " + "The fee is due monthly. " * 40
            page.insert_textbox(pymupdf.Rect(72, 72, 523, 800), text, fontsize=10)
        document.save(folder / f"paper-{number:02d}.pdf")
        document.close()
    return folder


def json_lines(text: str) -> list[dict]:
    return [json.loads(line) for line in text.splitlines()]


@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGKILL], ids=["ctrl-c", "kill"])
def test_an_interrupted_ingest_keeps_what_finished_and_the_next_run_adds_the_rest(tmp_path, stop):
    folder = many_pdfs(tmp_path / "papers", 30)
    process = subprocess.Popen(
        [sys.executable, "-m", "reader.cli", "ingest", str(folder), "--workers", "2"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        # Ctrl+C as a terminal gives it, also where this suite runs with SIGINT ignored
        # (started in the background by a shell without job control).
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    assert process.stderr is not None
    # Stopped once the first file is stored. Files are read largest first and their
    # lines told in the folder's order, so the first line on stdout can come when
    # every file is read; the progress on stderr counts files as they are stored.
    first = process.stderr.readline()
    assert first.startswith("ingest: 1/30 files, 8 pages"), first
    process.send_signal(stop)
    _out, err = process.communicate(timeout=60)  # the workers end with their parent
    if stop == signal.SIGINT:
        assert process.returncode == 130, err
        assert "interrupted; the documents finished are kept" in err
        assert "Traceback" not in err
    else:
        assert process.returncode == -signal.SIGKILL
    kept = {d["id"] for d in json_lines(run("list", "--json").stdout)[0]}
    assert 1 <= len(kept) < 30

    again = run("ingest", str(folder), "--json")
    assert again.returncode == 0, again.stderr
    outcomes = json_lines(again.stdout)
    assert {o["doc_id"] for o in outcomes if o["state"] == "unchanged"} == kept
    assert sum(o["state"] == "added" for o in outcomes) == 30 - len(kept)
    with sqlite3.connect(library_path()) as db:
        documents = db.execute("SELECT count(*), count(DISTINCT path) FROM documents").fetchone()
        orphans = db.execute(
            "SELECT count(*) FROM chunks WHERE doc_id NOT IN (SELECT id FROM documents)"
        ).fetchone()[0]
        indexed = db.execute("SELECT count(*) FROM chunks_fts").fetchone()[0]
        chunks = db.execute("SELECT count(*) FROM chunks").fetchone()[0]
    assert documents == (30, 30) and orphans == 0 and indexed == chunks


def test_a_folder_with_refused_files_reports_them_at_the_end_and_exits_2(tmp_path):
    root = make_folder(tmp_path / "library")
    (root / "empty.pdf").write_bytes(b"")
    completed = run("ingest", str(root))
    assert completed.returncode == 2
    assert completed.stdout.count(": added, ") == 4
    lines = completed.stderr.splitlines()
    assert "ingest: 4 added, 0 unchanged, 1 refused (7 pages in " in completed.stderr
    assert f"  refused: {root / 'empty.pdf'}: empty.pdf is empty (0 bytes)" in lines[-1]
    assert "ingest: 5/5 files, 7 pages" in completed.stderr
    assert "Traceback" not in completed.stderr


def test_glob_exclude_and_no_recursive_from_the_command(tmp_path):
    root = make_folder(tmp_path / "library")
    completed = run("ingest", str(root), "--glob", "*.pdf", "--exclude", "reports", "--json")
    assert [Path(o["path"]).name for o in json_lines(completed.stdout)] == ["alpha.pdf"]
    completed = run("ingest", str(root), "--no-recursive", "--json")
    assert [Path(o["path"]).name for o in json_lines(completed.stdout)] == [
        "alpha.pdf",
        "notes.md",
    ]
    nothing = run("ingest", str(root), "--glob", "*.djvu")
    assert nothing.returncode == 2
    assert nothing.stderr == (
        f"error: {root} holds no files matching *.djvu; give --glob PATTERN to choose "
        "other files.\n"
    )


def test_stale_documents_are_listed_and_update_moves_the_history_to_the_new_version(tmp_path):
    root = make_folder(tmp_path / "library")
    assert run("ingest", str(root)).returncode == 0
    notes = root / "notes.md"
    old_id = document_id(notes)
    with Library() as library:
        record_answer(library, old_id, ["the fee for item 2 is 14 dollars"])
    notes.write_text("Revised.\n\n" + paragraphs("delta", 4), encoding="utf-8")
    new_id = document_id(notes)

    listed = run("list", "--stale")
    assert listed.returncode == 0
    assert listed.stdout.startswith(f"{old_id}  changed  notes  {notes}")
    assert json_lines(run("list", "--stale", "--json").stdout)[0] == [
        {"doc_id": old_id, "title": "notes", "path": str(notes), "state": "changed"}
    ]

    update = run("ingest", "--update", str(root), "--json")
    assert update.returncode == 0, update.stderr
    [updated] = [o for o in json_lines(update.stdout) if o["state"] == "updated"]
    assert updated["doc_id"] == new_id and updated["replaced"] == [old_id]
    assert updated["answers_moved"] == 1
    assert run("list", "--stale").stdout == ""
    ids = {d["id"] for d in json_lines(run("list", "--json").stdout)[0]}
    assert new_id in ids and old_id not in ids

    [answer] = json_lines(run("history", "--json").stdout)[0]
    assert answer["doc_ids"] == [new_id]
    [claim] = answer["claims"]
    assert claim["status"] == "exact" and claim["doc_id"] == new_id
    assert claim["reason"].startswith("re-anchored")


def test_a_changed_file_without_update_is_added_and_reported_as_changed(tmp_path):
    root = make_folder(tmp_path / "library")
    run("ingest", str(root))
    (root / "notes.md").write_text(paragraphs("delta", 2), encoding="utf-8")
    completed = run("ingest", str(root))
    assert completed.returncode == 0
    note = "changed since it was ingested; --update replaces the old version"
    assert "notes.md: added, 1 page," in completed.stdout and note in completed.stdout
    assert f"  changed: {root / 'notes.md'}: {note}" in completed.stderr.splitlines()


def reader_bytes(*args: str) -> subprocess.CompletedProcess[bytes]:
    """The real command, its output kept as bytes to check that it is UTF-8."""
    return subprocess.run([sys.executable, "-m", "reader.cli", *args], capture_output=True)


def test_a_file_name_that_is_not_utf8_is_ingested_listed_and_shown_escaped(tmp_path):
    folder = many_pdfs(tmp_path / "papers", 2, pages=1)
    assert run("ingest", str(folder)).returncode == 0
    others = json_lines(run("list", "--json").stdout)[0]
    odd = Path(os.fsdecode(os.fsencode(folder) + b"/bad-\xff\xfe-name.md"))
    odd.write_text(paragraphs("epsilon"), encoding="utf-8")
    shown = f"{folder}/bad-\\xff\\xfe-name.md"

    text = run("ingest", str(folder))
    assert text.returncode == 0, text.stderr
    assert f"{shown}: added, 1 page, " in text.stdout
    assert text.stdout.count(": already in the library, ") == 2
    assert "ingest: 1 added, 2 unchanged, 0 refused" in text.stderr
    assert "Traceback" not in text.stderr

    listed = run("list").stdout.splitlines()
    assert len(listed) == 3 and listed[-1].endswith(
        f"  bad \ufffd\ufffd name  (1 page, 1 chunk)  {shown}"
    )
    # JSON stays UTF-8: the name's stray bytes are written as text; the others are as they were.
    as_json = reader_bytes("list", "--json")
    [documents] = json_lines(as_json.stdout.decode("utf-8"))
    assert documents[:2] == others
    assert documents[2]["path"] == shown and documents[2]["title"] == "bad \ufffd\ufffd name"

    again = reader_bytes("ingest", str(folder), "--json")
    states = [line["state"] for line in json_lines(again.stdout.decode("utf-8"))]
    assert again.returncode == 0 and states == ["unchanged"] * 3
    assert run("list", "--stale").stdout == ""

    odd.write_text(paragraphs("epsilon", 3), encoding="utf-8")
    stale = run("list", "--stale")
    assert stale.stdout == f"{documents[2]['id']}  changed  bad \ufffd\ufffd name  {shown}\n"
    [stale_json] = json_lines(reader_bytes("list", "--stale", "--json").stdout.decode("utf-8"))
    assert [(d["path"], d["state"]) for d in stale_json] == [(shown, "changed")]


def test_a_pdf_whose_name_is_not_utf8_is_ingested(tmp_path):
    folder = many_pdfs(tmp_path / "papers", 1, pages=1)
    bad = os.fsencode(folder) + b"/bad-\xff\xfe-name.pdf"
    with open(bad, "wb") as stream:
        stream.write((folder / "paper-00.pdf").read_bytes() + b"\n% another copy")
    text = run("ingest", str(folder))
    assert text.returncode == 0, text.stderr
    assert f"{folder}/bad-\\xff\\xfe-name.pdf: added, 1 page, " in text.stdout
