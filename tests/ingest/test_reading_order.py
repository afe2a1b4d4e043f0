"""Pages are read column by column, whatever order the PDF draws its text in."""

from __future__ import annotations

import random

import pymupdf
from hypothesis import given, settings
from hypothesis import strategies as st

from reader.ingest.layout import page_text, page_text_with_boxes
from reader.ingest.reading_order import reading_order
from tests.books import WORDS


def paragraph(label: str, rng: random.Random, sentences: int = 3) -> str:
    return " ".join(
        f"{label} sentence {n} says the {' '.join(rng.choice(WORDS) for _ in range(9))}."
        for n in range(sentences)
    )


def columns_page(
    columns: int, per_column: int, draw_order: list[int], title: bool, seed: int
) -> tuple[pymupdf.Document, list[str]]:
    """A page of ``columns`` columns of paragraphs drawn in ``draw_order``.

    Returns the document and the paragraphs in reading order (title first).
    """
    rng = random.Random(seed)
    document = pymupdf.open()
    page = document.new_page(width=612, height=792)
    gutter, margin = 18, 48
    width = (612 - 2 * margin - gutter * (columns - 1)) / columns
    top = 130 if title else 60
    slots = []
    for column in range(columns):
        for row in range(per_column):
            x0 = margin + column * (width + gutter)
            y0 = top + row * (600 / per_column)
            slots.append((pymupdf.Rect(x0, y0, x0 + width, y0 + 600 / per_column - 8), column, row))
    texts = [paragraph(f"C{column}R{row}", rng) for _, column, row in slots]
    reading = []
    if title:
        heading = "A title that runs across every column of the page, as titles do"
        page.insert_textbox(pymupdf.Rect(margin, 60, 612 - margin, 110), heading, fontsize=14)
        reading.append(heading)
    reading += texts
    for index in draw_order:
        rect = slots[index][0]
        assert page.insert_textbox(rect, texts[index], fontsize=8) >= 0
    return document, reading


def normalised(text: str) -> str:
    return " ".join(text.replace("-\n", "").split())


@settings(max_examples=25, deadline=None)
@given(
    columns=st.integers(2, 3),
    per_column=st.integers(1, 3),
    title=st.booleans(),
    seed=st.integers(0, 10_000),
    data=st.data(),
)
def test_columns_read_in_order_whatever_the_drawing_order(columns, per_column, title, seed, data):
    count = columns * per_column
    draw_order = data.draw(st.permutations(range(count)))
    document, reading = columns_page(columns, per_column, list(draw_order), title, seed)
    text = normalised(page_text(document[0]))
    positions = [text.find(normalised(part)) for part in reading]
    assert -1 not in positions, (positions, text[:300])  # every paragraph whole
    assert positions == sorted(positions)  # and in reading order
    rebuilt, boxes = page_text_with_boxes(document[0])
    assert rebuilt == page_text(document[0]) and len(boxes) == len(rebuilt)


def test_a_sentence_never_runs_into_the_next_column():
    # Drawn row by row across the columns: the order a careless PDF producer uses.
    document, reading = columns_page(2, 3, [0, 3, 1, 4, 2, 5], title=False, seed=4)
    text = normalised(page_text(document[0]))
    for part in reading:
        for sentence in part.split(". "):
            assert sentence.strip(".") in text


def test_single_column_pages_keep_the_order_they_are_drawn_in():
    boxes = [(72, 700, 540, 720), (72, 72, 540, 300), (72, 310, 540, 600), (300, 760, 320, 770)]
    assert reading_order(boxes, [40, 900, 800, 2]) == [0, 1, 2, 3]


def test_table_cells_are_not_taken_for_columns():
    # Short cells in two aligned columns: read as drawn (row by row), not column by column.
    boxes = [(72, 100 + 20 * r, 200, 115 + 20 * r) for r in range(6)]
    boxes += [(300, 100 + 20 * r, 500, 115 + 20 * r) for r in range(6)]
    order = [0, 6, 1, 7, 2, 8, 3, 9, 4, 10, 5, 11]
    drawn = [boxes[i] for i in order]
    assert reading_order(drawn, [12] * 12) == list(range(12))


def test_blocks_beside_each_other_in_a_column_keep_their_drawing_order():
    # The pieces of a formula overlap vertically; their drawing order is kept.
    left = [(50, 100, 280, 300), (50, 310, 280, 500)]
    formula = [(330, 120, 360, 140), (300, 118, 325, 138), (365, 122, 400, 140)]
    right = [(300, 160, 560, 400)]
    boxes = left + formula + right
    order = reading_order(boxes, [900, 800, 5, 6, 7, 900])
    assert order == [0, 1, 2, 3, 4, 5]
