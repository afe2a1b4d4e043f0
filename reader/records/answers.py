"""Answers: claims, the outcome of checking each quote, and what was measured."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from reader.records.documents import page_name

VerificationStatus = Literal["exact", "fuzzy", "miss"]

# Double quotation marks as they are written inside a quotation.
_NESTED_QUOTES = str.maketrans({"\u201c": "\u2018", "\u201d": "\u2019", '"': "'"})


@dataclass(frozen=True, slots=True)
class Verification:
    """The outcome of checking one quote against its cited source."""

    status: VerificationStatus
    reason: str
    chunk_id: str | None = None
    start: int | None = None
    end: int | None = None
    page: int | None = None
    page_label: str | None = None  # the number printed on that page, where it differs
    score: float = 0.0
    occurrences: int = 0
    found_in: tuple[str, ...] = ()

    @property
    def verified(self) -> bool:
        return self.status != "miss"

    def page_name(self, short: bool = False) -> str:
        """The page as a reader cites it: "page 12", or where the file prints another
        number on it, that number first: "page xii (PDF page 14)". ``short``: "p.12",
        "p.xii (PDF p.14)". The printed number comes from the file: escape it."""
        return page_name(self.page or 0, self.page_label, short)

    def to_json(self) -> dict[str, object]:
        return {
            "status": self.status,
            "reason": self.reason,
            "chunk_id": self.chunk_id,
            "start": self.start,
            "end": self.end,
            "page": self.page,
            "page_label": self.page_label,
            "score": round(self.score, 2),
            "occurrences": self.occurrences,
            "found_in": list(self.found_in),
        }


@dataclass(frozen=True, slots=True)
class Grounding:
    """Whether a claim's text is supported by its (verified) quote, and if not, why.

    ``missing`` names the claim's numbers and words that the quote lacks.
    """

    grounded: bool
    reason: str
    missing: tuple[str, ...] = ()
    judged: float | None = None  # the model's probability that the quote states the claim
    # The words are the quote's, but the model was guessing them
    # (``reader.answer.confidence``): no direct answer, and no claim its quote lacks.
    guessed: bool = False


@dataclass(frozen=True, slots=True)
class AnswerSpan:
    """The words of a quote that answer, chosen by the model from that quote.

    ``in_quote`` is where they lie in the quote folded to one line (what
    ``CheckedClaim.shown_text`` shows); ``start``/``end`` where they lie in the
    document's canonical text, when they could be placed there.
    """

    text: str
    in_quote: tuple[int, int]
    start: int | None = None
    end: int | None = None

    def to_json(self) -> dict[str, object]:
        return {
            "text": self.text,
            "in_quote": list(self.in_quote),
            "start": self.start,
            "end": self.end,
        }


@dataclass(frozen=True, slots=True)
class ChoiceConfidence:
    """How sure the model was of a claim's choices, as log-probabilities under its
    own distribution (before the grammar narrowed it): of the passage it named
    (``source``), and of the words it chose from it (the ``first`` word's tokens,
    the ``mean`` over them, the ``least`` of them). None where a backend cannot tell.
    """

    source: float | None = None
    first: float | None = None
    mean: float | None = None
    least: float | None = None

    def to_json(self) -> dict[str, float | None]:
        return {
            name: None if value is None else round(value, 3)
            for name, value in (
                ("source", self.source),
                ("first", self.first),
                ("mean", self.mean),
                ("least", self.least),
            )
        }


@dataclass(frozen=True, slots=True)
class Claim:
    """One claim as a model states it: its text, the chunk it cites, a verbatim quote."""

    text: str
    source_id: str
    quote: str


@dataclass(frozen=True, slots=True)
class CheckedClaim:
    """A claim after the verifier has looked at it.

    ``verification.start``/``end`` are set only when the quote verified, so
    only a verified claim can ever carry a link. The link sits on
    ``shown_text``: the claim's own words when they are grounded in the quote,
    otherwise the quoted words themselves, so a verified marker never stands
    beside words the quote does not say.
    """

    claim: Claim
    verification: Verification
    doc_id: str | None = None
    retried: bool = False
    grounding: Grounding | None = None  # set once the quote has verified
    from_evidence: bool = False  # an evidence sentence given as a claim, not a model's
    # The model cited this quote, which does not say the claim; another verified
    # sentence of the retrieved passages does, and the claim is linked to it.
    cited_quote: str | None = None
    # The model chose words of its quote as the answer (``reader.answer.spans``):
    # the quote is shown whole, those words in it as the direct answer.
    answer_span: AnswerSpan | None = None
    # How sure the model was of its choices, where the backend can tell.
    confidence: ChoiceConfidence | None = None

    @property
    def reanchored(self) -> bool:
        return self.cited_quote is not None

    @property
    def verified(self) -> bool:
        return self.verification.verified

    @property
    def grounded(self) -> bool:
        """The quote verified and the claim's text says only what the quote says."""
        return self.verified and self.grounding is not None and self.grounding.grounded

    @property
    def guessed(self) -> bool:
        """The quote verified and the words are its own, but the model was guessing
        them (``reader.answer.confidence``): linked, with no direct answer."""
        return self.verified and self.grounding is not None and self.grounding.guessed

    @property
    def shown_text(self) -> str:
        """The words a reader sees for this claim (linked when ``verified``)."""
        if self.verified and self.grounded and self.answer_span is not None:
            return " ".join(self.claim.quote.split())
        if self.verified and not self.grounded:
            # Quotation marks inside become single ones, as in any quotation of a
            # quotation: kept double, the closing marks doubled up ("Class.””").
            inner = " ".join(self.claim.quote.split()).translate(_NESTED_QUOTES)
            return "\u201c" + inner + "\u201d"
        return self.claim.text

    @property
    def direct_answer(self) -> str | None:
        """The quote's own words that answer, when the model chose them and they
        stand on their own (``reader.answer.spans``); never an evidence sentence
        (no model chose it) or a whole sentence (the prose shows it already)."""
        if self.from_evidence or not (self.verified and self.grounded):
            return None
        if self.answer_span is None:
            return None
        words = self.answer_span.text
        if " ".join(words.split()) == " ".join(self.claim.quote.split()):
            return None
        return words

    @property
    def why_no_direct_answer(self) -> str | None:
        """Why the words the model chose are not shown as the direct answer, when
        it chose some and they fail a check (``reader.answer.spans``)."""
        if self.answer_span is not None and not self.grounded and self.grounding is not None:
            return self.grounding.reason
        return None

    def to_json(self) -> dict[str, object]:
        check = self.verification
        linked = check.verified
        grounding = self.grounding
        return {
            "text": self.claim.text,
            "shown_text": self.shown_text,
            "grounded": self.grounded if linked else None,
            "grounding_reason": grounding.reason if grounding is not None else None,
            "ungrounded_words": list(grounding.missing) if grounding is not None else [],
            "support_judged": grounding.judged if grounding is not None else None,
            "guessed": grounding.guessed if grounding is not None else False,
            "source_id": self.claim.source_id,
            "quote": self.claim.quote,
            "doc_id": self.doc_id,
            "status": check.status,
            "reason": check.reason,
            "start": check.start if linked else None,
            "end": check.end if linked else None,
            "page": check.page if linked else None,
            "page_label": check.page_label if linked else None,
            "score": round(check.score, 2),
            "occurrences": check.occurrences,
            "found_in": list(check.found_in),
            "retried": self.retried,
            "reanchored": self.reanchored,
            "cited_quote": self.cited_quote,
            "origin": "evidence" if self.from_evidence else "model",
            "answer_span": self.answer_span.to_json() if self.answer_span is not None else None,
            "direct_answer": self.direct_answer,
            "confidence": self.confidence.to_json() if self.confidence is not None else None,
        }


