"""OCR with the real Tesseract on generated scans, whose text and word places are known.

A text PDF is written with PyMuPDF, each page rendered to an image, and the
images made into an image-only PDF (a scan): what OCR reads is compared with the
text PDF's own text, and the boxes it gives with the text PDF's word boxes.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import pymupdf
import pytest
from rapidfuzz.distance import Levenshtein

from reader.errors import Cancelled, IngestError
from reader.ingest import read_document
from reader.ingest.extract import extract
from reader.ingest.layout import page_blocks, render_page, span_rects
from reader.ingest.ocr import OcrSettings
from reader.ingest.page_image import MAX_OCR_PIXELS, PageImage, render_for_ocr
from reader.ingest.tesseract import OcrUnavailableError
from reader.library import Library
from reader.records import Document

PROSE = [
    "The harbour froze in the winter of 1709 and the ships stayed in port for six weeks. "
    "Merchants counted their losses in the cold warehouses along the quay, while the town "
    "council argued about the price of firewood and bread.",
    "When the ice broke in March, the first vessel to leave carried wool, salted fish and "
    "letters for families who had heard nothing since November.",
]
KNOWN_WORDS = ("harbour", "Merchants", "warehouses", "firewood", "November")
PAGE_SIZE = (420.0, 320.0)
ALWAYS = OcrSettings("always")


def write_text_pdf(
    path: Path, pages: Sequence[Sequence[str]], size: tuple[float, float] = PAGE_SIZE
) -> Path:
    """A PDF whose pages hold the given paragraphs in Helvetica, 12 points."""
    width, height = size
    with pymupdf.open() as document:
        for paragraphs in pages:
            page = document.new_page(width=width, height=height)
            y = 36.0
            for paragraph in paragraphs:
                rect = pymupdf.Rect(36, y, width - 36, height - 36)
                left = page.insert_textbox(rect, paragraph, fontsize=12, fontname="helv")
                y += rect.height - left + 14
        document.save(path)
    return path


def scan_pages(
    source: Path, path: Path, dpi: int = 300, turn: int = 0, colour: bool = False
) -> Path:
    """An image-only PDF of ``source``'s pages rendered at ``dpi`` and turned by
    ``turn`` degrees, each image filling its page as a scanner's would."""
    colourspace = pymupdf.csRGB if colour else pymupdf.csGRAY
    with pymupdf.open(source) as text_pdf, pymupdf.open() as scanned:
        for page in text_pdf:
            matrix = pymupdf.Matrix(dpi / 72, dpi / 72).prerotate(turn)
            pixmap = page.get_pixmap(matrix=matrix, colorspace=colourspace, alpha=False)
            scan = scanned.new_page(width=pixmap.width * 72 / dpi, height=pixmap.height * 72 / dpi)
            scan.insert_image(scan.rect, stream=pixmap.tobytes("png"))
        scanned.save(path)
    return path


def mixed_document(folder: Path, prose_scan: Path) -> Path:
    """A text page, then the scan."""
    text_pdf = write_text_pdf(folder / "text.pdf", [["A page with a real text layer."]])
    with pymupdf.open(text_pdf) as document, pymupdf.open(prose_scan) as scan:
        document.insert_pdf(scan)
        document.save(folder / "mixed.pdf")
    return folder / "mixed.pdf"


def text_layer(path: Path, number: int = 1) -> str:
    with pymupdf.open(path) as document:
        return "\n\n".join(block.text for block in page_blocks(document[number - 1]))


def character_error_rate(read: str, truth: str) -> float:
    read, truth = " ".join(read.split()), " ".join(truth.split())
    return Levenshtein.distance(read, truth) / len(truth)


def word_rect(path: Path, word: str, number: int = 1) -> pymupdf.Rect:
    """Where ``word`` is printed in the text PDF (its only occurrence)."""
    with pymupdf.open(path) as document:
        found = document[number - 1].search_for(word)
    assert len(found) == 1, word
    return found[0]


