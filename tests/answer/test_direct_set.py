"""Direct answers real models chose from their quotes, labelled blind (bench/support).

``direct.jsonl`` holds every run of words the 1.5B model chose in constrained
quoting on questions nothing was tuned on, each labelled by readers who saw only
the question, the sentence and the words (``DIRECT.md``). The checks of
``reader.answer.spans`` are run on each line again: a change that lets more
unsupported runs stand as direct answers, or refuses more supported ones, fails
here. The floors are the figures measured when the set was labelled, less a
margin for one relabelled line.
"""

from __future__ import annotations

import json
from pathlib import Path

from bench.support.direct import SET, measure

MODEL = "qwen2.5-coder-1.5b"
LEAST_LINES = 150
# Measured on 2026-12-07, 157 lines (90 supported): 0.613 precision (76 of 124
# shown), 0.844 recall. On its 129 answerable questions 0.743 / 0.843; on the 28
# SQuAD 2 questions with no answer, which the model answered anyway, 0.043.
PRECISION_FLOOR = 0.60
RECALL_FLOOR = 0.83


def labelled() -> list[dict[str, object]]:
    return [json.loads(line) for line in Path(SET).read_text(encoding="utf-8").splitlines()]


def test_the_set_is_labelled_blind_and_large_enough():
    lines = labelled()
    assert len(lines) >= LEAST_LINES
    assert {line["label"] for line in lines} == {"supported", "unsupported"}
    assert len({line["id"] for line in lines}) == len(lines)


def test_the_checks_keep_their_precision_and_recall_on_the_blind_set():
    figures = measure(labelled())[MODEL]
    assert figures["precision"] >= PRECISION_FLOOR, figures
    assert figures["recall"] >= RECALL_FLOOR, figures


# ``direct6.jsonl``: 131 direct answers of the 1.5B model on a sixth draw of 150
# questions (``heldout6-questions.json``), each with the model's confidence,
# labelled blind by two readers (they agreed on 127; a third settled four).
# Measured on 2026-12-07 with the floor of ``reader.answer.confidence`` at an even
# chance: precision 0.688, recall 0.638; without the floor 0.600 and 0.913.
SIXTH = Path(SET).with_name("direct6.jsonl")
SIXTH_PRECISION_FLOOR = 0.67
SIXTH_RECALL_FLOOR = 0.62


def test_answers_the_model_was_unsure_of_are_held_back_and_precision_rises(monkeypatch):
    from reader.answer import confidence

    lines = [json.loads(line) for line in SIXTH.read_text(encoding="utf-8").splitlines()]
    assert len(lines) >= 130 and all(line["confidence"] for line in lines)
    assert {line["label"] for line in lines} == {"supported", "unsupported"}
    held = measure(lines)[MODEL]
    assert held["precision"] >= SIXTH_PRECISION_FLOOR, held
    assert held["recall"] >= SIXTH_RECALL_FLOOR, held
    monkeypatch.setattr(confidence, "UNSURE_LOG_PROBABILITY", None)
    unheld = measure(lines)[MODEL]
    assert held["precision"] > unheld["precision"] and held["shown"] < unheld["shown"]