@dataclass(slots=True)
class AnswerMetrics:
    """An answer's figures. ``claims`` counts everything shown as a claim; the
    ``model_*`` figures count only the claims a model wrote, since evidence
    sentences are taken from the text and verify by construction."""

    claims: int = 0
    exact: int = 0
    fuzzy: int = 0
    miss: int = 0
    grounded: int = 0
    retried: int = 0
    seconds: float = 0.0
    first_token_seconds: float | None = None
    first_evidence_seconds: float | None = None
    prompt_tokens: int = 0
    completion_tokens: int = 0
    model_claims: int = 0
    model_verified: int = 0
    model_supported: int = 0  # verified, and linked in the model's own words
    reanchored: int = 0
    evidence_shown: int = 0

    @property
    def verification_rate(self) -> float | None:
        """Share of claims that verified (exact or fuzzy); None without claims."""
        return (self.exact + self.fuzzy) / self.claims if self.claims else None

    @property
    def grounded_rate(self) -> float | None:
        """Share of claims whose quote verified and whose text the quote supports."""
        return self.grounded / self.claims if self.claims else None

    @property
    def model_verified_rate(self) -> float | None:
        """Share of a model's claims whose quote verified; None when it made none."""
        return self.model_verified / self.model_claims if self.model_claims else None

    @property
    def model_supported_rate(self) -> float | None:
        """Share of a model's claims linked in its own words (supported by a quote)."""
        return self.model_supported / self.model_claims if self.model_claims else None

    def count(self, claims: list[CheckedClaim]) -> None:
        """Set the claim counts from checked claims."""
        self.claims = len(claims)
        self.exact = sum(c.verification.status == "exact" for c in claims)
        self.fuzzy = sum(c.verification.status == "fuzzy" for c in claims)
        self.miss = sum(c.verification.status == "miss" for c in claims)
        self.grounded = sum(c.grounded for c in claims)
        made = [c for c in claims if not c.from_evidence]
        self.model_claims = len(made)
        self.model_verified = sum(c.verified for c in made)
        self.model_supported = sum(c.grounded for c in made)
        self.reanchored = sum(c.reanchored and c.verified for c in made)
        self.evidence_shown = len(claims) - len(made)

    def to_json(self) -> dict[str, object]:
        def rounded(value: float | None, digits: int = 4) -> float | None:
            return None if value is None else round(value, digits)

        return {
            "claims": self.claims,
            "exact": self.exact,
            "fuzzy": self.fuzzy,
            "miss": self.miss,
            "grounded": self.grounded,
            "verification_rate": rounded(self.verification_rate),
            "grounded_rate": rounded(self.grounded_rate),
            "model_claims": self.model_claims,
            "model_verified": self.model_verified,
            "model_supported": self.model_supported,
            "model_verified_rate": rounded(self.model_verified_rate),
            "model_supported_rate": rounded(self.model_supported_rate),
            "reanchored": self.reanchored,
            "evidence_shown": self.evidence_shown,
            "retried": self.retried,
            "seconds": round(self.seconds, 3),
            "first_token_seconds": rounded(self.first_token_seconds, 3),
            "first_evidence_seconds": rounded(self.first_evidence_seconds, 3),
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
        }


