"""``reader eval``: the answer pipeline on a question set, with figures.

(A set of claims labelled by hand is ``reader.library.labelled_claims``.) Two
formats of question set are read:

- SQuAD JSON: each context becomes a plain-text document; gold answers carry
  character offsets into it, which are the evidence; questions marked
  ``is_impossible`` (SQuAD v2) are unanswerable.
- reader's own question set on long documents: ``{"corpus": FOLDER,
  "questions": [{"document", "question", "answerable", "evidence",
  "answers"}]}``, where ``document`` is a path under ``corpus`` (itself
  relative to the file) and ``evidence`` holds phrases of the document that
  answer the question.

Documents go into a private, temporary library (the user's library and
history are not touched). Figures, per run:

- ``yield``: answerable questions with at least one verified claim;
- ``evidence_hit``: answerable questions where a verified span overlaps the
  gold evidence (a check on offsets, not on wording);
- ``answer_stated``: answerable questions where a linked claim's shown words
  (the claim's own when grounded, else its quote's) contain a gold answer, as
  written or word for word up to inflection;
- ``model_stated``: the same, counting only grounded sentences a model wrote
  (not the evidence sentences given as claims);
- ``direct_stated``: answerable questions whose direct answer (the words a model
  chose from its quote, standing on their own: ``reader.answer.spans``) states
  a gold answer; ``direct_short``: the same, the direct answer at most
  ``SHORT_ANSWER_WORDS`` words;
- ``verification_rate``: verified claims among all claims;
- ``grounded_share``: grounded claims among verified ones;
- ``model_claims``, ``model_supported_share``: the claims models wrote, and the
  share of them linked in their own words; ``reanchored``: those linked to
  another sentence than the one cited; ``declined_by_model``: questions the
  model said the passages do not answer;
- ``abstained``: unanswerable questions answered "not found";
- ``false_not_found``: answerable questions answered "not found";
- ``retrieval_at_4`` / ``retrieval_at_10``: the gold evidence lies in one of
  the first 4 / 10 retrieved chunks;
- ``gold_offered``: the gold evidence lies in one of the evidence sentences a
  model is shown in constrained quoting (``EVIDENCE_FOR_MODEL``): what a model
  can choose at best;
- seconds: median and 90th percentile of the whole answer, median of the
  first verified evidence.

``--details`` adds, per answerable question, where the gold evidence ranked:
its chunk among those retrieved (``gold_chunk_rank``) and its first sentence
among the evidence candidates (``gold_evidence_rank``, 0 = the first offered
to a model; ``None`` when not in the first ``EVIDENCE_RANKS``).
"""

from __future__ import annotations

import json
import statistics
import tempfile
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from reader.answer.pipeline import EVIDENCE_FOR_MODEL, Answerer
from reader.errors import ReaderError
from reader.library.library import Library
from reader.models.backends import Backend
from reader.records import CheckedClaim, Chunk
from reader.retrieve.evidence import choose_evidence
from reader.retrieve.question import Question
from reader.text.normalize import normalize_key
from reader.text.words import STOPWORDS, stem, words
from reader.verify.grounding import NEGATIONS


@dataclass
class EvalItem:
    question: str
    answerable: bool
    answers: list[str]
    document: Path | None = None  # a file, or:
    context: str | None = None  # a text given inline (SQuAD)
    evidence: list[str] = field(default_factory=list)
    gold_spans: list[tuple[int, int]] = field(default_factory=list)
    id: str = ""
    kind: str = ""  # of an unanswerable question: "near-miss", "off-topic"...
    corpus_missing: str | None = None  # why its document cannot be there, if so


# A direct answer this short reads as an answer, not a passage.
SHORT_ANSWER_WORDS = 12
# How far down the evidence candidates the details look for the gold sentence.
EVIDENCE_RANKS = 40


def load_items(path: Path) -> list[EvalItem]:
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
        if isinstance(data, dict) and "questions" in data:
            return _reader_items(Path(path), data)
        return _squad_items(data)
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise ReaderError(
            f"{path} is not a SQuAD-format or reader question file "
            f"({type(error).__name__}: {error})."
        ) from None


