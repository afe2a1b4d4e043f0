"""ask, history, stats and eval through the real command line (no model needed)."""

from __future__ import annotations

import json
import subprocess
import sys

from reader.answer.pipeline import EVIDENCE_FOR_MODEL
from reader.answer.stats import recent_drop_alert, verification_stats
from tests.answer.conftest import TREATY


def reader(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "reader.cli", *args], capture_output=True, text=True
    )


def test_ask_without_a_model_gives_verified_passages(tmp_path):
    path = tmp_path / "treaties.txt"
    path.write_text(TREATY, encoding="utf-8")
    completed = reader(
        "ask", str(path), "Where was the Peace of Utrecht signed?", "--no-model", "--json"
    )
    assert completed.returncode == 0, completed.stderr
    data = json.loads(completed.stdout)
    assert data["claims"] and all(c["status"] == "exact" for c in data["claims"])
    assert data["metrics"]["verification_rate"] == 1.0
    for claim in data["claims"]:
        assert " ".join(TREATY[claim["start"] : claim["end"]].split()) == claim["quote"]
        # Evidence sentences say what they are: no model made them.
        assert claim["origin"] == "evidence" and claim["reanchored"] is False
    assert data["metrics"]["model_claims"] == 0
    assert data["metrics"]["model_supported_rate"] is None

    text = reader("ask", str(path), "Where was the Peace of Utrecht signed?", "--no-model")
    assert "[1]" in text.stdout and "Verification:" in text.stdout

    history = json.loads(reader("history", "--json").stdout)
    assert [h["question"] for h in history] == ["Where was the Peace of Utrecht signed?"] * 2
    assert all(h["claims"][0]["status"] == "exact" for h in history)
    stats = json.loads(reader("stats", "--json").stdout)
    assert stats["overall"]["answers"] == 2
    assert stats["overall"]["verification_rate"] == 1.0
    assert stats["overall"]["model_claims"] == 0
    assert stats["overall"]["model_supported_rate"] is None
    assert stats["overall"]["evidence_shown"] == 2 * len(data["claims"])
    assert list(stats["by_model"]) == ["none (passages)"]
    shown = reader("stats").stdout
    assert "model claims: 0" in shown and "n/a supported" in shown


def test_ask_needs_a_question_and_a_known_document():
    completed = reader("ask", "no-such-id", "question?", "--no-model")
    assert completed.returncode == 2 and len(completed.stderr.strip().splitlines()) == 1
    completed = reader("ask", "--library", "anything?", "--no-model")
    assert completed.returncode == 2 and "library is empty" in completed.stderr


def test_an_unknown_model_path_is_a_one_line_error(tmp_path):
    path = tmp_path / "treaties.txt"
    path.write_text(TREATY, encoding="utf-8")
    completed = reader("ask", str(path), "When?", "--model", str(tmp_path / "missing.gguf"))
    assert completed.returncode == 2
    assert "No model file" in completed.stderr and "Traceback" not in completed.stderr


def test_eval_on_a_squad_file_reports_the_figures(tmp_path):
    context = TREATY
    gold = "1648"
    squad = {
        "version": "1.1",
        "data": [
            {
                "title": "Treaties",
                "paragraphs": [
                    {
                        "context": context,
                        "qas": [
                            {
                                "id": "1",
                                "question": "When was the Treaty of Westphalia signed?",
                                "answers": [{"text": gold, "answer_start": context.index(gold)}],
                            },
                            {
                                "id": "2",
                                "question": "Where was the Peace of Utrecht signed?",
                                "answers": [
                                    {
                                        "text": "Utrecht",
                                        "answer_start": context.index("city of Utrecht") + 8,
                                    }
                                ],
                            },
                        ],
                    }
                ],
            }
        ],
    }
    path = tmp_path / "qa.json"
    path.write_text(json.dumps(squad), encoding="utf-8")
    completed = reader("eval", str(path), "--mode", "passages", "--json")
    assert completed.returncode == 0, completed.stderr
    figures = json.loads(completed.stdout)
    assert figures["questions"] == 2
    assert figures["verification_rate"] == 1.0
    assert figures["evidence_hit"] == 1.0
    assert figures["yield"] == 1.0 and figures["grounded_share"] == 1.0
    # eval uses its own library: the user's history is untouched
    assert json.loads(reader("history", "--json").stdout) == []


def test_eval_rejects_a_file_that_is_not_squad(tmp_path):
    path = tmp_path / "qa.json"
    path.write_text('{"not": "squad"}', encoding="utf-8")
    completed = reader("eval", str(path), "--mode", "passages")
    assert completed.returncode == 2 and "SQuAD" in completed.stderr


def rows(rates: list[float], grounded: list[float] | None = None) -> list[dict]:
    return [
        {
            "id": i,
            "created_at": f"2026-11-{1 + i // 10:02d}T00:00:00",
            "model": "m",
            "mode": "constrained",
            "doc_ids": ["d"],
            "claims": 10,
            "exact": round(r * 10),
            "fuzzy": 0,
            "miss": 10 - round(r * 10),
            "grounded": round(g * 10),
            "answered": 1,
            "verification_rate": r,
            "seconds": 1.0,
            # Every claim is the model's: no evidence sentences among them.
            "model_claims": 10,
            "model_verified": round(r * 10),
            "model_supported": round(g * 10),
            "reanchored": 0,
            "evidence_shown": 0,
        }
        for i, (r, g) in enumerate(zip(rates, grounded or rates, strict=True))
    ]


