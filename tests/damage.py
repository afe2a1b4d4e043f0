"""Damaging a library file the way a failing disk would, for the tests of detection and repair."""

from __future__ import annotations

import hashlib
import random
import sqlite3
from pathlib import Path

from reader.answer import Answerer
from reader.library import Library

LETTER = "\n\n".join(
    f"Paragraph {n}: the harbour authority charged {n * 7} crowns for each mooring in spring."
    for n in range(60)
)
# Long enough that its text spans many overflow pages of the documents table.
ESSAY = "\n\n".join(
    f"Essay part {n}. Lighthouse keepers logged {n * 11} storms and repaired {n + 3} lamps."
    for n in range(900)
)


def overflow_pages(path: Path) -> set[int]:
    with sqlite3.connect(path) as connection:
        rows = connection.execute(
            "SELECT pageno FROM dbstat WHERE name = 'documents' AND pagetype = 'overflow'"
        ).fetchall()
    connection.close()
    return {row[0] for row in rows}


def overwrite_pages(path: Path, pages: list[int], seed: int = 7) -> None:
    """Overwrite whole pages with random bytes, as a failing disk would."""
    size = 4096
    with sqlite3.connect(path) as connection:
        size = connection.execute("PRAGMA page_size").fetchone()[0]
    connection.close()
    noise = random.Random(seed)
    with path.open("r+b") as handle:
        for page in pages:
            handle.seek((page - 1) * size)
            handle.write(bytes(noise.randrange(256) for _ in range(size)))


def damage_document_records(path: Path) -> None:
    """Overwrite the pages that hold the documents table's rows (not their overflow)."""
    with sqlite3.connect(path) as connection:
        pages = [
            row[0]
            for row in connection.execute(
                "SELECT pageno FROM dbstat WHERE name = 'documents' AND pagetype != 'overflow'"
            )
        ]
    connection.close()
    overwrite_pages(path, pages)


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def library_of_two_documents(tmp_path: Path) -> dict[str, object]:
    """A library of a letter and an essay, one answer recorded; the essay's text pages known."""
    letter = tmp_path / "letter.txt"
    letter.write_text(LETTER, encoding="utf-8")
    essay = tmp_path / "essay.txt"
    essay.write_text(ESSAY, encoding="utf-8")
    with Library() as library:
        letter_id = library.ingest(letter).doc_id
        before = overflow_pages(library.store.path)
        essay_id = library.ingest(essay).doc_id
        Answerer(library, None, mode="passages").ask("How many crowns per mooring?", [letter_id])
        essay_chunks = [chunk.id for chunk in library.chunks(essay_id)]
        path = library.store.path
    essay_pages = sorted(overflow_pages(path) - before)
    assert len(essay_pages) > 10
    assert not path.with_name(path.name + "-wal").exists()  # all of it is in the file
    return {
        "path": path,
        "letter": letter,
        "essay": essay,
        "letter_id": letter_id,
        "essay_id": essay_id,
        "essay_pages": essay_pages,
        "essay_chunks": essay_chunks,
    }
