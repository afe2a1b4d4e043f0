"""Composing an answer from checked claims: the model's first, then the evidence
none of them quotes.

A claim whose quote verified but whose text the quote does not support is shown
as the quote's own words (``CheckedClaim.shown_text``), and its sentence joins
the unsupported list with the reason. Two claims shown as the same quote are one.
"""

from __future__ import annotations

from collections.abc import Sequence

from reader.answer.parsing import claim_key, unique_by
from reader.records import Answer, AnswerMetrics, CheckedClaim


def compose_answer(
    question: str,
    claims: Sequence[CheckedClaim],
    extractive: Sequence[CheckedClaim],
    unsupported: Sequence[str],
    problem: str | None,
    *,
    model: str,
    mode: str,
    doc_ids: list[str],
    metrics: AnswerMetrics,
) -> Answer:
    """The answer ``claims`` (a model's) and ``extractive`` (evidence sentences) make."""
    final = unique_by(
        list(claims),
        lambda c: (c.shown_text, c.verification.start) if c.verified else claim_key(c.claim),
    )
    final.extend(e for e in extractive if not any(_overlap(e, c) for c in final if c.verified))
    said_unsupported = list(unsupported)
    for item in final:
        # An evidence sentence's text is its quote: it is never a claim its quote
        # does not say (one that only restates the question is shown as a quote).
        if (
            item.verified
            and not item.grounded
            and item.grounding is not None
            and not item.guessed  # the quote says them; the model was unsure
            and not item.from_evidence
        ):
            said_unsupported.append(
                f"{item.claim.text} (its quote does not say this: {item.grounding.reason})"
            )
    metrics.count(final)
    return Answer(
        question=question,
        answer=" ".join(item.shown_text for item in final).strip(),
        claims=final,
        unsupported=unique_by(said_unsupported, str.casefold),
        model=model,
        mode=mode,
        doc_ids=doc_ids,
        metrics=metrics,
        problem=problem,
    )


def _overlap(a: CheckedClaim, b: CheckedClaim) -> bool:
    """Whether two verified claims' spans share a character of one document."""
    first, second = a.verification, b.verification
    if a.doc_id != b.doc_id or None in (first.start, first.end, second.start, second.end):
        return False
    return first.start < second.end and second.start < first.end  # type: ignore[operator]
