"""The row codec: what the store writes reads back as it was, and a damaged value
fails with the errors repair takes as a row it cannot keep."""

from __future__ import annotations

import os
import zlib
from dataclasses import replace
from typing import Any

import pytest

from reader.records import Chunk, Document, Furniture, Heading, OcrConfidence, OcrPageInfo
from reader.store import LibraryStore
from reader.store.rows import (
    DOCUMENT_COLUMNS,
    DOCUMENT_META_COLUMNS,
    chunk_from_row,
    chunk_values,
    document_from_row,
    document_values,
    ocr_boxes_from_blob,
    ocr_words_from_blob,
    packed,
    summary_from_row,
)

TEXT = "Running head\n\nThe first page's text.\n\nThe second page's text."


def scanned_document() -> Document:
    return Document(
        id="doc1",
        title="A scanned report",
        path="/papers/report.pdf",
        kind="pdf",
        text=TEXT,
        page_starts=[0, 38],
        extractor="pdf-1 ocr-tesseract-eng",
        headings=[Heading(14, 1, "The first page")],
        warnings=["page 2 was read by OCR"],
        ingested_at="2024-05-01T10:00:00+00:00",
        furniture=[Furniture(0, 12, "header")],
        ocr_pages=[OcrPageInfo(2, 91.5, 0, "tesseract eng")],
    )


def stored_values(document: Document) -> dict[str, Any]:
    """The documents row written for ``document``, by column."""
    values = document_values(document, "report")
    return dict(zip(DOCUMENT_COLUMNS.split(", "), values, strict=True))


def meta_row(values: dict[str, Any]) -> list[Any]:
    return [values[column] for column in DOCUMENT_META_COLUMNS.split(", ")]


def test_a_document_reads_back_from_the_values_written_for_it():
    document = scanned_document()
    values = stored_values(document)
    assert values["extracted_title"] == "report"
    read = document_from_row(meta_row(values), values["text"], values["furniture"], values["ocr"])
    assert read == document


def test_a_path_that_is_not_utf8_is_written_as_its_bytes_and_read_back_as_named():
    document = replace(scanned_document(), path=os.fsdecode(b"/papers/r\xe9sum\xe9-\xff.pdf"))
    values = stored_values(document)
    assert values["path"] == b"/papers/r\xe9sum\xe9-\xff.pdf"
    read = document_from_row(meta_row(values), values["text"], values["furniture"], values["ocr"])
    assert read == document
    listed = [values[column] for column in ("id", "title", "path", "kind", "pages", "chars")]
    summary = summary_from_row([*listed, "pdf-1", "2024-05-01", 2, "[]", "[]"])
    assert summary.path == document.path


def test_a_chunk_reads_back_from_the_values_written_for_it():
    chunk = Chunk(
        "c1", "doc1", 0, 0, 36, TEXT[:36], ("The first page",), 1, 1, (Furniture(0, 12, "header"),)
    )
    assert chunk_from_row(chunk_values(chunk)) == chunk


def test_ocr_words_and_boxes_read_back_from_their_blobs():
    words = [[38, 41, 96.5], [42, 48, 62.0]]
    boxes = [[1.0, 2.0, 3.0, 4.0], None]
    assert ocr_words_from_blob(packed(words)) == [
        OcrConfidence(38, 41, 96.5),
        OcrConfidence(42, 48, 62.0),
    ]
    assert ocr_boxes_from_blob(packed(boxes)) == [(1.0, 2.0, 3.0, 4.0), None]


@pytest.mark.parametrize(
    ("column", "damaged"),
    [
        (6, "[0, 38"),  # page starts cut short
        (6, '[0, "a page"]'),  # page starts that are not numbers
        (7, '[[14, 1, "The first page", "more"]]'),  # a heading of four fields
        (8, None),  # warnings gone
    ],
)
def test_a_damaged_document_row_fails_as_repair_expects(column, damaged):
    meta = meta_row(stored_values(scanned_document()))
    document_from_row(meta, TEXT)  # whole, it reads
    meta[column] = damaged
    with pytest.raises((TypeError, ValueError)):
        document_from_row(meta, TEXT)


def test_a_damaged_ocr_blob_fails_as_repair_expects():
    blob = packed([[38, 41, 96.5]])
    with pytest.raises(zlib.error):
        ocr_words_from_blob(blob[:-3])


def test_the_store_reads_a_document_as_it_was_given(tmp_path):
    document = scanned_document()
    document.ocr_words = [OcrConfidence(38, 41, 96.5)]
    document.ocr_boxes = {2: [(1.0, 2.0, 3.0, 4.0), None]}
    with LibraryStore(tmp_path / "library.db") as store:
        store.add_document(document, [Chunk("c1", "doc1", 0, 0, 36, TEXT[:36])])
        # Boxes are read per page, when the page is drawn.
        assert store.get_document("doc1") == replace(document, ocr_boxes={})
        assert store.ocr_boxes("doc1", 2) == [(1.0, 2.0, 3.0, 4.0), None]
