"""Verification-rate figures over the answer history, with a simple alert.

The rate is a leading indicator of a stale index, a bad chunking change or a
bad model: when the recent answers verify much less than the usual ones, say
so.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from typing import Any

from reader.text.escaping import counted

RECENT = 10
ALERT_DROP = 0.2
# Model claims enough to say that none supported is not chance.
FEW_CLAIMS = 3


def _summary(rows: Iterable[dict[str, Any]]) -> dict[str, Any]:
    rows = list(rows)
    claims = sum(int(r["claims"]) for r in rows)
    verified = sum(int(r["exact"]) + int(r["fuzzy"]) for r in rows)
    fuzzy = sum(int(r["fuzzy"]) for r in rows)
    miss = sum(int(r["miss"]) for r in rows)
    grounded = sum(int(r.get("grounded") or 0) for r in rows)
    made = sum(int(r.get("model_claims") or 0) for r in rows)
    made_verified = sum(int(r.get("model_verified") or 0) for r in rows)
    made_supported = sum(int(r.get("model_supported") or 0) for r in rows)
    return {
        "answers": len(rows),
        "claims": claims,
        "not_found": sum(1 for r in rows if not r.get("answered", 1)),
        "verification_rate": round(verified / claims, 4) if claims else None,
        "grounded_rate": round(grounded / claims, 4) if claims else None,
        "fuzzy_rate": round(fuzzy / claims, 4) if claims else None,
        "miss_rate": round(miss / claims, 4) if claims else None,
        "model_claims": made,
        "model_verified_rate": round(made_verified / made, 4) if made else None,
        "model_supported_rate": round(made_supported / made, 4) if made else None,
        "reanchored": sum(int(r.get("reanchored") or 0) for r in rows),
        "evidence_shown": sum(int(r.get("evidence_shown") or 0) for r in rows),
    }


def verification_stats(rows: list[dict[str, Any]]) -> dict[str, Any]:
    by_model: dict[str, list[dict[str, Any]]] = defaultdict(list)
    by_document: dict[str, list[dict[str, Any]]] = defaultdict(list)
    by_day: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        by_model[str(row["model"])].append(row)
        by_day[str(row["created_at"])[:10]].append(row)
        for doc_id in row["doc_ids"]:
            by_document[doc_id].append(row)
    figures: dict[str, Any] = {
        "overall": _summary(rows),
        "by_model": {key: _summary(value) for key, value in sorted(by_model.items())},
        "by_document": {key: _summary(value) for key, value in sorted(by_document.items())},
        "by_day": {key: _summary(value) for key, value in sorted(by_day.items())},
        "per_answer": [
            {
                "id": row["id"],
                "created_at": row["created_at"],
                "verification_rate": row["verification_rate"],
                "grounded_rate": (
                    round(int(row.get("grounded") or 0) / row["claims"], 4)
                    if row["claims"]
                    else None
                ),
                "model_claims": row.get("model_claims", 0),
                "model_verified_rate": _share(row.get("model_verified"), row.get("model_claims")),
                "model_supported_rate": _share(row.get("model_supported"), row.get("model_claims")),
                "evidence_shown": row.get("evidence_shown", 0),
                "claims": row["claims"],
                "fuzzy": row["fuzzy"],
                "miss": row["miss"],
            }
            for row in rows
        ],
        "alert": recent_drop_alert(rows),
    }
    return figures


def _share(part: Any, whole: Any) -> float | None:
    total = int(whole or 0)
    return round(int(part or 0) / total, 4) if total else None


def recent_drop_alert(rows: list[dict[str, Any]]) -> str | None:
    """A warning when the last answers verify, or have their model claims supported,
    far less than the ones before; or, before there is a "before" to compare with,
    when none of the model's claims of the last answers was supported at all."""
    rated = [r for r in rows if r["claims"]]
    last = _summary(rated[-RECENT:])
    made = last["model_claims"]
    if made >= FEW_CLAIMS and last["model_supported_rate"] == 0:
        return (
            f"in the last {counted(last['answers'], 'answer')} none of the model's {made} "
            "claims was supported by its quote: check the model (a smaller one, or one "
            "that does not follow instructions, says what its quotes do not)"
        )
    if len(rated) < RECENT * 2:
        return None
    before, last = _summary(rated[:-RECENT]), _summary(rated[-RECENT:])
    for key, what in (
        ("verification_rate", "of the claims verified"),
        ("model_supported_rate", "of the model's claims were supported by their quotes"),
    ):
        usual, recent = before[key], last[key]
        if usual is None or recent is None or usual - recent < ALERT_DROP:
            continue
        return (
            f"in the last {RECENT} answers {recent:.0%} {what}, against a usual "
            f"{usual:.0%}: check for a changed model or a stale index (re-ingest the documents)"
        )
    return None