def read_word_rect(document: Document, word: str, number: int = 1) -> pymupdf.Rect:
    """The union of the boxes OCR gave the characters of ``word`` (unrotated points)."""
    start, end = document.page_range(number)
    found = document.text.find(word, start, end)
    assert found >= 0, (word, document.text[start:end])
    boxes = document.ocr_boxes[number][found - start : found - start + len(word)]
    rect = pymupdf.Rect(boxes[0])
    for box in boxes[1:]:
        assert box is not None
        rect |= pymupdf.Rect(box)
    return rect


def overlap(first: pymupdf.Rect, second: pymupdf.Rect) -> float:
    """Intersection over union of two rectangles."""
    common = abs(pymupdf.Rect(first) & second)
    return common / (abs(first) + abs(second) - common)


def lies_on(read: pymupdf.Rect, printed: pymupdf.Rect) -> bool:
    """Whether the box OCR gave a word lies on the word as printed: OCR boxes hug the
    ink, a text layer's span the font's whole height, so most of the first is in the
    second, and they overlap by a third or more."""
    return abs(pymupdf.Rect(read) & printed) > 0.9 * abs(read) and overlap(read, printed) > 0.3


@pytest.fixture(scope="module")
def prose_pdf(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_text_pdf(tmp_path_factory.mktemp("ocr") / "prose.pdf", [PROSE])


@pytest.fixture(scope="module")
def prose_scan(prose_pdf: Path) -> Path:
    return scan_pages(prose_pdf, prose_pdf.with_name("prose-scan.pdf"))


@pytest.fixture(scope="module")
def read_scan(prose_scan: Path) -> Document:
    document, _ = read_document(prose_scan)
    return document


# -- reading a scan -------------------------------------------------------------------


def test_a_300_dpi_scan_is_read_with_under_2_percent_character_errors(prose_pdf, read_scan):
    assert read_scan.ocr_page_numbers() == [1]
    assert "+ocr-tesseract-" in read_scan.extractor
    assert character_error_rate(read_scan.text, text_layer(prose_pdf)) <= 0.02


def test_every_character_read_has_a_box_on_its_word(prose_pdf, read_scan):
    boxes = read_scan.ocr_boxes[1]
    assert len(boxes) == len(read_scan.text)
    assert all(
        box is not None
        for char, box in zip(read_scan.text, boxes, strict=True)
        if not char.isspace()
    )
    for word in KNOWN_WORDS:
        assert lies_on(read_word_rect(read_scan, word), word_rect(prose_pdf, word)), word


def test_word_confidences_cover_the_words_read(read_scan):
    words = read_scan.ocr_words
    assert len(words) >= 40
    assert all(0 <= word.confidence <= 100 for word in words)
    assert sum(word.confidence for word in words) / len(words) > 80
    assert all(read_scan.text[word.start : word.end].strip() for word in words)


def test_a_mixed_document_keeps_its_text_page_and_reads_its_scan(tmp_path, prose_scan):
    document, _ = read_document(mixed_document(tmp_path, prose_scan))
    assert document.ocr_page_numbers() == [2]
    start, end = document.page_range(1)
    assert document.text[start:end].strip() == "A page with a real text layer."
    assert "harbour froze" in document.text[document.page_range(2)[0] :]
    assert document.warnings == []  # every page has text


def test_ocr_never_leaves_a_scanned_page_empty_and_says_so(tmp_path, prose_scan):
    extraction = extract(mixed_document(tmp_path, prose_scan), ocr=OcrSettings("never"))
    assert extraction.ocr_pages == []
    assert extraction.text.strip() == "A page with a real text layer."
    assert extraction.warnings == [
        "1 of 2 pages has no text (scanned or blank): page 2 cannot be searched or cited."
    ]


def test_ocr_always_reads_a_text_page_again(prose_pdf):
    document, _ = read_document(prose_pdf, ocr=ALWAYS)
    assert document.ocr_page_numbers() == [1]
    assert character_error_rate(document.text, text_layer(prose_pdf)) <= 0.02
    assert lies_on(read_word_rect(document, "harbour"), word_rect(prose_pdf, "harbour"))


def test_a_page_rotated_90_degrees_reads_upright_with_boxes_on_its_words(tmp_path, prose_pdf):
    scan = scan_pages(prose_pdf, tmp_path / "scan.pdf")
    with pymupdf.open(scan) as document:
        document[0].set_rotation(90)
        document.save(tmp_path / "rotated.pdf")
    document, _ = read_document(tmp_path / "rotated.pdf")
    assert character_error_rate(document.text, text_layer(prose_pdf)) <= 0.02
    # Boxes are in unrotated page space, the text PDF's own.
    for word in KNOWN_WORDS:
        assert lies_on(read_word_rect(document, word), word_rect(prose_pdf, word)), word


def test_a_scan_turned_upside_down_is_turned_back_with_boxes_on_its_words(tmp_path, prose_pdf):
    scan = scan_pages(prose_pdf, tmp_path / "upside-down.pdf", turn=180)
    document, _ = read_document(scan)
    assert document.ocr_pages[0].turned == 180
    assert character_error_rate(document.text, text_layer(prose_pdf)) <= 0.02
    half_turn = pymupdf.Matrix(-1, 0, 0, -1, *PAGE_SIZE)  # where each word is on the scan
    for word in KNOWN_WORDS:
        printed = word_rect(prose_pdf, word) * half_turn
        assert lies_on(read_word_rect(document, word), printed), word


def test_the_command_reads_a_scan_and_lists_its_page_as_read_by_ocr(prose_scan):
    def reader_cli(*args: str) -> subprocess.CompletedProcess[str]:
        command = [sys.executable, "-m", "reader.cli", *args]
        return subprocess.run(command, capture_output=True, text=True, check=True)

    ingested = json.loads(reader_cli("ingest", "--json", str(prose_scan)).stdout)
    assert ingested["warnings"] == []
    assert ", 1 page read by OCR, 1 chunk)" in reader_cli("list").stdout
    chunks = json.loads(reader_cli("chunks", "--json", ingested["doc_id"]).stdout)
    assert [chunk["ocr_pages"] for chunk in chunks] == [[1]]
    assert "harbour froze" in chunks[0]["text"]


# -- the page image given to Tesseract ----------------------------------------------------


@pytest.mark.parametrize(
    ("scanned_at", "colour", "read_at", "read_in_colour"),
    [
        (250, True, 250, True),
        (200, False, 200, False),
        (150, True, 200, False),
        (72, True, 200, False),
    ],
)
def test_a_scan_is_read_at_its_own_resolution_and_colours_when_not_too_coarse(
    tmp_path, prose_pdf, scanned_at, colour, read_at, read_in_colour
):
    scan = scan_pages(prose_pdf, tmp_path / "scan.pdf", dpi=scanned_at, colour=colour)
    with pymupdf.open(scan) as document:
        image = render_for_ocr(document[0])
        assert image.dpi == read_at
        assert decoded(image).n == (3 if read_in_colour else 1)
    with pymupdf.open(prose_pdf) as document:  # a page that is not a scan
        assert render_for_ocr(document[0]).dpi == 300


def test_the_page_image_is_a_png_of_the_rendered_pixels(prose_scan):
    with pymupdf.open(prose_scan) as document:
        image = render_for_ocr(document[0])
        rendered = document[0].get_pixmap(dpi=300, colorspace=pymupdf.csGRAY, alpha=False)
    assert image.data.startswith(b"\x89PNG")
    pixmap = decoded(image)
    assert (pixmap.width, pixmap.height) == (rendered.width, rendered.height)
    assert pixmap.samples == rendered.samples
    assert round(pixmap.xres) == 300


def decoded(image: PageImage) -> pymupdf.Pixmap:
    return pymupdf.Pixmap(image.data)


def test_a_huge_page_is_rendered_within_the_pixel_budget(tmp_path):
    """A tiny PDF with one 7,000-point page: at 300 dpi it would be 850 million pixels."""
    path = tmp_path / "poster.pdf"
    with pymupdf.open() as document:
        page = document.new_page(width=7000, height=7000)
        page.insert_text((100, 400), "A POSTER", fontsize=300)
        document.save(path)
    assert path.stat().st_size < 2000
    with pymupdf.open(path) as document:
        image = render_for_ocr(document[0])
    pixmap = decoded(image)
    assert pixmap.width * pixmap.height <= MAX_OCR_PIXELS
    assert image.dpi == fitting_dpi_for(7000, 7000) and image.dpi < 100
    # The map from pixels back to the page still lands on the page's corners.
    x0, y0, x1, y1 = image.to_page.displayed((0, 0, pixmap.width, pixmap.height))
    assert (round(x0), round(y0)) == (0, 0)
    assert abs(x1 - 7000) < 10 and abs(y1 - 7000) < 10


def test_a_huge_page_is_read_by_ocr_in_bounded_memory(tmp_path):
    path = tmp_path / "poster.pdf"
    with pymupdf.open() as document:
        page = document.new_page(width=7000, height=7000)
        page.insert_text((100, 600), "HARBOUR", fontsize=400)
        document.save(path)
    script = (
        "import resource, sys; from reader.ingest import read_document; "
        "from reader.ingest.ocr import OcrSettings; "
        "document, _ = read_document(sys.argv[1], ocr=OcrSettings('always', ('eng',))); "
        "print(document.text.strip()); "
        "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)"
    )
    completed = subprocess.run(
        [sys.executable, "-c", script, str(path)], capture_output=True, text=True, timeout=300
    )
    assert completed.returncode == 0, completed.stderr
    *text, peak_kb = completed.stdout.strip().splitlines()
    assert "HARBOUR" in " ".join(text)
    assert int(peak_kb) < 1_000_000  # Tesseract's peak: under 1 GB, not 3.4 GB


def fitting_dpi_for(width: float, height: float) -> int:
    import math

    return int(math.sqrt(MAX_OCR_PIXELS / (width * height / 72 / 72)))


# -- cancel ------------------------------------------------------------------------------


def tesseract_children() -> list[int]:
    """Process ids of this process's children running Tesseract."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            command = (entry / "comm").read_text().strip()
        except OSError:
            continue
        if int(fields[1]) == os.getpid() and command == "tesseract":
            found.append(int(entry.name))
    return found


def cancel_during_ocr(pages: int) -> tuple[Callable[[int, int], None], dict[str, float]]:
    """A progress callback that cancels once OCR has run for a moment."""
    seen: dict[str, float] = {}

    def progress(done: int, total: int) -> None:
        if total > pages:  # counting OCR'd pages now
            seen.setdefault("ocr", time.monotonic())
            if time.monotonic() - seen["ocr"] > 0.3:
                seen["running"] = len(tesseract_children())
                seen["cancelled"] = time.monotonic()
                raise Cancelled("Ingest cancelled.")

    return progress, seen


def test_cancelling_stops_tesseract_at_once_and_leaves_the_library_unchanged(
    tmp_path, library: Library
):
    # Full pages, which take Tesseract a few seconds each: a cancel must not wait for them.
    source = write_text_pdf(tmp_path / "long.pdf", [PROSE * 4] * 6, size=(595, 842))
    scan = scan_pages(source, tmp_path / "long-scan.pdf")
    progress, seen = cancel_during_ocr(6)
    with pytest.raises(Cancelled):
        library.ingest(scan, progress=progress)
    stopped = time.monotonic()
    assert seen["running"] >= 1  # Tesseract was reading when the cancel came
    assert stopped - seen["cancelled"] < 1.0
    assert tesseract_children() == []
    assert library.documents() == []


# -- when OCR cannot run ---------------------------------------------------------------------


@pytest.mark.parametrize("missing", ["configured", "not on the path"])
def test_without_tesseract_ocr_says_what_to_install_and_auto_keeps_text_pages(
    tmp_path, monkeypatch, prose_scan, missing
):
    if missing == "configured":
        monkeypatch.setenv("READER_TESSERACT", str(tmp_path / "no-such-tesseract"))
    else:
        monkeypatch.delenv("READER_TESSERACT", raising=False)
        monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(OcrUnavailableError) as raised:
        extract(prose_scan, ocr=ALWAYS)
    message = str(raised.value)
    assert "\n" not in message
    assert "sudo apt install tesseract-ocr" in message
    extraction = extract(mixed_document(tmp_path, prose_scan))
    assert extraction.text.strip() == "A page with a real text layer."
    assert extraction.warnings == [
        "1 of 2 pages has no text (scanned or blank): page 2 cannot be searched or cited; "
        "OCR, which would read them, is not installed (sudo apt install tesseract-ocr)."
    ]


def test_a_language_not_installed_names_its_package(prose_scan):
    with pytest.raises(OcrUnavailableError) as raised:
        extract(prose_scan, ocr=OcrSettings("auto", ("eng", "yor")))
    message = str(raised.value)
    assert "\n" not in message
    assert "The OCR language yor is not installed" in message
    assert "sudo apt install tesseract-ocr-yor" in message


FAKE_TESSERACT = """#!/bin/sh
case "$1" in
  --version) echo "tesseract 5.3.0" ;;
  --list-langs) printf 'List of available languages in "/fake/" (2):\\neng\\nosd\\n' ;;
  *) cat > /dev/null; echo "Segmentation fault <<< not hOCR" ;;
