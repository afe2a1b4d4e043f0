"""Answering a question: retrieve, ask, verify every claim, retry once, record.

The promise kept here: a claim carries a span (and so a link) only when the
verifier found its quote in the source it cites. Model output is data to be
checked; nothing in it, or in the documents, is trusted.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from dataclasses import replace

from reader.answer.backends import Backend, Generation
from reader.answer.events import ClaimChecked, EventCallback, Status, Token
from reader.answer.parsing import ClaimStream, ParsedOutput, claim_key, parse_output, unique_by
from reader.answer.prompting import (
    CONSTRAINED,
    FREE,
    MODES,
    PASSAGES,
    Passage,
    build_messages,
    candidate_quotes,
    constrained_grammar,
    free_grammar,
    passages_for,
    retry_message,
)
from reader.errors import AnswerCancelled, ChunkNotFoundError, ReaderError
from reader.library import Library
from reader.records import Answer, AnswerMetrics, CheckedClaim, Chunk, Claim, Verification

DEFAULT_MODE = CONSTRAINED
TOP_K = 4
MAX_TOKENS = {CONSTRAINED: 400, FREE: 400}


class Answerer:
    """Answers questions over a library with one backend (or none: passages mode)."""

    def __init__(
        self,
        library: Library,
        backend: Backend | None,
        mode: str = DEFAULT_MODE,
        top_k: int = TOP_K,
        record: bool = True,
    ) -> None:
        if mode not in MODES:
            raise ReaderError(f"Unknown answer mode '{mode}': use one of {', '.join(MODES)}.")
        self.library = library
        self.backend = backend
        self.mode = PASSAGES if backend is None else mode
        self.top_k = top_k
        self.record = record

    # -- public ------------------------------------------------------------------------

    def ask(
        self,
        question: str,
        doc_ids: Sequence[str] | None = None,
        on_event: EventCallback | None = None,
        cancel: threading.Event | None = None,
    ) -> Answer:
        """Answer ``question`` from the given documents (None: the whole library)."""
        emit = on_event or (lambda event: None)
        started = time.perf_counter()
        question = question.strip()
        if not question:
            raise ReaderError("The question is empty: type a question first.")
        emit(Status("retrieving"))
        chunks = self.retrieve(question, doc_ids)
        passages = passages_for(chunks)
        by_alias = {p.alias: p.chunk for p in passages}
        scope = list(doc_ids) if doc_ids else sorted({c.doc_id for c in chunks})

        if self.mode == PASSAGES or self.backend is None:
            answer = self._passages_answer(question, passages, scope)
        else:
            answer = self._model_answer(question, passages, by_alias, scope, emit, cancel)
        answer.metrics.seconds = time.perf_counter() - started
        if self.record:
            self.library.store.add_answer(answer)
        return answer

    def retrieve(self, question: str, doc_ids: Sequence[str] | None) -> list[Chunk]:
        if not doc_ids:
            return [hit.chunk for hit in self.library.search(question, limit=self.top_k)]
        hits = []
        for doc_id in doc_ids:
            hits.extend(self.library.search(question, doc_id=doc_id, limit=self.top_k))
        hits.sort(key=lambda hit: hit.score, reverse=True)
        chunks = [hit.chunk for hit in hits[: self.top_k]]
        if not chunks:
            # No word of the question occurs: show the model the opening passages
            # rather than nothing (short documents are often asked about this way).
            for doc_id in doc_ids:
                chunks.extend(self.library.chunks(doc_id)[: self.top_k - len(chunks)])
        return chunks

    # -- modes -------------------------------------------------------------------------

    def _passages_answer(self, question: str, passages: list[Passage], scope: list[str]) -> Answer:
        """No model: the best-matching sentences, each verified, as the answer."""
        retrieved = {p.chunk.id for p in passages}
        checked = []
        chosen: list[tuple[str, str]] = []
        for alias, quote in candidate_quotes(passages, question):
            if len(chosen) == 3:
                break
            if any(alias == a and (quote in q or q in quote) for a, q in chosen):
                continue  # a sentence already given, alone or in a pair
            chosen.append((alias, quote))
        for alias, quote in chosen:
            chunk = next(p.chunk for p in passages if p.alias == alias)
            claim = Claim(text=quote, source_id=chunk.id, quote=quote)
            checked.append(self._verify(claim, chunk, retrieved))
        return self._finish(
            question,
            " ".join(c.claim.text for c in checked),
            checked,
            [],
            "none (passages)",
            PASSAGES,
            scope,
            AnswerMetrics(),
            problem=None if checked else "no passage matches the question",
        )

    def _model_answer(
        self,
        question: str,
        passages: list[Passage],
        by_alias: dict[str, Chunk],
        scope: list[str],
        emit: EventCallback,
        cancel: threading.Event | None,
    ) -> Answer:
        assert self.backend is not None
        retrieved = {chunk.id for chunk in by_alias.values()}
        metrics = AnswerMetrics()
        if not passages:
            return self._finish(
                question,
                "",
                [],
                [],
                self.backend.name,
                self.mode,
                scope,
                metrics,
                problem="nothing in the documents matches the question",
            )
        messages = build_messages(question, passages, self.mode)
        grammar = self._grammar(passages, question, claims_only=False)
        emit(Status("generating"))
        stream = ClaimStream()
        streamed: dict[Claim, CheckedClaim] = {}

        def on_token(piece: str) -> None:
            emit(Token(piece))
            for claim in stream.feed(piece):
                checked = self._check(claim, by_alias, retrieved)
                streamed[claim] = checked
                emit(ClaimChecked(checked))

        generation = self.backend.generate(
            messages,
            grammar=grammar,
            max_tokens=MAX_TOKENS[self.mode],
            on_token=on_token,
            cancel=cancel,
        )
        self._count(metrics, generation)
        if generation.cancelled:
            raise AnswerCancelled("The question was cancelled.")
        parsed = parse_output(generation.text)
        emit(Status("verifying"))
        checked = [
            streamed.get(claim) or self._check(claim, by_alias, retrieved)
            for claim in parsed.claims
        ]

        failures = [(i, c) for i, c in enumerate(checked) if not c.verified]
        if failures and not (cancel is not None and cancel.is_set()):
            emit(Status("retrying", f"{len(failures)} claims did not verify"))
            checked = self._retry(
                messages,
                generation,
                failures,
                checked,
                by_alias,
                retrieved,
                passages,
                question,
                metrics,
                cancel,
            )
        answer_text = parsed.answer
        if self.mode == CONSTRAINED or not answer_text.strip():
            answer_text = " ".join(c.claim.text for c in checked)
        return self._finish(
            question,
            answer_text,
            checked,
            parsed.unsupported,
            self.backend.name,
            self.mode,
            scope,
            metrics,
            problem=_problem(parsed, generation),
        )

    def _retry(
        self,
        messages: list[dict[str, str]],
        generation: Generation,
        failures: list[tuple[int, CheckedClaim]],
        checked: list[CheckedClaim],
        by_alias: dict[str, Chunk],
        retrieved: set[str],
        passages: list[Passage],
        question: str,
        metrics: AnswerMetrics,
        cancel: threading.Event | None,
    ) -> list[CheckedClaim]:
        """Ask once more for the failed claims only, naming each failure."""
        assert self.backend is not None
        alias_of = {chunk.id: alias for alias, chunk in by_alias.items()}
        named = [
            (
                number + 1,
                alias_of.get(item.claim.source_id, item.claim.source_id),
                item.claim.quote[:300],
                item.verification.reason,
            )
            for number, item in failures
        ]
        follow_up = [
            *messages,
            {"role": "assistant", "content": generation.text},
            retry_message(named),
        ]
        second = self.backend.generate(
            follow_up,
            grammar=self._grammar(passages, question, claims_only=True),
            max_tokens=MAX_TOKENS[self.mode],
            cancel=cancel,
        )
        self._count(metrics, second)
        if second.cancelled:
            raise AnswerCancelled("The question was cancelled.")
        retried = [self._check(c, by_alias, retrieved) for c in parse_output(second.text).claims]
        result = list(checked)
        # Each failed claim is replaced by its retry when the retry verified.
        for (index, _), replacement in zip(failures, retried, strict=False):
            metrics.retried += 1
            if replacement.verified:
                result[index] = replace(replacement, retried=True)
        return _dedupe(result)

    # -- helpers -----------------------------------------------------------------------

    def _grammar(self, passages: list[Passage], question: str, claims_only: bool) -> str | None:
        assert self.backend is not None
        if not self.backend.supports_grammar:
            return None
        if self.mode == CONSTRAINED:
            return constrained_grammar(passages, question, claims_only=claims_only)
        return free_grammar(passages, claims_only=claims_only)

    @staticmethod
    def _count(metrics: AnswerMetrics, generation: Generation) -> None:
        metrics.prompt_tokens += generation.prompt_tokens
        metrics.completion_tokens += generation.completion_tokens
        if metrics.first_token_seconds is None:
            metrics.first_token_seconds = generation.first_token_seconds

    def _check(self, claim: Claim, by_alias: dict[str, Chunk], retrieved: set[str]) -> CheckedClaim:
        """Verify a model's claim; its alias becomes the chunk id it stands for."""
        chunk = by_alias.get(claim.source_id)
        if chunk is None:
            try:
                chunk = self.library.store.chunk(claim.source_id)
            except ChunkNotFoundError:
                reason = f"the source {claim.source_id!r} is not one of the passages given"
                return CheckedClaim(claim, Verification("miss", reason, chunk_id=claim.source_id))
        claim = Claim(text=claim.text, source_id=chunk.id, quote=claim.quote)
        return self._verify(claim, chunk, retrieved)

    def _verify(self, claim: Claim, chunk: Chunk, retrieved: set[str]) -> CheckedClaim:
        verifier = self.library.verifier(chunk.doc_id)
        verification = verifier.verify(claim.quote, source=chunk.id, retrieved=retrieved)
        return CheckedClaim(claim, verification, doc_id=chunk.doc_id)

    @staticmethod
    def _finish(
        question: str,
        answer_text: str,
        checked: list[CheckedClaim],
        unsupported: list[str],
        model: str,
        mode: str,
        scope: list[str],
        metrics: AnswerMetrics,
        problem: str | None,
    ) -> Answer:
        metrics.claims = len(checked)
        metrics.exact = sum(c.verification.status == "exact" for c in checked)
        metrics.fuzzy = sum(c.verification.status == "fuzzy" for c in checked)
        metrics.miss = sum(c.verification.status == "miss" for c in checked)
        return Answer(
            question=question,
            answer=answer_text.strip(),
            claims=checked,
            unsupported=unsupported,
            model=model,
            mode=mode,
            doc_ids=scope,
            metrics=metrics,
            problem=problem,
        )


