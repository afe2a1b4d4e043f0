"""Printed page numbers: a PDF's page labels travel from ingest to every place a page is cited."""

from __future__ import annotations

import json
from pathlib import Path

import pymupdf
import pytest
from click.testing import CliRunner

from reader.answer import Answerer
from reader.answer.render import render_markdown, render_text
from reader.cli import cli
from reader.ingest.page_labels import printed_page_labels
from reader.records import answer_from_json
from reader.verify import DocumentVerifier
from tests.conftest import corpus_dir

SENTENCES = [
    "The preface thanks the harbour archive for its patience.",
    "The foreword explains how the ledgers were kept.",
    "The harbour froze in the winter of 1709 and the ships stayed in port for six weeks.",
    "The harbour master kept a ledger of every ship that waited for the thaw.",
]


def labelled_pdf(folder: Path, rules: list[dict] | None) -> Path:
    """Four pages; with ``rules``, front matter numbered i, ii and the body from 1."""
    document = pymupdf.open()
    for sentence in SENTENCES:
        page = document.new_page(width=595, height=842)
        page.insert_textbox(pymupdf.Rect(72, 72, 523, 800), sentence, fontsize=11)
    if rules is not None:
        document.set_page_labels(rules)
    path = folder / ("labelled.pdf" if rules else "plain.pdf")
    document.save(path)
    document.close()
    return path


ROMAN_THEN_ARABIC = [
    {"startpage": 0, "prefix": "", "style": "r", "firstpagenum": 1},
    {"startpage": 2, "prefix": "", "style": "D", "firstpagenum": 1},
]


def test_the_printed_numbers_are_read_and_kept(library, tmp_path):
    path = labelled_pdf(tmp_path, ROMAN_THEN_ARABIC)
    doc_id = library.ingest(path).doc_id
    document = library.document(doc_id)  # read back from the store
    assert document.page_labels == ["i", "ii", "1", "2"]
    assert [document.page_label(page) for page in (1, 3, 4)] == ["i", "1", "2"]


def test_a_quote_is_cited_by_its_printed_page_everywhere(library, tmp_path):
    doc_id = library.ingest(labelled_pdf(tmp_path, ROMAN_THEN_ARABIC)).doc_id
    document = library.document(doc_id)
    check = DocumentVerifier(document, library.chunks(doc_id)).verify(
        "the ships stayed in port for six weeks"
    )
    assert (check.page, check.page_label) == (3, "1")
    assert check.page_name() == "page 1 (PDF page 3)"
    answer = Answerer(library, None).ask("How long did the ships stay in port?", [doc_id])
    cited = next(c for c in answer.claims if "six weeks" in c.claim.quote)
    assert cited.verification.page_label == "1"
    assert "p.1 (PDF p.3)" in render_text(answer)
    assert "page 1 (PDF page 3)" in render_markdown(answer)
    stored = json.loads(json.dumps(answer.to_json()))
    assert any(claim["page_label"] == "1" for claim in stored["claims"])
    assert answer_from_json(stored).claims == answer.claims  # the history keeps it


def test_pages_without_labels_are_cited_by_their_numbers(library, tmp_path):
    doc_id = library.ingest(labelled_pdf(tmp_path, None)).doc_id
    document = library.document(doc_id)
    assert document.page_labels == []
    check = DocumentVerifier(document, library.chunks(doc_id)).verify("six weeks")
    assert (check.page, check.page_label, check.page_name(short=True)) == (3, None, "p.3")


def test_labels_that_are_only_the_page_numbers_are_not_kept(tmp_path):
    path = labelled_pdf(tmp_path, [{"startpage": 0, "prefix": "", "style": "D", "firstpagenum": 1}])
    with pymupdf.open(path) as document:
        assert printed_page_labels(document) == []


@pytest.mark.corpus
def test_a_label_prefix_written_in_utf16_reads_as_text():
    """The WHO guidelines number their cover "C1" (the prefix is a UTF-16 string),
    the front matter i to xxiv and the body from 1."""
    path = corpus_dir() / "pdf" / "pymupdf-test-3820-who-hcv-155p.pdf"
    with pymupdf.open(path) as document:
        labels = printed_page_labels(document)
    assert labels[:3] == ["C1", "i", "ii"]
    assert labels[24:27] == ["xxiv", "1", "2"]


def test_the_command_line_gives_the_printed_page(library, tmp_path):
    path = labelled_pdf(tmp_path, ROMAN_THEN_ARABIC)
    library.ingest(path)
    library.close()
    runner = CliRunner()
    found = runner.invoke(cli, ["search", "six weeks"])
    assert found.exit_code == 0, found.output
    assert "p.i (PDF p.1)" in found.output  # the pages are short: one chunk holds them all
    checked = runner.invoke(cli, ["verify", str(path), "--quote", "the ships stayed in port"])
    assert "page 1 (PDF page 3)" in checked.output, checked.output
    listed = runner.invoke(cli, ["search", "six weeks", "--json"])
    assert json.loads(listed.output)[0]["page_labels"] == ["i", "ii", "1", "2"]
