"""One question while it is answered, and what answering reads from a library.

``Asking`` carries what a question found (its chunks and evidence), how its
claims are checked, how progress is reported and when to stop; ``ModelAnswer``
is what a model's generation came to, checked; ``AnswerSources`` is what the
``Answerer`` (``reader.answer.pipeline``) reads from a library and gives back.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from reader.answer.checking import ClaimChecker
from reader.records import Answer, AnswerMetrics, CheckedClaim, Chunk, PageStarts, SearchHit
from reader.records.events import EventCallback
from reader.retrieve.evidence import Evidence
from reader.retrieve.question import Question
from reader.verify import PassageVerifier


@dataclass
class Asking:
    """One question while it is answered: what it found, how to report, when to stop."""

    question: Question
    chunks: list[Chunk]
    evidence: list[Evidence]
    checker: ClaimChecker
    emit: EventCallback
    cancel: threading.Event | None
    started: float
    metrics: AnswerMetrics = field(default_factory=AnswerMetrics)

    @property
    def cancelled(self) -> bool:
        return self.cancel is not None and self.cancel.is_set()


@dataclass
class ModelAnswer:
    """What a model's generation came to, checked."""

    claims: list[CheckedClaim]
    unsupported: list[str]
    problem: str | None
    declined: str | None = None  # the model's sentence saying the passages do not answer


class AnswerSources(Protocol):
    """What answering reads from a library and gives back to it
    (``reader.library.Library`` is one)."""

    def search(self, query: str, doc_id: str | None = None, limit: int = 10) -> list[SearchHit]: ...
    def term_rarity(self, words: Iterable[str]) -> dict[str, float]: ...
    def unmentioned(self, names: Sequence[str], doc_ids: Sequence[str] | None) -> list[str]: ...
    def chunk(self, chunk_id: str) -> Chunk: ...
    def passage_verifier(self, doc_id: str, retrieved: Sequence[Chunk]) -> PassageVerifier: ...
    def keep_answer(self, answer: Answer) -> None: ...
    def page_map(self, doc_id: str) -> PageStarts: ...
