"""English number words, and each stage reading them from the one list."""

from __future__ import annotations

import re

import pytest

from reader.ingest.titles import is_generic_section_name
from reader.retrieve.answer_kinds import kind_bonus
from reader.retrieve.quantities import asked_quantity, holds_quantity
from reader.text.numbers import (
    MULTIPLIERS,
    ORDINALS,
    SMALL_NUMBERS,
    TENS,
    alternation,
    small_number_words,
)
from reader.verify.numbers import number_phrases, number_value


def test_the_words_carry_their_values():
    assert SMALL_NUMBERS["fourteen"] == 14
    assert TENS["ninety"] == 90
    assert MULTIPLIERS["million"] == 1_000_000
    assert ORDINALS["twelfth"] == 12
    assert small_number_words(1, 3) == ["one", "two", "three"]
    assert small_number_words(11, 30) == [
        "eleven",
        "twelve",
        "thirteen",
        "fourteen",
        "fifteen",
        "sixteen",
        "seventeen",
        "eighteen",
        "nineteen",
    ]


def test_an_alternation_tries_the_words_in_the_order_given():
    pattern = re.compile(rf"\b(?:{alternation(small_number_words(1, 19))})\b")
    assert pattern.findall("four and fourteen, not fourty") == ["four", "fourteen"]


@pytest.mark.parametrize(
    "passage",
    [
        "The court had twenty-seven justices.",
        "The court had fourteen justices.",
        "Hundreds of justices sat.",
    ],
)
def test_a_count_written_out_answers_how_many(passage):
    question = "How many justices sat on the court?"
    asked = asked_quantity(question)
    assert asked is not None
    assert holds_quantity(asked, [passage])
    assert not holds_quantity(asked, ["Justices sat on the court."])


@pytest.mark.parametrize(
    "passage", ["He died at the age of twenty-seven.", "He died aged fourteen."]
)
def test_an_age_written_out_answers_how_old(passage):
    question = "How old was he when he died?"
    asked = asked_quantity(question)
    assert asked is not None
    assert holds_quantity(asked, [passage])


@pytest.mark.parametrize(
    "sentence", ["one quarter of them", "fourteen years", "twenty-seven", "Half"]
)
def test_a_number_written_out_is_a_number_answer(sentence):
    assert kind_bonus("number", sentence) > 0


def test_one_alone_is_no_number_answer():
    # "one of them" names no count.
    assert kind_bonus("number", "one of them") == 0


@pytest.mark.parametrize(
    ("name", "generic"),
    [("Chapter Twelve", True), ("Part Third", True), ("Chapter Thirteen", False)],
)
def test_a_section_numbered_in_words_is_generic_up_to_twelve(name, generic):
    assert is_generic_section_name(name) is generic


def test_the_verifier_reads_number_words_as_numerals():
    assert number_value("twentyfour") == "24"  # "twenty-four", folded to one word
    assert number_value("zero") == "0"
    assert number_value("third") == number_value("3rd")
    assert number_value("second") is None  # as often a unit of time
    assert number_value("million") is None  # a multiplier, read in a phrase
    assert number_phrases(["fifty", "thousand"]) == [(0, 2, "50000")]
    assert number_phrases(["2", "million"]) == [(0, 2, "2000000")]