@dataclass(slots=True)
class Answer:
    """A question, the model's answer and every claim with its verification."""

    question: str
    answer: str
    claims: list[CheckedClaim]
    unsupported: list[str]
    model: str
    mode: str
    doc_ids: list[str]
    metrics: AnswerMetrics
    problem: str | None = None  # why the model's output yielded no claims, if it did not
    not_found: str | None = None  # why the documents were judged not to answer, if so
    # When not answered: the passages that came closest, shown as such, never as claims.
    closest: list[CheckedClaim] = field(default_factory=list)
    declined_by_model: bool = False  # not answered because the model said so
    library_wide: bool = False  # asked of the whole library, not of chosen documents
    id: int | None = None
    created_at: str = ""
    # Why the answer is not in the history (a read-only library, a full disk), if so.
    not_recorded: str | None = None

    def to_json(self) -> dict[str, object]:
        return {
            "id": self.id,
            "question": self.question,
            "answer": self.answer,
            "claims": [claim.to_json() for claim in self.claims],
            "unsupported": self.unsupported,
            "model": self.model,
            "mode": self.mode,
            "doc_ids": self.doc_ids,
            "problem": self.problem,
            "answered": self.not_found is None,
            "not_found_reason": self.not_found,
            "closest": [claim.to_json() for claim in self.closest],
            "declined_by_model": self.declined_by_model,
            "library_wide": self.library_wide,
            "created_at": self.created_at,
            "metrics": self.metrics.to_json(),
            "not_recorded": self.not_recorded,
        }


