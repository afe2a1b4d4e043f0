"""Claim hygiene: talk about the passages is stripped; "not answered" is recognised."""

import pytest

from reader.answer.hygiene import says_not_answered, strip_meta


@pytest.mark.parametrize(
    ("written", "cleaned"),
    [
        ("According to the passage, the fee is due monthly.", "The fee is due monthly."),
        ("The passage directly states that plug-ins use it.", "Plug-ins use it."),
        ("Based on the provided text, it lasted 14 years.", "It lasted 14 years."),
        ("The passages state: the term is 14 years.", "The term is 14 years."),
        ("According to passage c2, the price rose.", "The price rose."),
        ("It is stated in the passage that rents rose.", "Rents rose."),
        ("According to the text, the passage says that rents rose.", "Rents rose."),
        ("The FAA barred U.\u200dS.\u200d operators.", "The FAA barred U.S. operators."),
        (
            "Wailuku means 'destroying water.' This quote directly answers the question by "
            "providing the literal definition.",
            "Wailuku means 'destroying water.'",
        ),
        ("The fee is due monthly. This answers the question.", "The fee is due monthly."),
        ('The fee is "monthly." The passage states this clearly.', 'The fee is "monthly."'),
    ],
)
def test_meta_phrases_are_stripped(written, cleaned):
    assert strip_meta(written) == cleaned


@pytest.mark.parametrize(
    "claim",
    [
        "The term is fourteen years.",
        "The source of the Nile is Lake Victoria.",
        "Information theory began in 1948.",
        "In documents filed in 2004, the agency said so.",
        "The passage.",  # nothing but the wrapper: kept, and the support check refuses it
        "The report was published in 2019. It shows a rise.",
        "He said it. That was new.",
    ],
)
def test_statements_about_the_document_are_left_alone(claim):
    assert strip_meta(claim) == claim


@pytest.mark.parametrize(
    "claim",
    [
        "The deadline is not specified in the passage.",
        "The passages do not answer this question.",
        "The passages do not mention the deadline.",
        "There is no information about the fine in the passages.",
        "The text does not provide this information.",
        "Not specified.",
    ],
)
def test_the_model_saying_the_passages_do_not_answer_is_recognised(claim):
    assert says_not_answered(claim)


@pytest.mark.parametrize(
    "claim",
    [
        "The fee is not refundable.",
        "The court did not find him guilty.",
        "The agency did not mention the rule in its report.",
        "No information was given to the patients.",
        # The document's own statement that nothing is known is an answer.
        "The FAA states that there is no information available to estimate the cost.",
    ],
)
def test_negative_statements_about_the_document_are_claims(claim):
    assert not says_not_answered(claim)
