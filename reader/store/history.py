"""The answers history: every answer as recorded, and the documents it cites.

An answer's row holds the figures ``reader stats`` reads (claims, how many
verified, time and tokens) beside its whole payload, ``Answer.to_json()``;
``answer_documents`` says which documents it was about.
"""

from __future__ import annotations

import json
import sqlite3
from datetime import UTC, datetime
from typing import Any

from reader.errors import StoreError
from reader.records import Answer, answer_from_json
from reader.store import file_guard

# An answer's columns apart from its id, in the order ``add_answer`` writes them.
ANSWER_COLUMNS = (
    "created_at, question, doc_ids, model, mode, claims, exact, fuzzy, miss, grounded, "
    "answered, verification_rate, seconds, prompt_tokens, completion_tokens, payload"
)
# The figures ``answer_rows`` gives per answer, as the columns holding them are named.
_FIGURES = [
    "id",
    "created_at",
    "model",
    "mode",
    "doc_ids",
    "claims",
    "exact",
    "fuzzy",
    "miss",
    "grounded",
    "answered",
    "verification_rate",
    "seconds",
]


def date(answer: Answer) -> None:
    """Give the answer the time now, unless it has a time already."""
    answer.created_at = answer.created_at or datetime.now(UTC).isoformat(timespec="seconds")


def add_answer(conn: sqlite3.Connection, answer: Answer) -> int:
    """Record a dated answer in one transaction; returns its id, which it is given."""
    metrics = answer.metrics
    try:
        with conn:
            cursor = conn.execute(
                f"INSERT INTO answers ({ANSWER_COLUMNS}) VALUES ({', '.join('?' * 16)})",
                [
                    answer.created_at,
                    answer.question,
                    json.dumps(answer.doc_ids),
                    answer.model,
                    answer.mode,
                    metrics.claims,
                    metrics.exact,
                    metrics.fuzzy,
                    metrics.miss,
                    metrics.grounded,
                    answer.not_found is None,
                    metrics.verification_rate,
                    metrics.seconds,
                    metrics.prompt_tokens,
                    metrics.completion_tokens,
                    json.dumps(answer.to_json(), ensure_ascii=False),
                ],
            )
            answer_id = int(cursor.lastrowid or 0)
            conn.executemany(
                "INSERT INTO answer_documents (answer_id, doc_id) VALUES (?, ?)",
                [(answer_id, doc_id) for doc_id in answer.doc_ids],
            )
    except sqlite3.DatabaseError as error:
        raise StoreError(
            f"The answer could not be recorded in the history ({error})"
            + ("; free some disk space." if file_guard.is_disk_full(error) else ".")
        ) from None
    answer.id = answer_id
    return answer_id


def answer(conn: sqlite3.Connection, answer_id: int) -> Answer | None:
    row = conn.execute("SELECT payload FROM answers WHERE id = ?", [answer_id]).fetchone()
    return answer_from_json(json.loads(row[0]), answer_id) if row else None


def answers(conn: sqlite3.Connection, doc_id: str | None, limit: int) -> list[Answer]:
    """Stored answers, newest first, about ``doc_id`` or about anything."""
    if doc_id is None:
        rows = conn.execute(
            "SELECT id, payload FROM answers ORDER BY id DESC LIMIT ?", [limit]
        ).fetchall()
    else:
        rows = conn.execute(
            "SELECT a.id, a.payload FROM answers a JOIN answer_documents d "
            "ON d.answer_id = a.id WHERE d.doc_id = ? ORDER BY a.id DESC LIMIT ?",
            [doc_id, limit],
        ).fetchall()
    return [answer_from_json(json.loads(payload), answer_id) for answer_id, payload in rows]


def answer_rows(conn: sqlite3.Connection) -> list[dict[str, object]]:
    """Each answer's figures with the model's own (see ``_model_figures``), oldest first."""
    rows = conn.execute(
        f"SELECT {', '.join(_FIGURES)}, payload FROM answers ORDER BY id"
    ).fetchall()
    records = []
    for row in rows:
        record: dict[str, Any] = dict(zip(_FIGURES, row[:-1], strict=True))
        record["doc_ids"] = json.loads(str(record["doc_ids"]))
        record.update(_model_figures(row[-1]))
        records.append(record)
    return records


def _model_figures(payload: object) -> dict[str, int]:
    """The model's claims, verified, supported and re-anchored, and the evidence shown."""
    try:
        data = json.loads(str(payload))
        claims = [c for c in data.get("claims", []) if isinstance(c, dict)]
    except (ValueError, AttributeError):
        claims = []
    made = [c for c in claims if c.get("origin") != "evidence"]
    linked = [c for c in made if c.get("status") in ("exact", "fuzzy")]
    return {
        "model_claims": len(made),
        "model_verified": len(linked),
        "model_supported": sum(bool(c.get("grounded")) for c in linked),
        "reanchored": sum(bool(c.get("reanchored")) for c in linked),
        "evidence_shown": len(claims) - len(made),
    }


def move_answers(conn: sqlite3.Connection, old_id: str, new_id: str) -> int:
    """Make the answers that cite ``old_id`` cite ``new_id``, inside the caller's
    transaction; returns how many were moved."""
    answer_ids = [
        row[0]
        for row in conn.execute(
            "SELECT DISTINCT answer_id FROM answer_documents WHERE doc_id = ?", [old_id]
        ).fetchall()
    ]
    for answer_id in answer_ids:
        doc_ids_json, payload_json = conn.execute(
            "SELECT doc_ids, payload FROM answers WHERE id = ?", [answer_id]
        ).fetchone()
        payload = json.loads(payload_json)
        payload["doc_ids"] = _moved(payload.get("doc_ids", []), old_id, new_id)
        for claim in payload.get("claims", []):
            if claim.get("doc_id") == old_id:
                claim["doc_id"] = new_id
        conn.execute(
            "UPDATE answers SET doc_ids = ?, payload = ? WHERE id = ?",
            [
                json.dumps(_moved(json.loads(doc_ids_json), old_id, new_id)),
                json.dumps(payload, ensure_ascii=False),
                answer_id,
            ],
        )
    conn.execute("UPDATE answer_documents SET doc_id = ? WHERE doc_id = ?", [new_id, old_id])
    return len(answer_ids)


def _moved(doc_ids: list[str], old_id: str, new_id: str) -> list[str]:
    moved: list[str] = []
    for doc_id in doc_ids:
        replacement = new_id if doc_id == old_id else doc_id
        if replacement not in moved:
            moved.append(replacement)
    return moved