def answer_from_json(data: dict[str, Any], answer_id: int | None = None) -> Answer:
    """Rebuild an ``Answer`` from ``Answer.to_json()`` output."""
    claims = [_checked_claim_from_json(item) for item in data.get("claims", [])]
    closest = [_checked_claim_from_json(item) for item in data.get("closest", [])]
    metrics_data = data.get("metrics", {})
    names = AnswerMetrics.__dataclass_fields__
    metrics = AnswerMetrics(**{key: metrics_data[key] for key in names if key in metrics_data})
    return Answer(
        question=data["question"],
        answer=data.get("answer", ""),
        claims=claims,
        unsupported=list(data.get("unsupported", [])),
        model=data.get("model", ""),
        mode=data.get("mode", ""),
        doc_ids=list(data.get("doc_ids", [])),
        metrics=metrics,
        problem=data.get("problem"),
        not_found=data.get("not_found_reason"),
        closest=closest,
        declined_by_model=bool(data.get("declined_by_model")),
        library_wide=bool(data.get("library_wide")),
        id=answer_id if answer_id is not None else data.get("id"),
        created_at=data.get("created_at", ""),
    )


def _checked_claim_from_json(item: dict[str, Any]) -> CheckedClaim:
    verification = Verification(
        status=item["status"],
        reason=item.get("reason", ""),
        chunk_id=item.get("source_id"),
        start=item.get("start"),
        end=item.get("end"),
        page=item.get("page"),
        page_label=item.get("page_label"),
        score=float(item.get("score", 0.0)),
        occurrences=item.get("occurrences", 0),
        found_in=tuple(item.get("found_in", ())),
    )
    grounding = None
    if item.get("grounding_reason") is not None:
        grounding = Grounding(
            bool(item.get("grounded")),
            str(item["grounding_reason"]),
            tuple(item.get("ungrounded_words", ())),
            item.get("support_judged"),
            guessed=bool(item.get("guessed")),
        )
    return CheckedClaim(
        Claim(item["text"], item["source_id"], item["quote"]),
        verification,
        doc_id=item.get("doc_id"),
        retried=bool(item.get("retried")),
        grounding=grounding,
        from_evidence=item.get("origin") == "evidence",
        cited_quote=item.get("cited_quote"),
        answer_span=_answer_span_from_json(item.get("answer_span")),
        confidence=_confidence_from_json(item.get("confidence")),
    )


def _confidence_from_json(item: object) -> ChoiceConfidence | None:
    if not isinstance(item, dict):
        return None

    def number(name: str) -> float | None:
        value = item.get(name)
        return float(value) if isinstance(value, (int, float)) else None

    return ChoiceConfidence(number("source"), number("first"), number("mean"), number("least"))


def _answer_span_from_json(item: object) -> AnswerSpan | None:
    if not isinstance(item, dict) or not isinstance(item.get("text"), str):
        return None
    in_quote = item.get("in_quote") or [0, 0]
    return AnswerSpan(
        item["text"], (int(in_quote[0]), int(in_quote[1])), item.get("start"), item.get("end")
    )
