"""Every command, on a library whose file names, titles and text carry terminal
escapes, bidi overrides, bare carriage returns and line breaks: the raw bytes
written to the terminal hold none of them (the payloads are shown as text)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pymupdf
import pytest

from reader.library import Library

# Colours, an OSC 8 link, an OSC 0 window title, an OSC 52 clipboard write, BEL, an
# 8-bit CSI, a right-to-left override, a bare carriage return and a line break that
# would forge an "added" line.
PAYLOAD = (
    "\x1b[31mred\x1b[0m \x1b]8;;http://evil.example\x07link\x1b]8;;\x07 "
    "\x1b]0;owned\x07 \x1b]52;c;ZWNobyBvd25lZA==\x07 \x07 \x9b31m \u202egnp.exe\u202c "
    "x\rforged"
)
NAME_PAYLOAD = "\x1b[31mred\x1b[0m \x07 \u202egnp \rback\n0123456789abcdef  x: added"
FORBIDDEN = ["\x1b", "\x07", "\x9b", "\u202e", "\u202c", "\r"]


@pytest.fixture
def hostile_library(reader_home: Path, tmp_path: Path) -> dict[str, str]:
    folder = tmp_path / "docs"
    folder.mkdir()
    path = folder / f"report {NAME_PAYLOAD}.pdf"
    with pymupdf.open() as document:
        page = document.new_page()
        page.insert_text((72, 72), "The harbour froze in the winter of 1709.", fontsize=11)
        page.insert_text((72, 100), "Ships stayed in port for six weeks.", fontsize=11)
        document.set_metadata({"title": f"Harbour {PAYLOAD}", "author": PAYLOAD})
        document.save(path)
    with Library() as library:
        doc_id = library.ingest(path).doc_id
    return {"path": str(path), "doc_id": doc_id, "folder": str(folder)}


def run(*args: str) -> tuple[int, str]:
    completed = subprocess.run(
        [sys.executable, "-m", "reader.cli", *args], capture_output=True, timeout=300
    )
    return completed.returncode, (completed.stdout + completed.stderr).decode("utf-8")


def commands(library: dict[str, str]) -> list[list[str]]:
    doc_id, path = library["doc_id"], library["path"]
    question = "How long did the ships stay in port?"
    return [
        ["ingest", library["folder"]],
        ["ingest", path],
        ["ingest", library["folder"], "--json"],
        ["list"],
        ["list", "--json"],
        ["list", "--stale"],
        ["text", doc_id],
        ["chunks", doc_id],
        ["chunks", doc_id, "--json"],
        ["search", "harbour"],
        ["search", "harbour", "--json"],
        ["verify", doc_id, "--quote", "Ships stayed in port"],
        ["verify", doc_id, "--quote", "Ships stayed in port", "--json"],
        ["ask", doc_id, question, "--no-model"],
        ["ask", "--library", question, "--no-model"],
        ["ask", doc_id, question, "--no-model", "--json"],
        ["history"],
        ["history", "--json"],
        ["stats"],
        ["stats", "--json"],
        ["rename", doc_id, f"Renamed {PAYLOAD}"],
        ["list"],
        ["repair"],
    ]


def test_no_command_writes_a_control_character_or_override_from_the_library(hostile_library):
    problems = []
    for arguments in commands(hostile_library):
        status, output = run(*arguments)
        assert status in (0, 1, 2), (arguments, output)
        assert "Traceback" not in output, (arguments, output)
        found = [repr(c) for c in FORBIDDEN if c in output]
        if found:
            at = min(output.find(c) for c in FORBIDDEN if c in output)
            context = output[max(0, at - 60) : at + 20]
            problems.append(f"{' '.join(arguments)}: {', '.join(found)} in {context!r}")
        # A name's line break never starts a line of its own.
        lines = output.splitlines()
        assert not any(line.startswith("0123456789abcdef  x: added") for line in lines), arguments
        if "--json" in arguments:
            for line in output.splitlines():
                if line.startswith(("{", "[")):
                    json.loads(line)
    assert problems == [], "\n".join(problems)
