import itertools

import pymupdf
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reader.ingest import read_document
from reader.ingest.layout import (
    EXTRACTION_FLAGS,
    _displayer,
    page_blocks,
    page_dict_blocks,
    page_text,
    page_text_with_boxes,
    span_rects,
)


def test_rebuilt_page_text_equals_the_canonical_page_text(make_pdf):
    path = make_pdf(
        [["Alpha paragraph with some words. " * 8, "Beta paragraph."], ["Gamma on page two."]]
    )
    document, _ = read_document(path)
    with pymupdf.open(path) as pdf:
        for number, page in enumerate(pdf, start=1):
            start, end = document.page_range(number)
            text, boxes = page_text_with_boxes(page)
            assert text == document.text[start:end].removesuffix("\n\n")
            assert text == page_text(page)
            assert len(boxes) == len(text)
            assert all(
                (box is None) == (char == "\n") for char, box in zip(text, boxes, strict=True)
            )


def test_span_rects_cover_the_quoted_words_on_the_page(make_pdf):
    path = make_pdf([["Intro line.", "The quick brown fox jumps over the lazy dog."]])
    document, _ = read_document(path)
    start = document.text.index("brown fox")
    with pymupdf.open(path) as pdf:
        page = pdf[0]
        rects = span_rects(page, start, start + len("brown fox"))
        expected = page.search_for("brown fox")
    assert len(rects) == 1 and len(expected) == 1
    found, truth = rects[0], expected[0]
    assert abs(found.x0 - truth.x0) < 2 and abs(found.x1 - truth.x1) < 2
    assert found.intersects(truth)


def test_span_rects_give_one_rectangle_per_line(make_pdf):
    path = make_pdf([["word " * 120]])
    document, _ = read_document(path)
    with pymupdf.open(path) as pdf:
        rects = span_rects(pdf[0], 0, len(document.text))
    assert len(rects) == document.text.count("\n") + 1
    assert all(a.y1 <= b.y0 + 1 for a, b in itertools.pairwise(rects))


def test_a_pdf_whose_name_is_not_utf8_is_read_and_rendered(make_pdf, tmp_path):
    import os

    from reader.ingest.layout import render_page

    made = make_pdf([["The quick brown fox jumps over the lazy dog."]])
    odd = os.fsdecode(os.fsencode(tmp_path) + b"/caf\xe9-notes.pdf")
    with open(odd, "wb") as stream:
        stream.write(made.read_bytes())
    document, _ = read_document(odd)
    start = document.text.index("brown fox")
    width, height, _, samples, rects = render_page(odd, 1, spans=[(start, start + 9)])
    assert width > 0 and height > 0 and len(samples) > 0
    assert len(rects) == 1


def test_the_dict_blocks_ingest_reads_are_those_get_text_gives(make_pdf):
    path = make_pdf([["Alpha paragraph. " * 12, ("A heading", 16.0), "Beta paragraph."]])
    with pymupdf.open(path) as pdf:
        page = pdf[0]
        expected = page.get_text("dict", flags=EXTRACTION_FLAGS)["blocks"]
        assert page_dict_blocks(page) == expected
        reused = page_blocks(page, raw_blocks=page_dict_blocks(page))
        assert [(b.lines, b.bbox, b.line_boxes) for b in reused] == [
            (b.lines, b.bbox, b.line_boxes) for b in page_blocks(page)
        ]


@given(
    rotation=st.sampled_from([0, 90, 180, 270]),
    origin=st.tuples(st.floats(-200, 200), st.floats(-200, 200)),
    corner=st.tuples(st.floats(0, 600), st.floats(0, 800)),
    size=st.tuples(st.floats(0, 300), st.floats(0, 100)),
)
@settings(max_examples=200, deadline=None)
def test_a_box_is_displayed_where_pymupdfs_rotation_matrix_puts_it(rotation, origin, corner, size):
    document = pymupdf.open()
    page = document.new_page(width=600, height=800)
    # A media box that does not start at (0, 0) moves the matrix's origin too.
    page.set_mediabox(pymupdf.Rect(origin[0], origin[1], origin[0] + 600, origin[1] + 800))
    page.set_rotation(rotation)
    box = (corner[0], corner[1], corner[0] + size[0], corner[1] + size[1])

    expected = pymupdf.Rect(box) * page.rotation_matrix
    assert _displayer(page)(box) == pytest.approx(tuple(expected), abs=1e-3)
