"""``reader eval`` on claims labelled by hand: the support check's precision and recall.

A labelled set is JSON lines, each a question, a claim a real model wrote, the
quote it is linked to and a hand label ("supported" or "unsupported"); see
``evaluate_support``. Answering questions is ``reader.library.evaluate``.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from reader.answer.hygiene import says_not_answered, strip_meta
from reader.answer.judge import SupportJudge
from reader.errors import ReaderError
from reader.library.evaluate import ratio
from reader.verify.grounding import check_grounding

__all__ = ["evaluate_support", "is_support_set"]


def is_support_set(path: Path) -> bool:
    """Whether ``path`` is a labelled set of claims (JSON lines with a "label")."""
    try:
        with Path(path).open(encoding="utf-8") as stream:
            first = json.loads(stream.readline())
    except (OSError, ValueError):
        return False
    return isinstance(first, dict) and "label" in first and "claim" in first


def evaluate_support(
    path: Path,
    details: list[dict[str, Any]] | None = None,
    judge: SupportJudge | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> dict[str, Any]:
    """Precision and recall of the support check, per model, on labelled claims.

    Each line holds a question, a claim a real model wrote, the quote it is
    linked to, and a hand label: "supported" (the claim says only what the
    quote says, paraphrase allowed) or "unsupported". A claim is linked in its
    own words when hygiene leaves something to check and the check passes
    (the rules, then ``judge`` where given: the model run in-process).
    Precision: linked claims that are supported; recall: supported claims linked.
    """
    try:
        rows = [
            json.loads(line)
            for line in Path(path).read_text(encoding="utf-8").splitlines()
            if line.strip()
        ]
        labelled = [
            (str(r["model"]), r) for r in rows if r["label"] in ("supported", "unsupported")
        ]
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise ReaderError(
            f"{path} is not a labelled claim set ({type(error).__name__}: {error})."
        ) from None
    if not labelled:
        raise ReaderError(f"{path} holds no labelled claims.")
    per_model: dict[str, dict[str, int]] = {}
    started = time.perf_counter()
    for number, (model, row) in enumerate(labelled, start=1):
        claim = strip_meta(str(row["claim"]))
        question, quote = str(row.get("question", "")), str(row["quote"])
        linked = False
        if not says_not_answered(claim):
            verdict = check_grounding(claim, quote, question)
            if judge is not None:
                verdict = judge.verdict(verdict, question, claim, quote)
            linked = verdict.grounded
        if progress is not None:
            progress(number, len(labelled))
        supported = row["label"] == "supported"
        counts = per_model.setdefault(model, {"claims": 0, "supported": 0, "linked": 0, "both": 0})
        counts["claims"] += 1
        counts["supported"] += supported
        counts["linked"] += linked
        counts["both"] += linked and supported
        if details is not None and linked != supported:
            details.append({**row, "linked": linked, "error": "linked" if linked else "refused"})
    elapsed = time.perf_counter() - started
    total = {
        key: sum(c[key] for c in per_model.values())
        for key in ("claims", "supported", "linked", "both")
    }

    def figures(counts: dict[str, int]) -> dict[str, Any]:
        return {
            **counts,
            "precision": ratio(counts["both"], counts["linked"]),
            "recall": ratio(counts["both"], counts["supported"]),
        }

    return {
        "file": str(path),
        "judge": judge is not None,
        "overall": figures(total),
        "by_model": {model: figures(counts) for model, counts in sorted(per_model.items())},
        "ms_per_claim": round(1000 * elapsed / len(labelled), 3),
    }
