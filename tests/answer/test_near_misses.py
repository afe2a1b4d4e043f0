"""Questions on a document's topic that ask for a quantity it does not give.

The document is a generated PDF; each near miss shares the report's words
("training", "model") but asks for a number of something the report never
counts, an age (at the event asked about), a price or a year it never states.
"""

from __future__ import annotations

import pytest

from reader.answer import Answerer

REPORT = [
    [
        ("Training report for the Heron language model", 16.0),
        "The Heron model was trained on 7 trillion tokens of web text and code. "
        "The training ran on 64 nodes of the Maple cluster for three weeks.",
        "Heron uses a tokenizer with 151,000 entries. The vendor offers a commercial licence "
        "for the Heron model to companies that cannot publish their changes.",
        "The author of the Heron model is the data team of the Maple lab, which also "
        "wrote this training report. The team tuned the model with instruction data. "
        "Its lead author was 34 years old when the Heron project began.",
    ]
]

ANSWERED = {
    "How many tokens was the Heron model trained on?": "7 trillion tokens",
    "How many nodes did the training of the Heron model run on?": "64 nodes",
    "How many entries does the tokenizer of the Heron model have?": "151,000 entries",
    "How old was the lead author when the Heron project began?": "34 years old",
}
NEAR_MISSES = {
    "How many hours did the training of the Heron model take?": "a number beside 'hours'",
    "How many engineers worked on the training of the Heron model?": "a number beside 'engineers'",
    "How many parameters does the Heron model have?": "a number beside 'parameters'",
    "How much does the commercial licence for the Heron model cost?": "a price",
    "How old was the lead author when the Heron model was released?": "an age",
    "In which year was the Heron model trained?": "a year",
}


@pytest.fixture
def report(library, make_pdf):
    return library, library.ingest(make_pdf(REPORT, name="heron.pdf")).doc_id


@pytest.mark.parametrize("question", sorted(ANSWERED))
def test_a_question_for_a_quantity_the_report_gives_is_answered(report, question):
    library, doc_id = report
    answer = Answerer(library, None, mode="passages").ask(question, [doc_id])
    assert answer.not_found is None
    assert any(ANSWERED[question] in claim.claim.quote for claim in answer.claims)


@pytest.mark.parametrize("question", sorted(NEAR_MISSES))
def test_a_near_miss_is_declined_with_the_closest_passages_shown_as_such(report, question, backend):
    library, doc_id = report
    answer = Answerer(library, backend, mode="constrained").ask(question, [doc_id])
    assert answer.claims == []
    assert answer.not_found is not None and NEAR_MISSES[question] in answer.not_found
    assert answer.to_json()["answered"] is False
    # The passages that came closest are listed, verified, as passages.
    assert answer.closest and all(item.verified for item in answer.closest)
    assert "Heron" in answer.closest[0].claim.quote
    # The model is not asked: the passages cannot hold what it would have to say.
    assert backend.requests == []
