"""Answering a question: retrieve -> choose evidence -> generate -> check -> compose.

The promise kept here: a claim carries a link only when the verifier found
its quote in the source it cites, and the words shown beside the link are
words the quote says (the claim's own when the grounding check passes, the
quote's otherwise). Model output is data to be checked; nothing in it, or in
the documents, is trusted.

The evidence (the best sentences of the retrieved passages, verified) is
reported before the model starts, so the reader sees where the answer is
within a second; the model then states the answer from that evidence. When
no passage holds enough of the question, the answer says that the documents
do not answer it, instead of linking loosely related sentences.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from reader.answer.asking import AnswerSources, Asking, ModelAnswer
from reader.answer.checking import ClaimChecker
from reader.answer.compose import compose_answer
from reader.answer.confidence import choice_confidences, with_confidence
from reader.answer.hygiene import says_not_answered
from reader.answer.judge import judge_for
from reader.answer.not_answered import (
    declined_by_model,
    never_mentioned,
    not_answered,
    too_few_key_words,
)
from reader.answer.parsing import ParsedOutput, claim_key, parse_output, unique_by
from reader.answer.prompting import (
    AUTO,
    CONSTRAINED,
    FREE,
    MAX_CLAIMS,
    MODES,
    PASSAGES,
    KnownQuotes,
    Passage,
    build_messages,
    constrained_grammar,
    evidence_passages,
    free_grammar,
    passages_for,
    resolve_mode,
    retry_message,
)
from reader.answer.stream_guard import RepetitionGuard, Stop, output_problem
from reader.errors import Cancelled, ReaderError
from reader.models.backends import AnyOf, Backend, Generation
from reader.records import (
    Answer,
    AnswerMetrics,
    CheckedClaim,
    Chunk,
    Claim,
)
from reader.records.events import ClaimChecked, EventCallback, Status, Token
from reader.retrieve.evidence import Evidence, answers_question, choose_evidence
from reader.retrieve.question import Question, unstated_quantity
from reader.text.reading_view import readable

DEFAULT_MODE = AUTO
# Chunks searched for evidence sentences; the right one is in the top 10
# far more often than in the top 4.
TOP_K = 10
# Passages the model is shown: whole chunks (free), or evidence sentences.
# With the 1.5B model on the long-document set (bench/qa), its own linked words
# stated the answer for 36 of 63 questions shown three sentences, 37 shown five
# and 34 shown eight; each sentence more costs about 0.45 s of prompt.
FREE_PASSAGES = 4
EVIDENCE_FOR_MODEL = 5
# Evidence sentences given as claims without a model, and beside a model's
# claims: the right sentence is the first one about half the time, one of
# the first three about three times in four (bench/qa).
EXTRACTIVE_CLAIMS = {PASSAGES: 3, CONSTRAINED: 2, FREE: 2}
MAX_TOKENS = {CONSTRAINED: 256, FREE: 400}
# Evidence sentences a claim may be re-anchored to when its own quote does not say it.
REANCHOR_CANDIDATES = 12


class Answerer:
    """Answers questions over a library with one backend (or none: passages mode)."""

    def __init__(
        self,
        library: AnswerSources,
        backend: Backend | None,
        mode: str = DEFAULT_MODE,
        top_k: int = TOP_K,
        record: bool = True,
    ) -> None:
        if mode not in MODES:
            raise ReaderError(f"Unknown answer mode '{mode}': use one of {', '.join(MODES)}.")
        self.library = library
        self.backend = backend
        self.mode = resolve_mode(mode, backend)
        self.top_k = top_k
        self.record = record

    @property
    def uses_model(self) -> bool:
        """Whether answering will call the backend (so it is worth loading first)."""
        return self.backend is not None and self.mode != PASSAGES

    def prepare(self, cancel: threading.Event | None = None) -> int:
        """Load the model and read the start every question's prompt shares (the
        system prompt and, in constrained quoting, the shape of the reply), so the
        next answer begins sooner;
        the number of prompt tokens read. Nothing for an answerer that does not
        ask its model, or a backend that cannot read ahead (a server keeps its own
        cache).

        The window calls it while the user types a question: on two cores the
        shared start of the prompt is a few seconds of reading.
        """
        if not self.uses_model or self.backend is None:
            return 0
        load = getattr(self.backend, "load", None)
        if load is not None:
            load()
        read_ahead = getattr(self.backend, "read_ahead", None)
        if read_ahead is None or (cancel is not None and cancel.is_set()):
            return 0
        shared_start = build_messages("", [], self.mode)
        return int(read_ahead(shared_start, cancel=cancel))

    def ask(
        self,
        question: str,
        doc_ids: Sequence[str] | None = None,
        on_event: EventCallback | None = None,
        cancel: threading.Event | None = None,
    ) -> Answer:
        """Answer ``question`` from the given documents (None: the whole library)."""
        started = time.perf_counter()
        text = question.strip()
        if not text:
            raise ReaderError("The question is empty: type a question first.")
        emit = on_event or (lambda event: None)

        # 1. Retrieve the chunks most likely to hold the answer.
        emit(Status("retrieving"))
        chunks = self.retrieve(text, doc_ids)
        scope = list(doc_ids) if doc_ids else sorted({c.doc_id for c in chunks})

        # 2. Choose evidence: the sentences that answer, verified and shown at once.
        # The question is read once, here; every stage reads the record.
        asked = Question.parse(text, self.library.term_rarity)
        evidence = choose_evidence(asked, chunks, limit=REANCHOR_CANDIDATES)
        chosen = self.uses_model and self.mode == CONSTRAINED
        checker = ClaimChecker(
            asked,
            chunks,
            evidence,
            self.library.passage_verifier,
            self.library.chunk,
            judge=judge_for(self.backend) if self.uses_model and not chosen else None,
            chosen_words=chosen,
        )
        asking = Asking(asked, chunks, evidence, checker, emit, cancel, started)
        unnamed = self.library.unmentioned(list(asked.names), doc_ids)
        if unnamed:
            answer = self._not_answered(asking, scope, never_mentioned(unnamed), [])
        elif not answers_question(evidence):
            reason = too_few_key_words(evidence, self.library.page_map)
            answer = self._not_answered(asking, scope, reason, [])
        elif unstated := unstated_quantity(asked, [item.text for item in evidence]):
            # The passages hold the question's words but not what it asks for.
            closest = [checker.evidence_claim(item) for item in _distinct(evidence)[:3]]
            answer = self._not_answered(asking, scope, unstated, closest)
        else:
            extractive = [
                checker.evidence_claim(item)
                for item in _distinct(evidence)[: EXTRACTIVE_CLAIMS[self.mode]]
            ]
            asking.metrics.first_evidence_seconds = time.perf_counter() - started
            for item in extractive:
                emit(ClaimChecked(item))
            if not self.uses_model:
                answer = self._compose(asking, ModelAnswer([], [], None), extractive, scope)
            else:
                # 3-4. Generate claims from the evidence, check each one.
                made = self._model_claims(asking)
                # A guessed run is the quote's words all the same: its sentence stays.
                answered = any(c.grounded or c.guessed for c in made.claims)
                if made.declined is not None and not answered:
                    answer = self._declined(asking, made, extractive, scope)
                else:
                    # 5. Compose: the model's claims, then the evidence they leave out.
                    answer = self._compose(asking, made, extractive, scope)
        answer.metrics.seconds = time.perf_counter() - started
        answer.library_wide = not doc_ids
        if self.record:
            self.library.keep_answer(answer)
        return answer

    # -- 1. retrieve -------------------------------------------------------------------

    def retrieve(self, question: str, doc_ids: Sequence[str] | None) -> list[Chunk]:
        if not doc_ids:
            return [hit.chunk for hit in self.library.search(question, limit=self.top_k)]
        hits = []
        for doc_id in doc_ids:
            hits.extend(self.library.search(question, doc_id=doc_id, limit=self.top_k))
        hits.sort(key=lambda hit: hit.score, reverse=True)
        return [hit.chunk for hit in hits[: self.top_k]]

    # -- 3-4. generate and check -------------------------------------------------------

    def _model_claims(self, asking: Asking) -> ModelAnswer:
        if self.mode == CONSTRAINED:
            passages = evidence_passages(_distinct(asking.evidence)[:EVIDENCE_FOR_MODEL])
        else:
            passages = passages_for(asking.chunks[:FREE_PASSAGES])
        by_alias = {p.alias: p.chunk for p in passages}
        messages = build_messages(asking.question.text, passages, self.mode)
        asking.emit(Status("generating"))
        generation, parsed, stopped = self._generate(asking, messages, passages, by_alias)
        asking.emit(Status("verifying"))
        declines = [c.text for c in parsed.claims if says_not_answered(c.text)]
        # Checked while streaming already: looked up, then judged and settled.
        checked = self._settled(asking, parsed.claims, by_alias)
        confidences = choice_confidences(generation)
        checked = [with_confidence(item, confidences) for item in checked]
        failures = [index for index, item in enumerate(checked) if not item.verified]
        if failures and not asking.cancelled:
            asking.emit(Status("retrying", f"{len(failures)} claims did not verify"))
            conversation = [*messages, {"role": "assistant", "content": generation.text}]
            checked = self._retry(asking, conversation, checked, failures, passages, by_alias)
        return ModelAnswer(
            checked,
            parsed.unsupported,
            output_problem(parsed, generation.text, stopped),
            declines[0] if declines else None,
        )

    def _generate(
        self,
        asking: Asking,
        messages: list[dict[str, str]],
        passages: list[Passage],
        by_alias: dict[str, Chunk],
    ) -> tuple[Generation, ParsedOutput, Stop | None]:
        """One generation; each claim is checked as soon as it is complete, and the
        generation stops early when the model starts to loop."""
        assert self.backend is not None
        guard = RepetitionGuard(MAX_CLAIMS[self.mode])
        halt = threading.Event()
        stopped: list[Stop] = []

        def on_token(piece: str) -> None:
            asking.emit(Token(piece))
            new, reason = guard.feed(piece)
            for claim in new:
                if not says_not_answered(claim.text):
                    asking.emit(ClaimChecked(asking.checker.model_claim(claim, by_alias)))
            if reason is not None and not stopped:
                stopped.append(reason)
                halt.set()

        # Constrained quoting asks for claims only: a model that states nothing of its
        # own has no "unsupported" list to give, and a small one looped in it.
        claims_only = self.mode == CONSTRAINED
        generation = self.backend.generate(
            messages,
            grammar=self._grammar(passages, claims_only=claims_only),
            max_tokens=MAX_TOKENS[self.mode],
            on_token=on_token,
            # The user's cancel reaches the backend even while no token arrives.
            cancel=AnyOf(halt, asking.cancel),
            **self._known(passages, claims_only=claims_only),
        )
        self._count(asking.metrics, generation)
        if asking.cancelled:
            raise Cancelled("The question was cancelled.")
        # A stop for looping cuts the output short: the parser recovers what completed.
        return generation, parse_output(generation.text), stopped[0] if stopped else None

    def _retry(
        self,
        asking: Asking,
        conversation: list[dict[str, str]],
        checked: list[CheckedClaim],
        failures: list[int],
        passages: list[Passage],
        by_alias: dict[str, Chunk],
    ) -> list[CheckedClaim]:
        """Ask once more for the failed claims only, naming each failure."""
        assert self.backend is not None
        alias_of = {chunk.id: alias for alias, chunk in by_alias.items()}
        named = [
            (
                index + 1,
                alias_of.get(checked[index].claim.source_id, checked[index].claim.source_id),
                checked[index].claim.quote[:300],
                checked[index].verification.reason,
            )
            for index in failures
        ]
        second = self.backend.generate(
            [*conversation, retry_message(named)],
            grammar=self._grammar(passages, claims_only=True),
            max_tokens=MAX_TOKENS[self.mode],
            cancel=asking.cancel,
            **self._known(passages, claims_only=True),
        )
        self._count(asking.metrics, second)
        if second.cancelled:
            raise Cancelled("The question was cancelled.")
        retried = self._settled(asking, parse_output(second.text).claims, by_alias)
        confidences = choice_confidences(second)
        retried = [with_confidence(item, confidences) for item in retried]
        result = list(checked)
        # Each failed claim is replaced by its retry when the retry verified.
        for index, replacement in zip(failures, retried, strict=False):
            asking.metrics.retried += 1
            if replacement.verified:
                result[index] = replace(replacement, retried=True)
        return unique_by(result, lambda item: claim_key(item.claim))

    @staticmethod
    def _settled(
        asking: Asking, claims: list[Claim], by_alias: dict[str, Chunk]
    ) -> list[CheckedClaim]:
        """The model's claims as they will be shown; its "not answered" is no claim."""
        settled = []
        for claim in claims:
            if says_not_answered(claim.text):
                continue
            if asking.cancelled:
                raise Cancelled("The question was cancelled.")
            settled.append(asking.checker.settle(claim, by_alias))
        return settled

    def _known(self, passages: list[Passage], claims_only: bool) -> dict[str, Any]:
        """The quotes constrained quoting makes certain, for a backend that reads them in."""
        if self.mode != CONSTRAINED or not getattr(self.backend, "reads_known_text", False):
            return {}
        return {"known": KnownQuotes(passages, claims_only)}

    def _grammar(self, passages: list[Passage], claims_only: bool) -> str | None:
        assert self.backend is not None
        if not self.backend.supports_grammar:
            return None
        if self.mode == CONSTRAINED:
            return constrained_grammar(passages, claims_only=claims_only)
        return free_grammar(passages, claims_only=claims_only)

    @staticmethod
    def _count(metrics: AnswerMetrics, generation: Generation) -> None:
        metrics.prompt_tokens += generation.prompt_tokens
        metrics.completion_tokens += generation.completion_tokens
        if metrics.first_token_seconds is None:
            metrics.first_token_seconds = generation.first_token_seconds

    # -- 5. compose --------------------------------------------------------------------

    def _compose(
        self,
        asking: Asking,
        made: ModelAnswer,
        extractive: list[CheckedClaim],
        scope: list[str],
    ) -> Answer:
        return compose_answer(
            asking.question.text,
            made.claims,
            extractive,
            made.unsupported,
            made.problem,
            model=self._model_label(),
            mode=self.mode,
            doc_ids=scope,
            metrics=asking.metrics,
        )

    def _model_label(self) -> str:
        if self.backend is None:
            return "none (passages)"
        if not self.uses_model:
            return f"evidence only ({self.backend.name} is not asked for claims)"
        return self.backend.name

    def _declined(
        self,
        asking: Asking,
        made: ModelAnswer,
        extractive: list[CheckedClaim],
        scope: list[str],
    ) -> Answer:
        """The model found no answer in the passages: say so, and show the closest
        passages as passages, not as claims."""
        reason = declined_by_model(made.declined or "")
        answer = self._not_answered(asking, scope, reason, extractive)
        answer.unsupported = list(made.unsupported)
        answer.problem = made.problem
        answer.declined_by_model = True
        return answer

    def _not_answered(
        self, asking: Asking, scope: list[str], reason: str, closest: list[CheckedClaim]
    ) -> Answer:
        return not_answered(
            asking.question.text,
            reason,
            closest,
            model=self._model_label(),
            mode=self.mode,
            doc_ids=scope,
            metrics=asking.metrics,
        )


def _distinct(evidence: list[Evidence]) -> list[Evidence]:
    """Evidence without repeats of the same sentence (boilerplate in several chunks)."""
    return unique_by(evidence, lambda e: readable(e.text).casefold())
