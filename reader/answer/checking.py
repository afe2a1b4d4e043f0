"""Checking one question's claims: the quote against the source, the words against the quote.

A ``ClaimChecker`` lives for one question. It holds what the checks need (the
retrieved chunks, a verifier per document over them, the evidence sentences)
and remembers every claim it has checked, so a claim checked while the model
streams is not checked again when the output is parsed whole.

Each model claim goes through, in order:

1. hygiene: talk about the passages ("According to the passage, ...") is
   stripped from its words;
2. the span check: its quote must be in the chunk it cites (``PassageVerifier``);
3. the support check: its words must say only what the quote says
   (``check_grounding``'s rules, then, with a model run in-process, the model's
   own judgement of the pair: see ``reader.answer.judge``);
4. re-anchoring: when the quote is there but does not support the claim, and
   another verified sentence of the retrieved passages does, the claim is
   linked to that sentence instead (models often cite the sentence next to
   the one that says it), if that sentence names whom the claim names of the
   question's names. A quote that is not there at all is a miss and is
   named to the model in the retry, never moved.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

from reader.answer.hygiene import strip_meta
from reader.answer.judge import SupportJudge
from reader.answer.spans import Run, folded, span_grounding
from reader.errors import ChunkNotFoundError
from reader.records import AnswerSpan, CheckedClaim, Chunk, Claim, Verification
from reader.retrieve.evidence import Evidence
from reader.retrieve.question import Question
from reader.text.reading_view import readable
from reader.text.words import words
from reader.verify import PassageVerifier
from reader.verify.grounding import check_grounding, grounding_for

REANCHOR_REASON = "linked to the sentence that says it"


@dataclass
class ClaimChecker:
    """The checks of one question's claims, each claim checked once."""

    question: Question
    retrieved: Sequence[Chunk]
    evidence: Sequence[Evidence]  # candidate sentences, best first (for re-anchoring)
    verifier_for: Callable[[str, Sequence[Chunk]], PassageVerifier]
    chunk_by_id: Callable[[str], Chunk]
    judge: SupportJudge | None = None
    # Constrained quoting: a claim's text is words chosen from its quote
    # (``reader.answer.spans``), checked as such, never judged or moved.
    chosen_words: bool = False
    _verifiers: dict[str, PassageVerifier] = field(default_factory=dict)
    _checked: dict[tuple[str, str, str], CheckedClaim] = field(default_factory=dict)
    _settled: dict[tuple[str, str, str], CheckedClaim] = field(default_factory=dict)

    @property
    def retrieved_ids(self) -> set[str]:
        return {chunk.id for chunk in self.retrieved}

    def evidence_claim(self, item: Evidence) -> CheckedClaim:
        """An evidence sentence shown as a claim: its own words, its own quote."""
        sentence = readable(item.text)
        checked = self.verify(Claim(sentence, item.chunk.id, sentence), item.chunk)
        return replace(checked, from_evidence=True)

    def model_claim(self, claim: Claim, by_alias: dict[str, Chunk]) -> CheckedClaim:
        """A model's claim, span- and rule-checked (once: a repeat returns the first
        result). This is what is shown while the model is still writing."""
        key = (claim.text, claim.source_id, claim.quote)
        if key not in self._checked:
            self._checked[key] = self._check_model_claim(claim, by_alias)
        return self._checked[key]

    def settle(self, claim: Claim, by_alias: dict[str, Chunk]) -> CheckedClaim:
        """A model's claim as it is finally shown: checked, judged (when the model can
        judge) and, if its quote does not say it, re-anchored where another does."""
        key = (claim.text, claim.source_id, claim.quote)
        if key not in self._settled:
            self._settled[key] = self._settle(self.model_claim(claim, by_alias))
        return self._settled[key]

    def _check_model_claim(self, claim: Claim, by_alias: dict[str, Chunk]) -> CheckedClaim:
        claim = replace(claim, text=strip_meta(claim.text))
        chunk = by_alias.get(claim.source_id)
        if chunk is None:
            try:
                chunk = self.chunk_by_id(claim.source_id)
            except ChunkNotFoundError:
                reason = f"the source {claim.source_id!r} is not one of the passages given"
                return CheckedClaim(claim, Verification("miss", reason, chunk_id=claim.source_id))
        return self.verify(replace(claim, source_id=chunk.id), chunk)

    def verify(self, claim: Claim, chunk: Chunk) -> CheckedClaim:
        """The span check, then (if the quote is there) the support check's rules."""
        verifier = self._verifiers.get(chunk.doc_id)
        if verifier is None:
            verifier = self.verifier_for(chunk.doc_id, self.retrieved)
            self._verifiers[chunk.doc_id] = verifier
        verification = verifier.verify(claim.quote, source=chunk, retrieved=self.retrieved_ids)
        if self.chosen_words and verification.verified:
            chosen, run = span_grounding(claim.text, claim.quote, self.question)
            span = _placed(claim, run, verification, chunk) if run is not None else None
            return CheckedClaim(
                claim, verification, doc_id=chunk.doc_id, grounding=chosen, answer_span=span
            )
        grounding = grounding_for(claim, verification, self.question.text)
        return CheckedClaim(claim, verification, doc_id=chunk.doc_id, grounding=grounding)

    def _settle(self, checked: CheckedClaim) -> CheckedClaim:
        if self.chosen_words and not checked.from_evidence:
            return checked  # the words are the quote's: nothing to judge, nowhere to move
        if not checked.verified:
            # A quote that is not there is named to the model in the retry instead:
            # moving it would hide a model that invents quotes from the miss rate.
            return checked
        judged = self._judged(checked)
        if judged.grounded:
            return judged
        return self._reanchored(judged) or judged

    def _judged(self, checked: CheckedClaim) -> CheckedClaim:
        """The rules' verdict, confirmed or overturned by the judge where it may be."""
        if self.judge is None or checked.grounding is None:
            return checked
        claim = checked.claim
        verdict = self.judge.verdict(checked.grounding, self.question.text, claim.text, claim.quote)
        return replace(checked, grounding=verdict)

    def _reanchored(self, failed: CheckedClaim) -> CheckedClaim | None:
        """The claim linked to the best evidence sentence that supports it, if any.

        The first sentence the rules accept is the candidate; when the judge
        refuses it, the claim stays where it was (judging every sentence in turn
        would cost a judgement each and give the judge a dozen chances to err).
        """
        cited = " ".join(failed.claim.quote.split()).casefold()
        # Whom the claim is about, in the question's names: a sentence about someone
        # else is no place for it ("Frederick Douglass was nine years old when he
        # escaped" does not move to "he was a pale, handsome boy of nine years").
        claim_words = set(words(failed.claim.text))
        named = [
            name_words
            for name in self.question.names
            if (name_words := set(words(name))) and name_words <= claim_words
        ]
        for item in self.evidence:
            sentence = readable(item.text)
            if " ".join(sentence.split()).casefold() == cited:
                continue
            if named and not any(name <= set(words(sentence)) for name in named):
                continue
            if not check_grounding(failed.claim.text, sentence, self.question.text).grounded:
                continue
            moved = self._judged(
                self.verify(Claim(failed.claim.text, item.chunk.id, sentence), item.chunk)
            )
            if not moved.grounded:
                return None
            verification = replace(
                moved.verification, reason=f"{REANCHOR_REASON}; {moved.verification.reason}"
            )
            return replace(moved, verification=verification, cited_quote=failed.claim.quote)
        return None


def _placed(claim: Claim, run: Run, verification: Verification, chunk: Chunk) -> AnswerSpan:
    """The chosen words, placed in the one-line quote and, where the quote's words
    can be followed through the chunk's text, in the document."""
    text = folded(claim.quote)[run.start : run.end]
    start = end = None
    if verification.start is not None and verification.end is not None:
        begin = verification.start - chunk.start
        found = chunk.text[begin : verification.end - chunk.start]
        located = _locate(text, found)
        if located is not None:
            start, end = verification.start + located[0], verification.start + located[1]
    return AnswerSpan(text, (run.start, run.end), start, end)


def _locate(text: str, found: str) -> tuple[int, int] | None:
    """Where ``text`` lies in ``found`` (the quote as the document has it, where
    lines may break between its words), as offsets into ``found``."""
    pattern = r"\s+".join(re.escape(word) for word in text.split())
    match = re.search(pattern, found)
    return (match.start(), match.end()) if match else None