def test_stats_warn_when_recent_answers_verify_far_less_than_usual():
    steady = rows([0.9] * 30)
    assert recent_drop_alert(steady) is None
    dropped = rows([0.9] * 20 + [0.4] * 10)
    alert = recent_drop_alert(dropped)
    assert alert and "40%" in alert and "90%" in alert
    figures = verification_stats(dropped)
    assert figures["alert"] == alert
    assert figures["overall"]["claims"] == 300
    assert len(figures["per_answer"]) == 30


def test_stats_report_and_warn_on_the_supported_rate_of_model_claims_too():
    figures = verification_stats(rows([0.9] * 30, [0.8] * 30))
    assert figures["overall"]["model_supported_rate"] == 0.8
    assert figures["per_answer"][0]["model_supported_rate"] == 0.8
    assert figures["alert"] is None
    alert = recent_drop_alert(rows([0.9] * 30, [0.8] * 20 + [0.3] * 10))
    assert alert and "30% of the model's claims were supported" in alert
    assert "usual 80%" in alert


def test_stats_keep_evidence_shown_apart_from_model_claims():
    evidence_only = [
        dict(row, model_claims=0, model_verified=0, model_supported=0, evidence_shown=10)
        for row in rows([1.0] * 3)
    ]
    figures = verification_stats(evidence_only)
    # Evidence verifies by construction: it gives no rate that could only read 100%.
    assert figures["overall"]["model_supported_rate"] is None
    assert figures["overall"]["model_verified_rate"] is None
    assert figures["overall"]["evidence_shown"] == 30


def test_eval_on_a_long_document_question_file(tmp_path):
    documents = tmp_path / "documents"
    documents.mkdir()
    (documents / "treaties.txt").write_text(TREATY, encoding="utf-8")
    questions = {
        "corpus": "documents",
        "questions": [
            {
                "id": "t1",
                "document": "treaties.txt",
                "question": "In which year was the Westphalia treaty signed?",
                "answerable": True,
                "evidence": ["The Treaty of Westphalia was signed in 1648."],
                "answers": ["1648"],
            },
            {
                "id": "t2",
                "document": "treaties.txt",
                "question": "Which map did the Congress of Vienna redraw?",
                "answerable": True,
                "evidence": ["It redrew the map of Europe"],
                "answers": ["the map of Europe"],
            },
            {
                "id": "u1",
                "document": "treaties.txt",
                "question": "What is the boiling point of mercury?",
                "answerable": False,
                "kind": "off-topic",
                "evidence": [],
                "answers": [],
            },
        ],
    }
    path = tmp_path / "questions.json"
    path.write_text(json.dumps(questions), encoding="utf-8")
    details = tmp_path / "details.jsonl"
    completed = reader("eval", str(path), "--mode", "passages", "--json", "--details", str(details))
    assert completed.returncode == 0, completed.stderr
    figures = json.loads(completed.stdout)
    assert (figures["answerable"], figures["unanswerable"]) == (2, 1)
    assert figures["yield"] == 1.0 and figures["evidence_hit"] == 1.0
    assert figures["answer_stated"] == 1.0 and figures["model_stated"] == 0.0
    assert figures["abstained"] == 1.0 and figures["abstained_by_kind"] == {"off-topic": "1/1"}
    assert figures["false_not_found"] == 0.0
    rows_written = [json.loads(line) for line in details.read_text().splitlines()]
    assert [r["id"] for r in rows_written] == ["t1", "t2", "u1"]
    assert rows_written[2]["not_found"]
    # Where the gold evidence ranked: its chunk, and its sentence among the candidates.
    for row in rows_written[:2]:
        assert row["gold_chunk_rank"] is not None and row["gold_evidence_rank"] is not None
        assert row["gold_evidence_rank"] >= 0
    assert "gold_evidence_rank" not in rows_written[2]
    # What a model could choose at best: the gold sentence among those it is shown.
    offered = [r["gold_evidence_rank"] < EVIDENCE_FOR_MODEL for r in rows_written[:2]]
    assert figures["gold_offered"] == sum(offered) / 2 == 1.0
    # Evidence alone: no model was asked, so no tokens and no first token.
    assert {(r["prompt_tokens"], r["completion_tokens"]) for r in rows_written} == {(0, 0)}
    assert {r["first_token_seconds"] for r in rows_written} == {None}

    questions["questions"][0]["evidence"] = ["The Treaty of Westphalia was signed in 1649."]
    path.write_text(json.dumps(questions), encoding="utf-8")
    completed = reader("eval", str(path), "--mode", "passages")
    assert completed.returncode == 2 and "evidence is not in the document" in completed.stderr


def test_eval_without_its_corpus_says_where_it_looked(tmp_path):
    questions = {
        "corpus": "../../../shared/corpus",
        "questions": [{"id": "q", "document": "a.pdf", "question": "What?", "answers": []}],
    }
    folder = tmp_path / "clone" / "bench" / "qa"
    folder.mkdir(parents=True)
    (folder / "long.json").write_text(json.dumps(questions), encoding="utf-8")
    completed = reader("eval", str(folder / "long.json"), "--mode", "passages")
    assert completed.returncode == 2
    assert completed.stderr.count("\n") == 1
    assert f"are not at {tmp_path / 'shared' / 'corpus'}" in completed.stderr
    assert "'../../../shared/corpus', relative to itself" in completed.stderr


def test_stats_warn_when_no_model_claim_was_supported_even_before_there_is_a_usual():
    few = rows([0.9] * 8, [0.0] * 8)
    alert = recent_drop_alert(few)
    assert alert and "none of the model's 80 claims was supported" in alert
    assert "last 8 answers" in alert
    # One supported claim among them is not "none".
    assert recent_drop_alert(rows([0.9] * 8, [0.0] * 7 + [0.1])) is None