def _dedupe(claims: list[CheckedClaim]) -> list[CheckedClaim]:
    """Drop repeats a retry brings back (the parser already dropped the first answer's)."""
    return unique_by(claims, lambda item: claim_key(item.claim))


def _problem(parsed: ParsedOutput, generation: Generation) -> str | None:
    if parsed.claims and not parsed.problems:
        return None
    if not generation.text.strip():
        return "the model returned nothing"
    if parsed.problems:
        return "; ".join(parsed.problems)
    return "the model gave no claims"


def reverify(library: Library, answer: Answer) -> Answer:
    """Check a stored answer's claims against the library as it is now.

    A claim whose chunk still exists is verified against it. A claim whose
    chunk is gone (its document was re-extracted) is re-anchored by its quote
    in the same document, or marked as no longer verified: a stored link never
    silently points at other text.
    """
    checked = []
    for item in answer.claims:
        claim = item.claim
        try:
            chunk = library.store.chunk(claim.source_id)
        except ChunkNotFoundError:
            chunk = None
        if chunk is not None:
            verification = library.verifier(chunk.doc_id).verify(claim.quote, source=chunk.id)
            checked.append(CheckedClaim(claim, verification, chunk.doc_id, item.retried))
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
            checked.append(CheckedClaim(claim, gone, doc_id, item.retried))
            continue
        found = verifier.verify(claim.quote)
        if found.verified and found.chunk_id is not None:
            anchored = replace(
                found,
                reason=f"re-anchored: the cited chunk no longer exists; {found.reason}",
            )
            checked.append(
                CheckedClaim(
                    replace(claim, source_id=found.chunk_id), anchored, doc_id, item.retried
                )
            )
        else:
            lost = Verification(
                "miss",
                "no longer verified: the document was re-extracted and the quote is not in it",
                chunk_id=claim.source_id,
            )
            checked.append(CheckedClaim(claim, lost, doc_id, item.retried))
    metrics = replace(answer.metrics)
    metrics.exact = sum(c.verification.status == "exact" for c in checked)
    metrics.fuzzy = sum(c.verification.status == "fuzzy" for c in checked)
    metrics.miss = sum(c.verification.status == "miss" for c in checked)
    return replace(answer, claims=checked, metrics=metrics)
