"""The extractor version recorded beside each document: one string, read one way."""

import pytest

from reader.ingest import ExtractorVersion

STORED = [
    ("text-1", ExtractorVersion("text-1"), None),
    (
        "pymupdf-1.26.3+mupdf-1.26.3/7",
        ExtractorVersion("pymupdf-1.26.3+mupdf-1.26.3/7"),
        None,
    ),
    (
        "pymupdf-1.26.3+mupdf-1.26.3/7+ocr-tesseract-5.3.0-eng+deu",
        ExtractorVersion("pymupdf-1.26.3+mupdf-1.26.3/7", "tesseract-5.3.0-eng+deu"),
        "eng+deu",
    ),
    (
        "pymupdf-1.26.3+mupdf-1.26.3/7+ocr-tesseract-5.3.0-chi_sim,eng-auto",
        ExtractorVersion("pymupdf-1.26.3+mupdf-1.26.3/7", "tesseract-5.3.0-chi_sim,eng-auto"),
        "auto",
    ),
]


@pytest.mark.parametrize(("stored", "version", "languages"), STORED)
def test_a_stored_version_parses_and_formats_back_to_itself(stored, version, languages):
    assert ExtractorVersion.parse(stored) == version
    assert version.format() == stored
    assert version.ocr_languages == languages
