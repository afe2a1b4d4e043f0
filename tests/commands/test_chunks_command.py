"""`reader chunks --json` says which chunks are back matter, on a real book."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from reader.library import Library
from tests.conftest import corpus_dir

pytestmark = pytest.mark.corpus

BOOK = "pdfjs-freeculture-352p.pdf"


def test_the_index_and_contents_of_a_book_are_back_matter_and_its_chapters_are_not():
    with Library() as library:
        doc_id = library.ingest(corpus_dir() / "pdf" / BOOK).doc_id
    listed = subprocess.run(
        [sys.executable, "-m", "reader.cli", "chunks", doc_id, "--json"],
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    chunks = json.loads(listed.stdout)
    back = [c for c in chunks if c["back_matter"]]
    # The index entry an answer once quoted is back matter ...
    assert any("Causby, Thomas Lee" in c["text"] for c in back)
    # ... and the chapter that tells the Causbys' story is not.
    story = [c for c in chunks if "Thomas Lee and Tinie Causby" in " ".join(c["text"].split())]
    assert story and not any(c["back_matter"] for c in story)
    # Back matter is the contents at the front and the notes' index at the end, no more.
    assert 0 < len(back) < 0.15 * len(chunks)
    pages = [page for c in back for page in c["pages"]]
    assert all(page <= 12 or page >= 300 for page in pages), sorted(set(pages))