def _reader_items(path: Path, data: dict[str, Any]) -> list[EvalItem]:
    named = data.get("corpus", ".")
    corpus = (path.parent / named).resolve()
    missing = None
    if not corpus.is_dir():  # said when the documents are read, not when the file is
        missing = (
            f"The documents of {path.name} are not at {corpus} (it names its corpus as "
            f"'{named}', relative to itself): put the corpus folder there, or edit 'corpus' "
            "in the file."
        )
    return [
        EvalItem(
            question=q["question"],
            answerable=bool(q.get("answerable", True)),
            answers=list(q.get("answers", [])),
            document=corpus / q["document"],
            evidence=list(q.get("evidence", [])),
            id=str(q.get("id", "")),
            kind=str(q.get("kind", "")),
            corpus_missing=missing,
        )
        for q in data["questions"]
    ]


def _squad_items(data: dict[str, Any]) -> list[EvalItem]:
    items = []
    for article in data["data"]:
        for paragraph in article["paragraphs"]:
            context = paragraph["context"]
            for qa in paragraph["qas"]:
                answerable = not qa.get("is_impossible") and bool(qa.get("answers"))
                answers = qa.get("answers") or []
                items.append(
                    EvalItem(
                        question=qa["question"],
                        answerable=answerable,
                        answers=[a["text"] for a in answers],
                        context=context,
                        gold_spans=[
                            (int(a["answer_start"]), int(a["answer_start"]) + len(a["text"]))
                            for a in answers
                        ],
                        id=str(qa.get("id", "")),
                    )
                )
    return items


def _percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def ratio(count: int, total: int) -> float | None:
    return round(count / total, 4) if total else None


