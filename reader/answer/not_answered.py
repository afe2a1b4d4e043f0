"""Why the documents do not seem to answer a question, in words a user can check.

Each reason is found at its own step of answering: the question names something
no passage mentions (before any sentence is scored), no passage holds enough of
its key words (the evidence), or the model says the passages do not answer (its
reply). The answer then says so and lists the closest passages as passages,
never as claims.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from reader.records import Answer, AnswerMetrics, CheckedClaim, PageStarts, page_name
from reader.retrieve.evidence import Evidence

# How many of the names no passage mentions the reason quotes.
NAMES_QUOTED = 3


def never_mentioned(names: Sequence[str]) -> str:
    """The reason for names no passage of the documents holds."""
    quoted = " or ".join(f"'{name}'" for name in names[:NAMES_QUOTED])
    return f"no passage of the documents mentions {quoted}"


def too_few_key_words(evidence: Sequence[Evidence], page_map: Callable[[str], PageStarts]) -> str:
    """The reason for evidence that holds too little of the question, and where the
    closest sentence is."""
    if not evidence:
        return "no passage holds the question's key words"
    best = evidence[0]
    page = best.chunk.page_start
    label = page_map(best.chunk.doc_id).page_label(page)
    return (
        f"no passage holds more than {best.matched} of the question's "
        f"{best.asked} key words together (the closest is on {page_name(page, label)})"
    )


def declined_by_model(sentence: str) -> str:
    """The reason for a model's reply that the passages do not answer."""
    return f"the model found no answer in the passages it was given ({sentence})"


def not_answered(
    question: str,
    reason: str,
    closest: Sequence[CheckedClaim],
    *,
    model: str,
    mode: str,
    doc_ids: list[str],
    metrics: AnswerMetrics,
) -> Answer:
    """The answer that says the documents do not seem to answer ``question``."""
    metrics.count([])
    return Answer(
        question=question,
        answer="The documents do not seem to answer this question: " + reason + ".",
        claims=[],
        unsupported=[],
        model=model,
        mode=mode,
        doc_ids=doc_ids,
        metrics=metrics,
        not_found=reason,
        closest=[item for item in closest if item.verified],
    )
