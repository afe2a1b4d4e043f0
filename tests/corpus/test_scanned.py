"""The corpus's scanned PDFs, read by OCR: searchable, and their pages marked as OCR'd.

OCR is slow (the eight-page German form takes half a minute), so each file is
ingested once for the module, two at a time in worker processes (one file's
pages are read two at a time, but a page read again turned upright keeps only
one Tesseract busy), each into a library of its own that the tests then open.
"""

from __future__ import annotations

from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import pymupdf
import pytest

from reader.ingest.layout import span_rects
from reader.ingest.ocr import OcrSettings
from reader.library import Library
from tests.conftest import corpus_dir

pytestmark = pytest.mark.corpus

# Each file, longest to read first: its OCR languages, the pages read by OCR, and
# a word printed on one of them that OCR reads.
SCANNED = {
    "pymupdf-test_3863-scanned-german-form-8p.pdf": (("deu",), list(range(1, 9)), "Rohrbuch"),
    "pymupdf-test_4423-mixed-text-and-scanned-rotated.pdf": (("eng",), [2, 3], "OASDI"),
    "pymupdf-test_4090-scanned-statement-5p.pdf": (("eng",), [1, 2, 3, 4, 5], "Rekening"),
    "pdfplumber-issue-203-scanned-chinese.pdf": (("chi_sim",), [1, 2, 3], "行政处罚决定书"),
}


def ingest_into(library_path: Path, path: Path, languages: tuple[str, ...]) -> str:
    """Ingest ``path`` into the library at ``library_path`` (in a worker process)."""
    with Library(library_path) as library:
        return library.ingest(path, ocr=OcrSettings("auto", languages)).doc_id


@pytest.fixture(scope="module")
def scanned(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, tuple[Library, str]]]:
    """Each file's library and document id."""
    corpus = corpus_dir() / "pdf"
    folder = tmp_path_factory.mktemp("scanned")
    with ProcessPoolExecutor(max_workers=2) as pool:
        ingests = {
            name: pool.submit(ingest_into, folder / f"{index}.db", corpus / name, languages)
            for index, (name, (languages, _, _)) in enumerate(SCANNED.items())
        }
        doc_ids = {name: ingest.result() for name, ingest in ingests.items()}
    libraries = {name: Library(folder / f"{index}.db") for index, name in enumerate(SCANNED)}
    yield {name: (libraries[name], doc_ids[name]) for name in SCANNED}
    for library in libraries.values():
        library.close()


@pytest.mark.parametrize("name", list(SCANNED))
def test_a_scanned_corpus_file_is_read_by_ocr_on_its_image_pages(scanned, name):
    library, doc_id = scanned[name]
    _, pages, _ = SCANNED[name]
    document = library.document(doc_id)
    assert document.ocr_page_numbers() == pages
    assert "+ocr-tesseract-" in document.extractor
    for page in pages:
        start, end = document.page_range(page)
        assert len(document.text[start:end].split()) >= 10, (name, page)
        assert len(library.store.ocr_boxes(document.id, page) or []) == len(
            document.text[start:end].removesuffix("\n\n")
        )


@pytest.mark.parametrize("name", list(SCANNED))
def test_a_word_on_a_scanned_page_is_found_by_search_in_a_chunk_of_an_ocr_page(scanned, name):
    library, doc_id = scanned[name]
    _, pages, word = SCANNED[name]
    hits = library.search(word, doc_id=doc_id)
    assert hits, (name, word)
    chunk = hits[0].chunk
    assert word in chunk.text
    assert set(chunk.pages) & set(pages)


def test_the_sideways_scan_of_the_mixed_file_is_turned_upright(scanned):
    library, doc_id = scanned["pymupdf-test_4423-mixed-text-and-scanned-rotated.pdf"]
    document = library.document(doc_id)
    assert {info.page: info.turned for info in document.ocr_pages}[3] in (90, 270)
    assert "Service Request # SR 82506" in document.text  # the text page, as printed


def test_a_quote_from_a_scanned_page_verifies_and_is_drawn_where_it_is_printed(scanned):
    name = "pdfplumber-issue-203-scanned-chinese.pdf"
    library, doc_id = scanned[name]
    verification = library.verifier(doc_id).verify("行政处罚决定书")
    assert verification.status == "exact"
    assert verification.page == 1
    assert verification.start is not None and verification.end is not None
    document = library.document(doc_id)
    page_start = document.page_range(1)[0]
    boxes = library.store.ocr_boxes(document.id, 1)
    with pymupdf.open(corpus_dir() / "pdf" / name) as pdf:
        page = pdf[0]
        start, end = verification.start - page_start, verification.end - page_start
        drawn = span_rects(page, start, end, boxes=boxes)
        assert len(drawn) == 1  # the title, on one line
        title = drawn[0]
        assert title in page.rect
        assert title.y1 < page.rect.height / 5  # at the head of the page
        assert 3 * title.height < title.width < 20 * title.height
