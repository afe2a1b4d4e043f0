"""Acronyms match the words they stand for, both ways, and nothing by chance."""

from __future__ import annotations

import pytest

from reader.retrieve.acronyms import AcronymMatcher, acronym_letters


@pytest.mark.parametrize(
    ("word", "letters"),
    [
        ("RoPE", "rpe"),
        ("HCV", "hcv"),
        ("DAAs", "daa"),
        ("LLMs", "llm"),
        ("SwiGLU", "sglu"),
        ("IoT", "it"),
        ("McDonald", None),  # a name: more small letters than capitals
        ("Lydia", None),
        ("INTRODUCTION", None),  # a heading's word in capitals
        ("A", None),
    ],
)
def test_an_acronym_is_known_by_its_capitals(word, letters):
    assert acronym_letters(word) == letters


def test_an_acronym_in_the_sentence_says_the_words_of_the_question():
    matcher = AcronymMatcher.for_question(
        "To what value was the rotary position embedding base raised?"
    )
    held = matcher.held_words("We modified the base frequency of RoPE from 10,000 to 1,000,000.")
    assert held == ["rotary", "position", "embedding"]
    # A soft hyphen inside the acronym's word leaves it one word.
    assert matcher.held_words("The Ro\u00adPE base was raised.") == held
    assert matcher.held_words("The rope was raised to the base.") == []


def test_words_of_the_sentence_spell_out_an_acronym_of_the_question():
    matcher = AcronymMatcher.for_question("How many children with HCV were treated?")
    assert matcher.held_words("Children with chronic hepatitis C virus infection.") == ["hcv"]
    assert matcher.held_words("Hepatitis B and C infections.") == []


def test_two_initials_are_not_spelled_out_by_chance():
    # "used since" begins as "US" does; two letters in a sentence's words prove nothing.
    matcher = AcronymMatcher.for_question("When did the US adopt the rule?")
    assert matcher.held_words("The rule was used since the war.") == []
    # An acronym of two letters in the sentence still says the question's words.
    spelled = AcronymMatcher.for_question("When was artificial intelligence regulated?")
    assert spelled.held_words("AI was regulated in 2024.") == ["artificial", "intelligence"]


def test_a_hyphenated_word_gives_its_parts_as_initials():
    matcher = AcronymMatcher.for_question("What did direct-acting antivirals change?")
    assert matcher.held_words("DAAs changed the treatment.") == ["direct", "acting", "antivirals"]


def test_negation_and_articles_stand_in_no_acronym():
    matcher = AcronymMatcher.for_question("What does not lie between L and a P?")
    assert matcher.held_words("Classes such as NL and AP lie between them.") == []
