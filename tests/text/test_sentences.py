"""Sentences as a reader sees them: abbreviations, initials, headings, lists."""

import itertools

import pytest
from hypothesis import given
from hypothesis import strategies as st

from reader.text.sentences import sentence_spans


@pytest.mark.parametrize(
    ("text", "sentences"),
    [
        (
            "The FAA barred operators in U.S. airspace. Then it lifted the ban.",
            ["The FAA barred operators in U.S. airspace.", "Then it lifted the ban."],
        ),
        (
            "Dr. Smith met J. Brown, e.g. in Paris. They talked for 2.5 hours!",
            ["Dr. Smith met J. Brown, e.g. in Paris.", "They talked for 2.5 hours!"],
        ),
        ("See Fig. 3 for the curve. It rises.", ["See Fig. 3 for the curve.", "It rises."]),
        (
            "Age groups\nThe following definitions are used in these guidelines.",
            ["Age groups", "The following definitions are used in these guidelines."],
        ),
        (
            "4.6 Research gaps\nResearch is particularly needed in these areas.",
            ["4.6 Research gaps", "Research is particularly needed in these areas."],
        ),
        # A line that runs on is no heading, however short.
        ("In 1998 the\nUnited Nations met in Rome.", ["In 1998 the\nUnited Nations met in Rome."]),
        ("costs of the\nUnited Nations rose.", ["costs of the\nUnited Nations rose."]),
        (
            "The regimens are:\n\n• one for 12 weeks.\n• two for 8 weeks.",
            ["The regimens are:", "• one for 12 weeks.", "• two for 8 weeks."],
        ),
    ],
)
def test_sentences_as_a_reader_sees_them(text, sentences):
    assert [text[start:end] for start, end in sentence_spans(text)] == sentences


_PIECES = ["Dr.", "U.S.", "e.g.", "J.", "2.4", "Age groups", "the", "Word", "end.", "why?"]
_PIECE = st.sampled_from([*_PIECES, "\n", "\n\n", " ", " ", " "])


@given(st.lists(_PIECE, max_size=40).map("".join))
def test_sentences_cover_every_character_once_in_order(text):
    spans = sentence_spans(text)
    covered = "".join(text[start:end] for start, end in spans)
    assert "".join(covered.split()) == "".join(text.split())
    for (start, end), (next_start, _) in itertools.pairwise(spans):
        assert start < end <= next_start
    assert all(text[start:end] == text[start:end].strip() for start, end in spans)
