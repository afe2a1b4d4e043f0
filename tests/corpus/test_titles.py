"""Real documents are listed under their titles, not under slugs, section names or noise."""

from __future__ import annotations

import pytest

from reader.ingest.ocr import OcrSettings
from reader.ingest.tesseract import find_tesseract
from reader.library import Library
from tests.conftest import corpus_dir

pytestmark = pytest.mark.corpus

TITLES = {
    # metadata empty; a slug in the margin was taken, and is the largest type
    "pdfplumber-federal-register-2020-17221-threecolumn.pdf": (
        "pdfplumber federal register 2020 17221 threecolumn"
    ),
    # no metadata; the first heading was ACKNOWLEDGEMENTS
    "pymupdf-test-3820-who-hcv-155p.pdf": (
        "TREATMENT OF ADOLESCENTS AND CHILDREN WITH CHRONIC HCV INFECTION, AND HCV "
        "SIMPLIFIED SERVICE DELIVERY AND DIAGNOSTICS"
    ),
    # the outline begins with Introduction; an arXiv stamp is set upright in the margin
    "pymupdf-test_4751-qwen2-report-26p.pdf": "QWEN2 TECHNICAL REPORT",
    # the first heading was Preface
    "pymupdf-mupdf_explored-285p.pdf": "MuPDF Explored",
    # metadata: the file it was made from
    "gitenberg-pride-and-prejudice-pandp12p2-2up-rotated.pdf": "Pride and Prejudice",
    "pdfminer-issue-1061-ieee-twocolumn-ligatures.pdf": (
        "Individual Differential Privacy: A Utility-Preserving Formulation of Differential "
        "Privacy Guarantees"
    ),
    # metadata: the word processor's placeholder
    "pdfjs-rotation.pdf": "pdfjs rotation",
    # metadata: a date
    "pymupdf-test_4423-mixed-text-and-scanned-rotated.pdf": (
        "pymupdf test 4423 mixed text and scanned rotated"
    ),
    # a title set on two lines was cut at the first
    "pdfjs-tracemonkey-twocolumn-ligatures.pdf": (
        "Trace-based Just-in-Time Type Specialization for Dynamic Languages"
    ),
    "pdfjs-issue14847-german-toc-with-image-pages.pdf": "Benutzerhandbuch",
    # good metadata stays
    "pdfjs-freeculture-352p.pdf": "Free Culture",
    "pymupdf-test_3842-nist-sp-800-223.pdf": (
        "High-Performance Computing (HPC) Security: Architecture, Threat Analysis, and "
        "Security Posture"
    ),
}


def test_corpus_documents_are_listed_under_their_titles(tmp_path):
    pdfs = corpus_dir() / "pdf"
    with Library(tmp_path / "library.db") as library:
        for name in TITLES:
            library.ingest(pdfs / name, ocr=OcrSettings(mode="never"))
        listed = {record.path.rsplit("/", 1)[-1]: record.title for record in library.documents()}
    assert listed == TITLES


def test_the_federal_registers_outline_holds_no_printers_slug(tmp_path):
    path = corpus_dir() / "pdf" / "pdfplumber-federal-register-2020-17221-threecolumn.pdf"
    with Library(tmp_path / "library.db") as library:
        document = library.document(library.ingest(path, ocr=OcrSettings("never")).doc_id)
        chunks = library.chunks(document.id)
    assert not any("DSKJLSW7X2PROD" in heading.title for heading in document.headings)
    assert not any("DSKJLSW7X2PROD" in chunk.heading_path for chunk in chunks)


def test_a_chinese_scan_read_as_english_is_not_titled_by_its_noise(tmp_path):
    assert find_tesseract() is not None, (
        "Tesseract is not installed (sudo apt install tesseract-ocr)"
    )
    path = corpus_dir() / "pdf" / "pdfplumber-issue-203-scanned-chinese.pdf"
    with Library(tmp_path / "library.db") as library:
        result = library.ingest(path, ocr=OcrSettings("auto", ("eng",)))
    assert result.title == "pdfplumber issue 203 scanned chinese"
