"""OCR in the languages of each page's script (the default, ``auto``), and what a
document's warnings say of how its pages were read.

A three-page scan is generated, English, Chinese and German prose (the Chinese
in PyMuPDF's own simplified Chinese font), and read once with the default
settings and once in English only, as reader read every scan before ``auto``.
"""

from __future__ import annotations

import os
from pathlib import Path

import pymupdf
import pytest

import reader.ingest.page_image
import reader.ingest.tesseract
from reader.config import Settings, save_settings
from reader.errors import ReaderError
from reader.ingest import extractor_is_current
from reader.ingest.extract import Extraction, extract
from reader.ingest.ocr import OcrSettings, ocr_settings
from reader.ingest.ocr_languages import languages_for_script
from tests.ingest.test_ocr import PROSE, scan_pages, write_text_pdf

CHINESE = "行政处罚决定书。当事人应当自收到本决定书之日起十五日内缴纳罚款。"
GERMAN = (
    "Die Prüfung der Rohrleitungen ergab keine Mängel. Über die Größe der Schäden "
    "wird später berichtet; die Messgeräte wurden geprüft und für gut befunden."
)
UMLAUTS = set("äöüÄÖÜß")


def needs_tesseract_languages(*languages: str) -> None:
    """.ci/run installs Tesseract with these languages, so in CI a missing one fails."""
    engine = reader.ingest.tesseract.find_tesseract()
    if engine is not None and all(code in engine.languages() for code in languages):
        return
    message = f"Tesseract with {', '.join(languages)} is not installed"
    if os.environ.get("CI"):
        pytest.fail(message)
    pytest.skip(message)


def han(text: str) -> int:
    return sum(1 for char in text if "\u4e00" <= char <= "\u9fff")


def page_text(extraction: Extraction, number: int) -> str:
    starts = [*extraction.page_starts, len(extraction.text)]
    return extraction.text[starts[number - 1] : starts[number]]


@pytest.fixture(scope="module")
def three_scripts(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A scan of three pages: English, Chinese, German."""
    folder = tmp_path_factory.mktemp("scripts")
    source = folder / "source.pdf"
    with pymupdf.open() as document:
        for text, font in ((" ".join(PROSE), "helv"), (CHINESE, "china-s"), (GERMAN, "helv")):
            page = document.new_page(width=420, height=320)
            page.insert_textbox(pymupdf.Rect(36, 36, 384, 284), text, fontsize=14, fontname=font)
        document.save(source)
    return scan_pages(source, folder / "scan.pdf")


@pytest.fixture(scope="module")
def read_by_default(three_scripts: Path) -> Extraction:
    needs_tesseract_languages("eng", "deu", "chi_sim", "osd")
    return extract(three_scripts, ocr=OcrSettings())


@pytest.fixture(scope="module")
def read_in_english(three_scripts: Path) -> Extraction:
    needs_tesseract_languages("eng")
    return extract(three_scripts, ocr=OcrSettings("auto", ("eng",)))


# -- settings ----------------------------------------------------------------------------


def test_the_default_ocr_language_is_auto_in_settings_and_in_code():
    assert OcrSettings().automatic
    assert ocr_settings().automatic
    save_settings(Settings(ocr_languages="eng"))
    assert not ocr_settings().automatic  # a language the user chose is kept


def test_auto_mixed_with_languages_is_refused_with_what_to_give():
    with pytest.raises(ReaderError, match="give auto alone"):
        OcrSettings.parse("auto", "auto+deu")


def test_each_script_is_read_in_its_installed_languages():
    installed = ["chi_sim", "deu", "eng", "osd"]
    assert languages_for_script("Latin", installed) == ("eng", "deu")
    assert languages_for_script("Latin", ["eng"]) == ("eng",)
    assert languages_for_script("Han", installed) == ("chi_sim",)
    assert languages_for_script("Han", ["chi_tra", "eng"]) == ("chi_tra",)
    assert languages_for_script("Cyrillic", installed) == ()


# -- reading ---------------------------------------------------------------------------


def test_a_chinese_page_is_read_in_chinese_and_says_so(read_by_default, read_in_english):
    assert han(page_text(read_in_english, 2)) == 0  # English OCR: no Chinese at all
    chinese = page_text(read_by_default, 2)
    assert han(chinese) >= 0.8 * han(CHINESE), chinese
    assert "行政处罚决定书" in chinese.replace(" ", "")
    assert "page 2 read as Chinese (chi_sim): Tesseract detected Han script" in (
        read_by_default.warnings
    )


def test_a_german_page_keeps_its_umlauts(read_by_default, read_in_english):
    assert not UMLAUTS & set(page_text(read_in_english, 3))
    german = page_text(read_by_default, 3)
    assert {"Prüfung", "Mängel", "Größe"} <= set(german.replace(".", " ").split()), german


def test_an_english_page_reads_as_it_did_in_english_alone(read_by_default, read_in_english):
    assert page_text(read_by_default, 1) == page_text(read_in_english, 1)
    # Neither English nor German was chosen by script detection: no warning names them.
    assert not [warning for warning in read_by_default.warnings if "English" in warning]


def test_the_extractor_records_the_languages_each_page_was_read_in(read_by_default, three_scripts):
    extractor = read_by_default.extractor
    # After the engine's version: the languages used, in page order, then "auto".
    assert extractor.split("+ocr-tesseract-")[1].split("-", 1)[1] == "eng+deu,chi_sim-auto"
    engines = [page.engine.rsplit("-", 1)[1] for page in read_by_default.ocr_pages]
    assert engines == ["eng+deu", "chi_sim", "eng+deu"]
    assert extractor_is_current(extractor, three_scripts, OcrSettings())
    assert not extractor_is_current(extractor, three_scripts, OcrSettings("auto", ("chi_sim",)))


def test_a_page_read_with_low_confidence_is_said_to_be_unreliable(read_in_english):
    confidence = round(read_in_english.ocr_pages[1].confidence)
    assert confidence < 60
    assert not [warning for warning in read_in_english.warnings if "read as" in warning]
    assert (
        f"page 2 was read with a mean confidence of {confidence}%: check it against the page image"
    ) in read_in_english.warnings


def test_a_page_rendered_below_its_resolution_to_fit_the_pixel_budget_says_so(
    tmp_path, monkeypatch: pytest.MonkeyPatch
):
    needs_tesseract_languages("eng")
    scan = scan_pages(write_text_pdf(tmp_path / "prose.pdf", [PROSE]), tmp_path / "scan.pdf")
    # The 420 by 320 point page at 300 dpi is 2.3 million pixels: 2 million fit 277 dpi.
    monkeypatch.setattr(reader.ingest.page_image, "MAX_OCR_PIXELS", 2_000_000)
    extraction = extract(scan, ocr=OcrSettings("auto", ("eng",)))
    assert "page 1 is very large: read by OCR at 277 dpi" in extraction.warnings
    monkeypatch.undo()
    assert not [w for w in extract(scan, ocr=OcrSettings("auto", ("eng",))).warnings if "dpi" in w]
