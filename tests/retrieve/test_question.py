from __future__ import annotations

from reader.retrieve.quantities import AskedQuantity
from reader.retrieve.question import Question, even_rarity, unstated_quantity
from tests.retrieve.test_evidence import evidence_in


def test_a_question_is_read_once_into_what_every_stage_reads():
    question = Question.parse("  How many GPU hours did Jesse Jordan's search engine take?  ")
    assert question.text == "How many GPU hours did Jesse Jordan's search engine take?"
    assert question.names == ("GPU", "Jesse", "Jordan")
    assert question.quantity == AskedQuantity("count", ("hours",))
    assert question.kind == "number"
    assert question.words is not None
    assert {"hour", "search", "engin"} <= set(question.words.weight_of)


def test_rarity_weighs_the_words_and_without_a_library_every_word_weighs_the_same():
    rare = Question.parse("Which harbour fee applies?", lambda terms: {t: 3.0 for t in terms})
    even = Question.parse("Which harbour fee applies?", even_rarity)
    assert rare.words is not None and even.words is not None
    assert set(rare.words.weight_of.values()) == {3.0}
    assert set(even.words.weight_of.values()) == {1.0}


def test_a_question_of_small_words_alone_has_nothing_to_look_for():
    question = Question.parse("What is it?")
    assert question.words is None
    assert evidence_in("What it is, is this sentence here.", question.text) == []


def test_the_reason_names_what_the_passages_lack():
    question = Question.parse("How many GPU hours did it take to pre-train Qwen2-72B?")
    assert unstated_quantity(question, ["Qwen2-72B has significant advantages."]) == (
        "no passage found for it gives a number beside 'hours'"
    )
    assert unstated_quantity(question, ["It took 400,000 GPU hours."]) is None
    assert unstated_quantity(Question.parse("Why is the sky blue?"), ["Nothing here."]) is None
