"""``reader eval``: the answer pipeline on a SQuAD-format file, with figures.

Each context becomes a plain-text document in a private, temporary library
(the user's library and history are not touched); each answerable question is
asked of its context. Gold answers carry character offsets into the context,
which is also the document's canonical text, so "a verified span contains the
gold answer" is a check on offsets, not on wording.
"""

from __future__ import annotations

import json
import statistics
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from reader.answer.backends import Backend
from reader.answer.pipeline import Answerer
from reader.errors import ReaderError
from reader.library import Library


def load_squad(path: Path) -> list[tuple[str, str, list[tuple[int, int]]]]:
    """(context, question, gold spans) for every answerable question, in file order."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
        items = []
        for article in data["data"]:
            for paragraph in article["paragraphs"]:
                context = paragraph["context"]
                for qa in paragraph["qas"]:
                    if qa.get("is_impossible") or not qa.get("answers"):
                        continue
                    gold = [
                        (int(a["answer_start"]), int(a["answer_start"]) + len(a["text"]))
                        for a in qa["answers"]
                    ]
                    items.append((context, qa["question"], gold))
        return items
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise ReaderError(
            f"{path} is not a SQuAD-format JSON file ({type(error).__name__}: {error})."
        ) from None


def evaluate(
    qa_path: str | Path,
    backend: Backend | None,
    mode: str,
    limit: int = 100,
    progress: Callable[[int, int], None] | None = None,
) -> dict[str, Any]:
    items = load_squad(Path(qa_path))[:limit]
    if not items:
        raise ReaderError(f"{qa_path} holds no answerable questions.")
    per_answer_rates: list[float] = []
    seconds: list[float] = []
    claims = verified = with_claims = containing = 0
    with tempfile.TemporaryDirectory() as folder, Library(Path(folder) / "eval.db") as library:
        answerer = Answerer(library, backend, mode=mode, record=False)
        documents: dict[str, str] = {}
        for number, (context, question, gold) in enumerate(items, start=1):
            if context not in documents:
                path = Path(folder) / f"context-{len(documents)}.txt"
                path.write_text(context, encoding="utf-8")
                documents[context] = library.ingest(path).doc_id
            doc_id = documents[context]
            if library.document(doc_id).text != context:
                raise ReaderError("a context's canonical text differs from the file's text")
            answer = answerer.ask(question, [doc_id])
            seconds.append(answer.metrics.seconds)
            claims += answer.metrics.claims
            verified += answer.metrics.exact + answer.metrics.fuzzy
            if answer.metrics.claims:
                with_claims += 1
                rate = answer.metrics.verification_rate
                per_answer_rates.append(rate if rate is not None else 0.0)
            spans = [
                (c.verification.start, c.verification.end)
                for c in answer.claims
                if c.verified and c.verification.start is not None
            ]
            if any(s <= g0 and e >= g1 for s, e in spans for g0, g1 in gold):  # type: ignore[operator]
                containing += 1
            if progress is not None:
                progress(number, len(items))
    count = len(items)
    return {
        "file": str(qa_path),
        "mode": answerer.mode,
        "model": backend.name if backend is not None else "none (passages)",
        "questions": count,
        "claims": claims,
        "verified_claims": verified,
        "verification_rate": round(verified / claims, 4) if claims else None,
        "mean_answer_verification_rate": (
            round(statistics.fmean(per_answer_rates), 4) if per_answer_rates else None
        ),
        "answers_with_claims": round(with_claims / count, 4),
        "gold_in_verified_span": round(containing / count, 4),
        "seconds_mean": round(statistics.fmean(seconds), 3),
        "seconds_p50": round(statistics.median(seconds), 3),
        "seconds_max": round(max(seconds), 3),
    }
