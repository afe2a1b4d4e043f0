"""Stored answers checked again against the library as it is now."""

from __future__ import annotations

from dataclasses import replace

from reader.errors import ChunkNotFoundError, ReaderError
from reader.library.library import Library
from reader.records import Answer, CheckedClaim, Claim, Verification
from reader.verify.grounding import grounding_for


def reverify(library: Library, answer: Answer) -> Answer:
    """Check a stored answer's claims against the library as it is now.

    A claim whose chunk still exists is verified against it. A claim whose
    chunk is gone (its document was re-extracted) is re-anchored by its quote
    in the same document, or marked as no longer verified: a stored link never
    silently points at other text. Grounding is checked again for every claim
    whose quote verifies.
    """
    checked = []
    for item in answer.claims:
        claim = item.claim
        try:
            chunk = library.chunk(claim.source_id)
        except ChunkNotFoundError:
            chunk = None
        if chunk is not None:
            verification = library.verifier(chunk.doc_id).verify(claim.quote, source=chunk.id)
            checked.append(_rechecked(claim, verification, chunk.doc_id, item, answer))
            continue
        doc_id = item.doc_id
        try:
            verifier = library.verifier(doc_id) if doc_id else None
        except ReaderError:
            verifier = None
        if verifier is None:
            gone = Verification(
                "miss",
                "no longer verified: the document is no longer in the library",
                chunk_id=claim.source_id,
            )
            checked.append(_rechecked(claim, gone, doc_id, item, answer))
            continue
        found = verifier.verify(claim.quote)
        if found.verified and found.chunk_id is not None:
            anchored = replace(
                found,
                reason=f"re-anchored: the cited chunk no longer exists; {found.reason}",
            )
            moved = replace(claim, source_id=found.chunk_id)
            checked.append(_rechecked(moved, anchored, doc_id, item, answer))
        else:
            lost = Verification(
                "miss",
                "no longer verified: the document was re-extracted and the quote is not in it",
                chunk_id=claim.source_id,
            )
            checked.append(_rechecked(claim, lost, doc_id, item, answer))
    metrics = replace(answer.metrics)
    metrics.count(checked)
    return replace(answer, claims=checked, metrics=metrics)


def _rechecked(
    claim: Claim,
    verification: Verification,
    doc_id: str | None,
    item: CheckedClaim,
    answer: Answer,
) -> CheckedClaim:
    """The claim with its new verification, grounded again if its quote still verifies."""
    grounding = grounding_for(claim, verification, answer.question)
    return replace(item, claim=claim, verification=verification, doc_id=doc_id, grounding=grounding)
