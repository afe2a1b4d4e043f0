"""`reader text`: the canonical text exactly when piped, safe to show on a terminal."""

from __future__ import annotations

import os
import pty
import subprocess
import sys
import threading

import pytest

from reader.library import Library
from tests.conftest import corpus_dir

pytestmark = pytest.mark.corpus

# The WHO guidelines print a BEL after each bullet.
WHO = "pymupdf-test-3820-who-hcv-155p.pdf"


def on_a_terminal(*args: str) -> bytes:
    """What the command writes to a pseudo-terminal (its output and its errors)."""
    master, slave = pty.openpty()
    process = subprocess.Popen(
        [sys.executable, "-m", "reader.cli", *args], stdout=slave, stderr=slave
    )
    os.close(slave)
    received = bytearray()

    def read() -> None:
        while True:
            try:
                piece = os.read(master, 65536)
            except OSError:  # the other end closed
                return
            if not piece:
                return
            received.extend(piece)

    reader_thread = threading.Thread(target=read)
    reader_thread.start()
    assert process.wait(timeout=120) == 0
    reader_thread.join(timeout=30)
    os.close(master)
    return bytes(received)


def test_piped_text_is_the_canonical_text_and_a_terminal_gets_no_control_characters():
    with Library() as library:
        document = library.document(library.ingest(corpus_dir() / "pdf" / WHO).doc_id)
    assert "\x07" in document.text
    piped = subprocess.run(
        [sys.executable, "-m", "reader.cli", "text", document.id], capture_output=True, check=True
    )
    assert piped.stdout.decode("utf-8") == document.text
    shown = on_a_terminal("text", document.id)
    assert b"\x07" not in shown and b"\x1b" not in shown
    assert "Laboratory-based HCV reflex testing" in shown.decode("utf-8")


def test_any_start_of_a_document_id_names_it_and_a_shared_one_is_ambiguous(library, tmp_path):
    from collections import Counter

    from reader.errors import DocumentNotFoundError

    ids = []
    for number in range(20):  # 20 ids over 16 first digits: two share one
        path = tmp_path / f"note{number}.txt"
        path.write_text(f"Note {number} says the harbour froze in {1700 + number}.")
        ids.append(library.ingest(path).doc_id)
    starts = Counter(doc_id[:3] for doc_id in ids)
    unique = next(doc_id for doc_id in ids if starts[doc_id[:3]] == 1)
    assert library.resolve(unique[:3]).id == unique
    assert library.resolve(unique[:3].upper()).id == unique
    firsts = Counter(doc_id[0] for doc_id in ids)
    shared = next(first for first, count in firsts.items() if count > 1)
    with pytest.raises(DocumentNotFoundError, match="is ambiguous: it starts the ids of"):
        library.resolve(shared)
    with pytest.raises(DocumentNotFoundError, match="neither a file nor a document id"):
        library.resolve("harbour")


def test_on_a_terminal_the_text_ends_its_last_line_and_piped_it_is_unchanged(library, tmp_path):
    path = tmp_path / "note.txt"
    path.write_text("The harbour froze in 1709.")  # no line break at the end
    document = library.document(library.ingest(path).doc_id)
    assert not document.text.endswith("\n")
    piped = subprocess.run(
        [sys.executable, "-m", "reader.cli", "text", document.id], capture_output=True, check=True
    )
    assert piped.stdout.decode("utf-8") == document.text
    # Before, the shell's prompt ran on from "1709.".
    assert on_a_terminal("text", document.id).endswith(b"1709.\r\n")


def test_an_empty_library_says_how_to_add_documents():
    listed = subprocess.run(
        [sys.executable, "-m", "reader.cli", "list"], capture_output=True, text=True, check=True
    )
    assert listed.stdout == ""
    assert "The library is empty: add documents with `reader ingest" in listed.stderr
    as_json = subprocess.run(
        [sys.executable, "-m", "reader.cli", "list", "--json"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert as_json.stdout.strip() == "[]" and as_json.stderr == ""
