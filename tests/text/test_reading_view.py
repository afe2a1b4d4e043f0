"""The reading view: length-preserving, furniture left out, line breaks undone."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from reader.records import Furniture
from reader.text.normalize import normalize_key
from reader.text.reading_view import (
    _CONTINUED,
    _joined_paragraph_breaks,
    outside,
    readable,
    reading_view,
)

PAGE_BREAK = "would effectively destroy the archiving\n\nPUZZLES 203\n\nuse of CDs. The technology"


def furniture_at(text: str, piece: str, kind: str = "header") -> Furniture:
    start = text.index(piece)
    return Furniture(start, start + len(piece), kind)  # type: ignore[arg-type]


def test_a_sentence_runs_on_across_the_page_break_without_its_running_head():
    view = reading_view(PAGE_BREAK, [furniture_at(PAGE_BREAK, "PUZZLES 203")])
    assert len(view) == len(PAGE_BREAK)
    assert readable(view) == "would effectively destroy the archiving use of CDs. The technology"


def test_markers_vanish_and_hyphenated_words_join():
    text = "used record stores in America today.16 These\nstores of record-\nings. copyright.When"
    view = reading_view(text, [furniture_at(text, "16", "marker")])
    assert len(view) == len(text)
    assert readable(view) == (
        "used record stores in America today. These stores of recordings. copyright. When"
    )
    # The verifier's key sees the view as it sees the quote a reader makes.
    assert normalize_key(view) == normalize_key(readable(view))


def test_a_marker_between_two_words_leaves_a_space():
    text = "the harbour16authority"
    view = reading_view(text, [furniture_at(text, "16", "marker")])
    assert readable(view) == "the harbour authority"


def test_paragraphs_stay_apart_and_kept_furniture_shows():
    text = "A heading\n\nThe first paragraph ends here.\n\nthe next page starts"
    assert readable(reading_view(text)) == (
        "A heading The first paragraph ends here. the next page starts"
    )
    view = reading_view(text)
    assert "heading\n\nThe first" in view  # a heading is not run into its paragraph
    kept = reading_view(PAGE_BREAK, [furniture_at(PAGE_BREAK, "PUZZLES 203")], keep_furniture=True)
    assert "archiving  PUZZLES 203  use" in kept and len(kept) == len(PAGE_BREAK)


@given(
    st.text(alphabet="ab -\n.,16", max_size=80),
    st.lists(st.tuples(st.integers(0, 80), st.integers(0, 10)), max_size=4),
)
def test_the_view_always_has_the_texts_length(text, spans):
    furniture = [
        Furniture(start, min(len(text), start + size), "marker" if size < 3 else "header")
        for start, size in spans
        if start < len(text) and size
    ]
    assert len(reading_view(text, furniture)) == len(text)
    assert len(reading_view(text, furniture, keep_furniture=True)) == len(text)


def test_outside_leaves_the_furniture_out_of_a_span():
    head = furniture_at(PAGE_BREAK, "PUZZLES 203")
    parts = outside(0, len(PAGE_BREAK), [head])
    assert parts == [(0, head.start), (head.end, len(PAGE_BREAK))]
    assert outside(0, 10, [head]) == [(0, 10)]


# The characters the paragraph-break rule reads: words, commas, capitals, digits,
# spaces, tabs, zero-width spaces, line breaks and the whitespace it does not take.
GAP_TEXT = st.lists(
    st.sampled_from(
        ["ab", "A", "1", ",", ".", "-", "_", "é", " ", "  ", "\t", "\u200b", "\n", "\n\n", "\r"]
    ),
    max_size=16,
).map("".join)


@given(GAP_TEXT, st.sets(st.integers(0, 40), max_size=3))
@settings(max_examples=2000)
def test_paragraph_breaks_are_joined_where_the_rule_matches_and_nowhere_else(text, kept):
    # The search only looks where a blank line is; the rule, tried at every character,
    # is the definition.
    expected = _CONTINUED.sub(
        lambda gap: gap.group() if gap.start() in kept else " " * len(gap.group()), text
    )
    assert _joined_paragraph_breaks(text, kept) == expected
