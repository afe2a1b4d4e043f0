"""What is at a path is told apart before anything opens it."""

from __future__ import annotations

import os
import socket
import threading
from pathlib import Path

import pytest

from reader.errors import (
    DanglingLinkError,
    FileMissingError,
    IngestError,
    LinkLoopError,
    NotAFileError,
)
from reader.ingest.extract import extract
from reader.ingest.files import check_document_file


def refusal(path: Path, error: type[IngestError]) -> str:
    with pytest.raises(error) as raised:
        check_document_file(path)
    message = str(raised.value)
    assert "\n" not in message
    return message


def test_a_readable_file_passes(tmp_path: Path):
    path = tmp_path / "notes.txt"
    path.write_text("Some notes.")
    assert check_document_file(str(path)) == path


def test_a_link_to_a_file_passes(tmp_path: Path):
    (tmp_path / "notes.txt").write_text("Some notes.")
    (tmp_path / "link.txt").symlink_to("notes.txt")
    assert check_document_file(tmp_path / "link.txt") == tmp_path / "link.txt"


def test_nothing_there(tmp_path: Path):
    message = refusal(tmp_path / "nope.pdf", FileMissingError)
    assert "no such file" in message


def test_a_path_through_a_file_is_no_such_file(tmp_path: Path):
    (tmp_path / "plain.txt").write_text("x")
    assert "no such file" in refusal(tmp_path / "plain.txt" / "inner.pdf", FileMissingError)


def test_a_folder(tmp_path: Path):
    assert "is a folder; give the files inside it" in refusal(tmp_path, NotAFileError)


def test_a_dangling_link_names_its_missing_target(tmp_path: Path):
    (tmp_path / "paper.pdf").symlink_to("moved/away.pdf")
    message = refusal(tmp_path / "paper.pdf", DanglingLinkError)
    assert f"symbolic link to {tmp_path / 'moved' / 'away.pdf'}, which does not exist" in message


def test_a_chain_of_links_names_the_last_missing_target(tmp_path: Path):
    (tmp_path / "first.pdf").symlink_to("second.pdf")
    (tmp_path / "second.pdf").symlink_to("gone.pdf")
    assert str(tmp_path / "gone.pdf") in refusal(tmp_path / "first.pdf", DanglingLinkError)


def test_a_link_loop(tmp_path: Path):
    (tmp_path / "a.pdf").symlink_to("b.pdf")
    (tmp_path / "b.pdf").symlink_to("a.pdf")
    assert "loops back on itself" in refusal(tmp_path / "a.pdf", LinkLoopError)


def test_a_loop_in_a_folder_of_the_path(tmp_path: Path):
    (tmp_path / "here").symlink_to("here")
    assert "loops back" in refusal(tmp_path / "here" / "doc.pdf", LinkLoopError)


def test_a_named_pipe_is_refused_without_waiting_for_a_writer(tmp_path: Path):
    fifo = tmp_path / "pipe.txt"
    os.mkfifo(fifo)
    messages: list[str] = []
    # Opening a FIFO for reading blocks until someone writes; the check must not.
    checker = threading.Thread(target=lambda: messages.append(refusal(fifo, NotAFileError)))
    checker.start()
    checker.join(timeout=30)
    if checker.is_alive():
        with open(fifo, "wb"):  # unblock the thread before failing
            pass
        pytest.fail("checking a named pipe blocked")
    assert "named pipe (FIFO)" in messages[0]


@pytest.mark.parametrize("device", ["/dev/null", "/dev/zero"])
def test_devices(device: str):
    assert "is a device, not a document" in refusal(Path(device), NotAFileError)


def test_a_link_to_a_device(tmp_path: Path):
    (tmp_path / "book.epub").symlink_to("/dev/zero")
    assert "is a device" in refusal(tmp_path / "book.epub", NotAFileError)


def test_a_socket(tmp_path: Path):
    path = tmp_path / "reader.sock"
    with socket.socket(socket.AF_UNIX) as listener:
        listener.bind(str(path))
        assert "is a socket, not a document" in refusal(path, NotAFileError)


def test_extract_classifies_too(tmp_path: Path):
    os.mkfifo(tmp_path / "pipe.pdf")
    with pytest.raises(NotAFileError, match="named pipe"):
        extract(tmp_path / "pipe.pdf")