def evaluate(
    qa_path: str | Path,
    backend: Backend | None,
    mode: str,
    limit: int = 100,
    progress: Callable[[int, int], None] | None = None,
    details: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """Figures for ``limit`` questions of the file; ``details`` collects one row each."""
    items = load_items(Path(qa_path))[:limit]
    if not items:
        raise ReaderError(f"{qa_path} holds no questions.")
    tally = _Tally()
    with tempfile.TemporaryDirectory() as folder, Library(Path(folder) / "eval.db") as library:
        answerer = library.answerer(backend, mode=mode, record=False)
        # Every document first: a word's rarity is the whole set's, whichever
        # question comes first, as in a library the user has filled.
        documents: dict[str, str] = {}
        for item in items:
            _ingest(library, item, documents, Path(folder))
        for number, item in enumerate(items, start=1):
            doc_id = _ingest(library, item, documents, Path(folder))
            row = _asked(library, answerer, item, doc_id, tally)
            if details is not None:
                details.append(row)
            if progress is not None:
                progress(number, len(items))
    return tally.figures(
        {
            "file": str(qa_path),
            "mode": answerer.mode,
            "model": backend.name if backend is not None else "none (passages)",
            "questions": len(items),
        }
    )


@dataclass
class _Tally:
    """What the questions asked so far came to."""

    counts: Counter[str] = field(default_factory=Counter)
    seconds: list[float] = field(default_factory=list)
    first_evidence: list[float] = field(default_factory=list)
    by_kind: dict[str, list[int]] = field(default_factory=dict)

    def figures(self, heading: dict[str, Any]) -> dict[str, Any]:
        count = self.counts
        answerable, unanswerable = count["answerable"], count["unanswerable"]
        return {
            **heading,
            "answerable": answerable,
            "unanswerable": unanswerable,
            **{
                name: ratio(count[name], answerable)
                for name in (
                    "yield",
                    "evidence_hit",
                    "answer_stated",
                    "model_stated",
                    "direct_stated",
                    "direct_short",
                )
            },
            "verification_rate": ratio(count["verified"], count["claims"]),
            "grounded_share": ratio(count["grounded"], count["verified"]),
            "model_claims": count["made"],
            "model_supported_share": ratio(count["made_supported"], count["made"]),
            "reanchored": count["reanchored"],
            "back_matter_linked": count["back_matter"],
            "declined_by_model": count["declined"],
            "abstained": ratio(count["abstained"], unanswerable),
            "abstained_by_kind": {
                kind: f"{done}/{total}" for kind, (done, total) in self.by_kind.items()
            },
            "false_not_found": ratio(count["false_not_found"], answerable),
            "retrieval_at_4": ratio(count["at_4"], answerable),
            "retrieval_at_10": ratio(count["at_10"], answerable),
            "gold_offered": ratio(count["offered"], answerable),
            "seconds_p50": round(statistics.median(self.seconds), 3),
            "seconds_p90": round(_percentile(self.seconds, 0.9), 3),
            "first_evidence_seconds_p50": (
                round(statistics.median(self.first_evidence), 3) if self.first_evidence else None
            ),
        }


def _asked(
    library: Library, answerer: Answerer, item: EvalItem, doc_id: str, tally: _Tally
) -> dict[str, Any]:
    """Ask ``item``'s question, add what it came to to ``tally``; its details row."""
    gold = item.gold_spans or _evidence_spans(library, doc_id, item)
    answer = answerer.ask(item.question, [doc_id])
    metrics, count = answer.metrics, tally.counts
    tally.seconds.append(metrics.seconds)
    if metrics.first_evidence_seconds is not None:
        tally.first_evidence.append(metrics.first_evidence_seconds)
    linked = [c for c in answer.claims if c.verified and c.verification.start is not None]
    count["back_matter"] += sum(1 for c in linked if _in_back_matter(library, c))
    count["claims"] += metrics.claims
    count["made"] += metrics.model_claims
    count["made_supported"] += metrics.model_supported
    count["reanchored"] += metrics.reanchored
    count["declined"] += answer.declined_by_model
    count["verified"] += len(linked)
    count["grounded"] += sum(c.grounded for c in linked)
    first_token = metrics.first_token_seconds
    row: dict[str, Any] = {
        "id": item.id,
        "question": item.question,
        "answerable": item.answerable,
        "not_found": answer.not_found,
        "seconds": round(metrics.seconds, 2),
        "first_token_seconds": None if first_token is None else round(first_token, 3),
        "prompt_tokens": metrics.prompt_tokens,
        "completion_tokens": metrics.completion_tokens,
        "claims": [_claim_row(c) for c in answer.claims],
        "problem": answer.problem,
    }
    if not item.answerable:
        count["unanswerable"] += 1
        count["abstained"] += answer.not_found is not None
        counts = tally.by_kind.setdefault(item.kind or "unanswerable", [0, 0])
        counts[0] += answer.not_found is not None
        counts[1] += 1
        return row
    count["answerable"] += 1
    spans = [(c.verification.start or 0, c.verification.end or 0) for c in linked]
    direct = [c.direct_answer for c in linked if c.direct_answer]
    row["yield"] = bool(linked)
    row["evidence_hit"] = any(_overlaps(s, g) for s in spans for g in gold)
    row["answer_stated"] = any(_contains_answer(c.shown_text, item.answers) for c in linked)
    row["model_stated"] = any(
        _contains_answer(c.claim.text, item.answers)
        for c in linked
        if c.grounded and not c.from_evidence
    )
    row["direct_stated"] = any(_contains_answer(d, item.answers) for d in direct)
    row["direct_short"] = any(
        _contains_answer(d, item.answers) and len(d.split()) <= SHORT_ANSWER_WORDS for d in direct
    )
    for name in ("yield", "evidence_hit", "answer_stated", "model_stated"):
        count[name] += row[name]
    count["direct_stated"] += row["direct_stated"]
    count["direct_short"] += row["direct_short"]
    count["false_not_found"] += answer.not_found is not None
    chunks = answerer.retrieve(item.question, [doc_id])
    ranks = [i for i, c in enumerate(chunks) if any(_overlaps((c.start, c.end), g) for g in gold)]
    row["gold_chunk_rank"] = ranks[0] if ranks else None
    row["gold_evidence_rank"] = _gold_evidence_rank(library, item.question, chunks, gold)
    count["at_4"] += bool(ranks) and ranks[0] < 4
    count["at_10"] += bool(ranks) and ranks[0] < 10
    rank = row["gold_evidence_rank"]
    count["offered"] += rank is not None and rank < EVIDENCE_FOR_MODEL
    return row


def _claim_row(c: CheckedClaim) -> dict[str, Any]:
    return {
        "shown": c.shown_text,
        "model": c.claim.text,
        "quote": c.claim.quote,
        "cited_quote": c.cited_quote,
        "origin": "evidence" if c.from_evidence else "model",
        "grounded": c.grounded,
        "status": c.verification.status,
        "page": c.verification.page,
        "reason": c.grounding.reason if c.grounding else c.verification.reason,
        "direct_answer": c.direct_answer,
        "confidence": c.confidence.to_json() if c.confidence else None,
    }


def _ingest(library: Library, item: EvalItem, documents: dict[str, str], folder: Path) -> str:
    key = str(item.document) if item.document is not None else (item.context or "")
    if key not in documents:
        if item.corpus_missing:
            raise ReaderError(item.corpus_missing)
        if item.document is not None:
            documents[key] = library.ingest(item.document).doc_id
        else:
            path = folder / f"context-{len(documents)}.txt"
            path.write_text(item.context or "", encoding="utf-8")
            documents[key] = library.ingest(path).doc_id
            if library.document(documents[key]).text != item.context:
                raise ReaderError("a context's canonical text differs from the file's text")
    return documents[key]


def _evidence_spans(library: Library, doc_id: str, item: EvalItem) -> list[tuple[int, int]]:
    verifier = library.verifier(doc_id)
    spans = []
    for phrase in item.evidence:
        found = verifier.verify(phrase)
        if not found.verified or found.start is None or found.end is None:
            raise ReaderError(
                f"question {item.id or item.question!r}: its evidence is not in the document "
                f"({found.reason}): {phrase[:80]!r}"
            )
        spans.append((found.start, found.end))
    return spans


def _overlaps(a: tuple[int, int], b: tuple[int, int]) -> bool:
    return a[0] < b[1] and b[0] < a[1]


def _contains_answer(text: str, answers: list[str]) -> bool:
    """Whether ``text`` states a gold answer: as written, or every word of it up to
    inflection ("MuPDF swallows errors during interpretation" states "swallow errors
    during interpretation"; "external, internal and backend nodes" states "external
    nodes, internal nodes, and backend nodes"). A negation of the answer's counts as
    a word; numbers match as written."""
    shown = normalize_key(text)
    if any(normalize_key(answer) in shown for answer in answers if answer.strip()):
        return True
    said = {stem(token) for token in words(text)}
    for answer in answers:
        needed = {stem(t) for t in words(answer) if t not in STOPWORDS or t in NEGATIONS}
        if needed and needed <= said:
            return True
    return False


def _in_back_matter(library: Library, claim: CheckedClaim) -> bool:
    """Whether a linked claim's quote lies in back matter (an index, contents)."""
    chunk_id = claim.verification.chunk_id
    return chunk_id is not None and library.chunk(chunk_id).back_matter


def _gold_evidence_rank(
    library: Library, question: str, chunks: list[Chunk], gold: list[tuple[int, int]]
) -> int | None:
    """Where the first sentence on the gold evidence ranks among the evidence
    candidates (0 = the first offered to a model), within ``EVIDENCE_RANKS``."""
    candidates = choose_evidence(
        Question.parse(question, library.term_rarity), chunks, limit=EVIDENCE_RANKS
    )
    for rank, item in enumerate(candidates):
        start = item.chunk.start + item.start
        if any(_overlaps((start, item.chunk.start + item.end), g) for g in gold):
            return rank
    return None
