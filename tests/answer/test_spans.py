"""Answers built from the quotes: where the chosen words lie in their quote, and
each way cutting them out of their sentence can change what they say."""

from __future__ import annotations

import pytest

from reader.answer.spans import find_run, narrowed, span_grounding, states_nothing
from reader.retrieve.question import Question

DEMANDED = "They demanded $12,000 to dismiss the case."


def test_a_run_is_found_where_it_lies_in_the_one_line_quote():
    run = find_run("$12,000", DEMANDED)
    assert run is not None
    assert (run.first, run.last) == (2, 2)
    assert DEMANDED[run.start : run.end] == "$12,000"


def test_a_run_may_drop_a_mark_at_its_end_and_differ_in_letter_case():
    run = find_run("dismiss the case", DEMANDED)
    assert run is not None and DEMANDED[run.start : run.end] == "dismiss the case"
    run = find_run("They Demanded", DEMANDED)
    assert run is not None and DEMANDED[run.start : run.end] == "They demanded"


def test_a_quote_over_several_lines_is_read_as_one_line():
    quote = "They demanded\n$12,000 to   dismiss the case."
    run = find_run("demanded $12,000", quote)
    assert run is not None
    assert " ".join(quote.split())[run.start : run.end] == "demanded $12,000"


@pytest.mark.parametrize(
    "text",
    [
        "$12,000 to settle",  # a word the quote does not have
        "demanded to dismiss",  # words left out inside the run
        "case. They",  # not in the quote's order
        "$12",  # part of a word
        "",
    ],
)
def test_what_is_not_an_unbroken_run_of_the_quote_is_not_found(text):
    assert find_run(text, DEMANDED) is None
    grounding, run = span_grounding(text, DEMANDED, Question.parse("How much did they demand?"))
    assert not grounding.grounded and run is None


def test_words_that_stand_as_said_are_the_direct_answer():
    grounding, run = span_grounding(
        "$12,000", DEMANDED, Question.parse("How much did they demand?")
    )
    assert grounding.grounded and run is not None


@pytest.mark.parametrize(
    ("quote", "chosen", "kind"),
    [
        ("The court did not award $5,000 to the student.", "$5,000", "not"),
        ("The judge never awarded $5,000.", "$5,000", "never"),
        ("The court didn't award $5,000.", "$5,000", "didn't"),
        ("If the appeal fails, the fee is $5,000.", "$5,000", "condition"),
        ("The fee is $5,000 unless the court waives it.", "$5,000", "condition"),
        ("The damages could reach $5,000.", "$5,000", "could"),
        ("The fee may be $5,000.", "$5,000", "may"),
        ("Critics said the fee was $5,000.", "$5,000", "said"),
        ("According to the lawyers, the fee was $5,000.", "$5,000", "according"),
        ("The fee was about $5,000.", "$5,000", "approximation"),
        ("The fee was nearly $5,000.", "$5,000", "approximation"),
        ("Most students paid $5,000.", "students paid $5,000", "qualifies"),
        ("Some students paid $5,000.", "students paid $5,000", "qualifies"),
    ],
)
def test_a_run_its_sentence_narrows_is_no_direct_answer(quote, chosen, kind):
    grounding, run = span_grounding(chosen, quote, Question.parse("How much was the fee?"))
    assert run is not None, "the words are the quote's own"
    assert not grounding.grounded
    why = narrowed(quote, run)
    assert why is not None and kind in why


@pytest.mark.parametrize(
    ("quote", "chosen"),
    [
        # A negation in another clause does not bear on the run.
        ("The fee was $5,000, but the court did not collect it.", "$5,000"),
        # Nor does one in a clause of its own after the run's.
        ("Each student paid $5,000 and the school paid nothing.", "$5,000"),
        # The whole negated phrase, chosen with its negation, says what the sentence says.
        ("The court did not award damages.", "did not award damages"),
    ],
)
def test_words_outside_the_runs_clause_or_inside_the_run_leave_it_standing(quote, chosen):
    grounding, run = span_grounding(chosen, quote, Question.parse("What did the court do?"))
    assert run is not None and grounding.grounded, grounding.reason


def test_a_fragment_of_the_questions_own_words_states_nothing():
    question = "What did the Query attention replace?"
    quote = "Grouped-query attention replaced Multi-Head Query attention (MHA)."
    assert states_nothing("Query attention", Question.parse(question))
    grounding, run = span_grounding("Query attention", quote, Question.parse(question))
    assert run is not None and not grounding.grounded
    assert "nothing the question does not" in grounding.reason
    # A number is never nothing, even where the question names it.
    assert not states_nothing("1648", Question.parse("Was it signed in 1648?"))


def test_only_the_runs_own_sentence_bears_on_it_when_a_quote_holds_two():
    quote = "If the response is old, the cache SHOULD warn. A typical fee is $5,000."
    grounding, _ = span_grounding("$5,000", quote, Question.parse("What is a typical fee?"))
    assert grounding.grounded, grounding.reason
    grounding, _ = span_grounding(
        "the cache SHOULD warn", quote, Question.parse("What should the cache do?")
    )
    assert not grounding.grounded and "condition" in grounding.reason


@pytest.mark.parametrize(
    ("question", "quote", "chosen"),
    [
        (
            "How much did Colonel Forster think was needed?",
            "Colonel Forster believed that more than a thousand pounds would be necessary.",
            "more than a thousand pounds",
        ),
        ("Roughly how many ships waited?", "About forty ships waited.", "forty ships"),
        ("Which clients may not keep a connection?", "Old clients may not keep one.", "Old"),
    ],
)
def test_a_narrowing_the_question_asks_under_is_no_narrowing(question, quote, chosen):
    grounding, _ = span_grounding(chosen, quote, Question.parse(question))
    assert grounding.grounded, grounding.reason
    # Asked for the fact, the same words are narrowed.
    plain = question.replace(" think", "").replace("Roughly how", "How").replace(" not", "")
    plain = plain.replace(" may", "")
    assert not span_grounding(chosen, quote, Question.parse(plain))[0].grounded


def test_a_first_when_asks_for_a_time_and_a_later_when_asks_under_a_condition():
    quote = "If the court sat, the fee was $5,000."
    assert not span_grounding("$5,000", quote, Question.parse("When was the fee paid?"))[0].grounded
    assert span_grounding("$5,000", quote, Question.parse("What was the fee if the court sat?"))[
        0
    ].grounded
    # A "when" after the question's first word asks under a condition.
    assert span_grounding("$5,000", quote, Question.parse("What was the fee when the court sat?"))[
        0
    ].grounded
