"""Quotes of a printed page against the same page read by Tesseract: a page made here, so
what it prints is known, rendered to an image-only PDF and ingested with OCR."""

from pathlib import Path

import pymupdf
import pytest

from reader.answer import Answerer, ScriptedBackend
from reader.answer.render import render_markdown, render_text
from reader.ingest import read_document
from reader.ingest.ocr import OcrSettings
from reader.library import Library
from reader.records import Chunk, Document
from reader.verify import DocumentVerifier
from tests.answer.conftest import claims_json

# What the paper says. The page prints two words as OCR misreads them ("rnodern",
# "5ussex"), which Tesseract reads back as printed: a quote of the paper's words
# ("modern", "Sussex") then meets exactly the misreading a scan gives.
REPORT = "The harbour authority let 120 moorings in 1996, and the fees rose by 7 per cent."
LEDGER = "The Boston archive kept a modern ledger of every mooring in Sussex."
PRINTED = f"{REPORT} {LEDGER.replace('modern', 'rnodern').replace('Sussex', '5ussex')}"


def scanned_pdf(folder: Path) -> Path:
    """A page printing ``PRINTED``, as a 300 dpi image with no text layer."""
    paper = pymupdf.open()
    page = paper.new_page(width=420, height=300)
    page.insert_textbox(pymupdf.Rect(36, 36, 384, 280), PRINTED, fontsize=13, fontname="helv")
    image = page.get_pixmap(dpi=300)
    scan = pymupdf.open()
    scan.new_page(width=420, height=300).insert_image(pymupdf.Rect(0, 0, 420, 300), pixmap=image)
    path = folder / "scan.pdf"
    scan.save(path)
    return path


@pytest.fixture(scope="module")
def scan_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return scanned_pdf(tmp_path_factory.mktemp("scan"))


@pytest.fixture(scope="module")
def scan(scan_path: Path) -> tuple[Document, list[Chunk]]:
    document, chunks = read_document(scan_path, ocr=OcrSettings.parse("auto", "eng"))
    assert [info.page for info in document.ocr_pages] == [1]
    # The premise: Tesseract reads the misprinted words as printed, and is sure of them.
    for word in ("rnodern", "5ussex", "1996"):
        assert word in document.text, f"Tesseract read {document.text!r}"
    return document, chunks


def test_the_page_as_printed_verifies_exactly(scan):
    checker = DocumentVerifier(*scan)
    result = checker.verify(REPORT)
    assert result.status == "exact", result
    assert result.page == 1


def test_the_paper_quoted_where_ocr_misread_it_is_fuzzy_and_says_so(scan):
    document, chunks = scan
    result = DocumentVerifier(document, chunks).verify(LEDGER, source=chunks[0].id)
    assert result.status == "fuzzy", result
    assert result.reason.startswith("the page was read by OCR")
    assert "'rnodern'" in result.reason and "'5ussex" in result.reason
    assert result.start is not None and result.end is not None
    shown = " ".join(document.text[result.start : result.end].split())
    assert shown == "The Boston archive kept a rnodern ledger of every mooring in 5ussex"


@pytest.mark.parametrize(
    "quote",
    [
        REPORT.replace("1996", "1990"),
        REPORT.replace("120", "126"),
        REPORT.replace("fees rose", "fees never rose"),
        REPORT.replace("rose", "fell"),
        LEDGER.replace("modern", "modest"),
        LEDGER.replace("kept a", "kept no"),
    ],
)
def test_a_different_statement_is_a_miss_on_a_scanned_page(scan, quote):
    assert DocumentVerifier(*scan).verify(quote).status == "miss"


def test_an_answer_on_a_scanned_page_carries_the_ocr_reason(library: Library, scan_path: Path):
    doc_id = library.ingest(scan_path, ocr=OcrSettings.parse("auto", "eng")).doc_id
    backend = ScriptedBackend()
    claim = "The Boston archive kept a modern ledger of every mooring."
    changed = "The authority let 120 moorings in 1990."
    backend.enqueue(
        claims_json(
            (claim, "c1", LEDGER),
            (changed, "c1", REPORT.replace("1996", "1990")),
        ),
        claims_json(),  # the retry of the changed number finds nothing better
    )
    answer = Answerer(library, backend, mode="free").ask("Which archive kept a ledger?", [doc_id])
    by_text = {item.claim.text: item for item in answer.claims}
    fuzzy = by_text[claim].verification
    assert fuzzy.status == "fuzzy" and fuzzy.reason.startswith("the page was read by OCR")
    assert by_text[changed].verification.status == "miss"
    for shown in (render_text(answer), render_markdown(answer)):
        line = next(line for line in shown.splitlines() if "mooring in Sussex" in line)
        assert "fuzzy: the page was read by OCR" in line
        assert "rnodern" in line
