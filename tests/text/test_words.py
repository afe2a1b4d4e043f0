"""Matching forms of words: what counts as the same word."""

from __future__ import annotations

import pytest

from reader.text.words import stem


@pytest.mark.parametrize(("one", "other"), [("registry", "register"), ("registries", "registered")])
def test_words_a_reader_takes_for_one_share_a_stem(one, other):
    assert stem(one) == stem(other)


@pytest.mark.parametrize(
    ("one", "other"), [("chemistry", "chemist"), ("ministry", "minister"), ("forestry", "forest")]
)
def test_words_of_different_meaning_keep_apart(one, other):
    # "won the Nobel Prize in Chemistry" is not "a chemist won the Nobel Prize".
    assert stem(one) != stem(other)
