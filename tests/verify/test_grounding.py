"""The grounding check: a claim says only what its quote says."""

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from reader.verify.grounding import NEGATIONS, STOPWORDS, check_grounding, stem, words

QUOTE = (
    "Statutory licences let radio stations play recordings without permission, "
    "provided they pay a fee of 1,000 dollars set by the Copyright Office in 1998."
)


def test_a_claim_in_the_quote_own_words_is_grounded():
    result = check_grounding(
        "Radio stations pay a fee of 1,000 dollars set by the Copyright Office.", QUOTE
    )
    assert result.grounded, result.reason
    assert result.missing == ()


def test_inflection_and_case_are_allowed():
    assert check_grounding(
        "A statutory licence lets a radio station play a recording.", QUOTE
    ).grounded
    assert check_grounding("the copyright office SET the fee", QUOTE).grounded


@pytest.mark.parametrize(
    ("claim", "missing"),
    [
        ("Radio stations pay a fee of 2,000 dollars.", "2,000"),
        ("The fee was set in 1999.", "1999"),
        ("The Supreme Court set the fee.", "supreme"),
        ("Radio stations pay a fee set by the Copyright Office to composers.", "composers"),
        ("Television stations pay a fee.", "television"),
    ],
)
def test_a_changed_number_name_or_word_is_not_grounded(claim, missing):
    result = check_grounding(claim, QUOTE)
    assert not result.grounded
    assert missing in result.missing
    assert f"'{missing}'" in result.reason


def test_the_same_number_written_differently_is_grounded():
    assert check_grounding("The fee is 1000 dollars.", QUOTE).grounded
    assert check_grounding("There were three owners.", "The three owners agreed.").grounded
    assert check_grounding("There were 3 owners.", "The three owners agreed.").grounded
    assert not check_grounding("There were four owners.", "The three owners agreed.").grounded


def test_an_added_negation_is_not_grounded():
    result = check_grounding("Radio stations do not pay a fee.", QUOTE)
    assert not result.grounded
    assert "'not'" in result.reason


def test_a_dropped_negation_is_not_grounded():
    quote = "The committee did not approve the budget for 2021."
    result = check_grounding("The committee approved the budget for 2021.", quote)
    assert not result.grounded
    assert "drops it" in result.reason
    assert check_grounding("The committee didn't approve the budget for 2021.", quote).grounded
    # "never" says more than "did not": not the same statement
    assert not check_grounding("The committee never approved the budget for 2021.", quote).grounded


def test_a_negation_in_a_clause_the_claim_does_not_use_is_allowed():
    quote = "The board approved the budget, but it did not approve the merger."
    assert check_grounding("The board approved the budget.", quote).grounded


def test_question_words_may_restate_the_question_but_not_numbers():
    quote = "It was signed in 1648 in Westphalia."
    question = "When was the Treaty of Westphalia signed?"
    assert check_grounding("The Treaty of Westphalia was signed in 1648.", quote, question).grounded
    assert not check_grounding("The Treaty was signed in 1649.", quote, "Was it 1649?").grounded


def test_a_claim_that_only_restates_the_question_is_not_grounded():
    result = check_grounding(
        "The treaty was signed.", "It was signed in 1648.", "When was the treaty signed?"
    )
    # "signed" is in the quote, so the claim does state something the quote says
    assert result.grounded
    result = check_grounding("The treaty.", "It was signed in 1648.", "When was the treaty signed?")
    assert not result.grounded
    assert "restates the question" in result.reason


def test_an_empty_claim_is_not_grounded():
    assert not check_grounding("", QUOTE).grounded
    assert not check_grounding("  ...  ", QUOTE).grounded


def test_the_readme_example_is_caught():
    claim = (
        "The Supreme Court has held that the copyright owners have no right to charge a fee "
        "for the use of their works."
    )
    quote = (
        "Congress has created statutory licenses for some uses of recordings, so that a "
        "radio station may play them without the permission of the copyright owner."
    )
    result = check_grounding(claim, quote)
    assert not result.grounded
    assert {"supreme", "court", "charge", "fee"} <= set(result.missing)


def test_curly_quotes_ligatures_and_cjk():
    assert check_grounding(
        "The \ufb01nal report’s date.", "the final report's date is set"
    ).grounded
    assert check_grounding("北京是首都", "中国的首都是北京。").grounded
    assert not check_grounding("上海是首都", "中国的首都是北京。").grounded


def test_words_and_stems():
    assert words("Don't stop 1,000 times!") == ["do", "not", "stop", "1,000", "times"]
    assert stem("licences") == stem("licence")


_word = st.text(alphabet="abcdefghijklmnopqrstuvwxyz", min_size=4, max_size=9).filter(
    lambda w: w not in STOPWORDS and w not in NEGATIONS
)


@given(st.lists(_word, min_size=3, max_size=12), st.data())
def test_any_quote_grounds_itself_and_every_run_of_its_words(tokens, data):
    quote = " ".join(tokens) + "."
    assert check_grounding(quote, quote).grounded
    start = data.draw(st.integers(0, len(tokens) - 1))
    end = data.draw(st.integers(start + 1, len(tokens)))
    assert check_grounding(" ".join(tokens[start:end]), quote).grounded


@given(
    st.lists(_word, min_size=3, max_size=12),
    st.integers(min_value=0, max_value=10_000),
    st.integers(min_value=1, max_value=999),
)
def test_a_changed_number_is_never_grounded(tokens, number, delta):
    quote = " ".join(tokens) + f" {number}."
    claim = " ".join(tokens) + f" {number + delta}."
    result = check_grounding(claim, quote)
    assert not result.grounded
    assert str(number + delta) in result.missing


@given(st.lists(_word, min_size=3, max_size=12), _word)
def test_a_new_content_word_is_never_grounded(tokens, extra):
    assume(stem(extra) not in {stem(t) for t in tokens})
    result = check_grounding(" ".join([*tokens, extra]) + ".", " ".join(tokens) + ".")
    assert not result.grounded
    assert extra in result.missing


@given(st.lists(_word, min_size=3, max_size=12), st.sampled_from(["not", "never", "no"]))
def test_adding_or_dropping_a_negation_is_never_grounded(tokens, negation):
    plain = " ".join(tokens) + "."
    negated = " ".join([tokens[0], negation, *tokens[1:]]) + "."
    assert not check_grounding(negated, plain).grounded
    assert not check_grounding(plain, negated).grounded
    assert check_grounding(negated, negated).grounded
