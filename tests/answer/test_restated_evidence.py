"""A question that is one of the document's own sentences, answered without a model: the
sentence is linked as the source's words, never listed as a claim its quote does not say,
and quotation marks inside it are not doubled up at its end."""

from __future__ import annotations

from reader.answer import Answerer
from reader.answer.render import render_markdown, render_text

BOOK = (
    "The creative class\n\n"
    "Unfortunately, we are also seeing an extraordinary rise of regulation of this "
    "creative class. We may be seeing, as Richard Florida writes, the \u201cRise of the "
    "Creative Class.\u201d Cities compete for the people who make things.\n"
)
QUESTION = "We may be seeing the Rise of the Creative Class, as Richard Florida writes"


def test_a_restated_sentence_is_the_sources_words_and_not_an_unsupported_claim(library, make_file):
    library.ingest(make_file("book.txt", BOOK.encode()))
    answer = Answerer(library, None).ask(QUESTION)
    restated = next(c for c in answer.claims if "Richard Florida writes" in c.claim.quote)
    assert restated.verified and restated.from_evidence and not restated.grounded
    # Before: "(its quote does not say this: the claim only restates the question)".
    assert answer.unsupported == []
    shown = restated.shown_text
    assert shown.endswith("Creative Class.\u2019\u201d") and "\u201d\u201d" not in shown
    text = render_text(answer)
    assert "Unsupported" not in text
    assert "evidence; it may not answer: the claim only restates the question" in text
    assert "it may not answer: the claim only restates the question" in render_markdown(answer)