esac
"""


def test_garbage_from_the_engine_is_a_one_line_error(tmp_path, monkeypatch, prose_scan):
    fake = tmp_path / "tesseract"
    fake.write_text(FAKE_TESSERACT)
    fake.chmod(0o755)
    monkeypatch.setenv("READER_TESSERACT", str(fake))
    with pytest.raises(IngestError) as raised:
        extract(prose_scan)
    assert "\n" not in str(raised.value)
    assert "Tesseract's output could not be read" in str(raised.value)
    completed = subprocess.run(
        [sys.executable, "-m", "reader.cli", "ingest", str(prose_scan)],
        capture_output=True,
        text=True,
    )
    assert completed.returncode == 2
    assert "Traceback" not in completed.stderr
    assert completed.stderr.startswith("error: ")
    assert "Tesseract's output could not be read" in completed.stderr
    assert len(completed.stderr.strip().splitlines()) == 1


# -- a quote from a scan ---------------------------------------------------------------------


def test_a_quote_from_a_scan_verifies_and_is_drawn_on_its_words(prose_pdf, prose_scan, library):
    result = library.ingest(prose_scan)
    document = library.document(result.doc_id)
    quote = "Merchants counted their losses in the cold warehouses"
    verification = library.verifier(result.doc_id).verify(quote)
    assert verification.status == "exact"
    assert verification.page == 1
    assert verification.start is not None and verification.end is not None
    boxes = library.store.ocr_boxes(result.doc_id, 1)
    assert boxes is not None
    page_start = document.page_range(1)[0]
    start, end = verification.start - page_start, verification.end - page_start
    with pymupdf.open(prose_scan) as scan, pymupdf.open(prose_pdf) as text_pdf:
        drawn = span_rects(scan[0], start, end, boxes=boxes)
        printed = text_pdf[0].search_for(quote)
    assert len(drawn) == len(printed) == 2  # the quote runs over a line end
    for rect, words in zip(drawn, printed, strict=True):
        assert lies_on(rect, words)
    # The page view draws the same rectangles on the page image.
    *_, pixel_rects = render_page(str(prose_scan), 1, spans=[(start, end)], ocr_boxes=boxes)
    shown = [tuple(value / 1.5 for value in rect) for rect in pixel_rects]  # the default zoom
    assert shown == [pytest.approx(tuple(rect), abs=0.01) for rect in drawn]
