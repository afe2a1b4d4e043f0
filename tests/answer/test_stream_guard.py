"""The repetition guard: a looping model is stopped early, ordinary output never."""

import json
import time
from pathlib import Path

import pytest

from reader.answer.parsing import parse_output
from reader.answer.stream_guard import RepetitionGuard

RECORDINGS = Path(__file__).parent / "recordings" / "looping-outputs.jsonl"


def replay(text: str, max_claims: int = 2, piece: int = 4) -> tuple[int, str | None]:
    """Feed ``text`` to a guard piece by piece; where it stopped, and why."""
    guard = RepetitionGuard(max_claims)
    for start in range(0, len(text), piece):
        _, reason = guard.feed(text[start : start + piece])
        if reason:
            return start + piece, reason
    return len(text), None


def recordings() -> list[dict]:
    return [json.loads(line) for line in RECORDINGS.read_text(encoding="utf-8").splitlines()]


@pytest.mark.parametrize("record", recordings(), ids=lambda r: r["question"][:40])
def test_recorded_loops_are_stopped_early_and_what_completed_is_kept(record):
    """Outputs the embedded model gave before the guard existed: each ran to the token cap."""
    text = record["text"]
    stop, reason = replay(text, max_claims=4)
    assert reason is not None, "the guard let a recorded loop run to the end"
    assert stop < len(text)
    kept = parse_output(text[:stop]).claims
    everything = parse_output(text).claims
    # What completed before the stop is kept as it was, in order.
    assert kept == everything[: len(kept)]


def test_a_sentence_that_never_ends_is_stopped():
    text = '{"claims": [{"source_id": "c1", "quote": "Q.", "text": "' + " ".join(
        f"word{n}" for n in range(80)
    )
    stop, reason = replay(text)
    assert reason == "the model's sentence ran on without end"
    assert stop < 400


def test_a_repeated_phrase_is_stopped():
    text = (
        '{"claims": [{"source_id": "c1", "quote": "Q.", "text": "The National Institute of '
        + "Standard and Tech and the National Institute of " * 16
    )
    stop, reason = replay(text)
    assert reason == "the model repeated a phrase"
    assert stop < len(text) / 2


def test_the_guard_stops_after_the_claims_a_question_needs():
    claim = '{"source_id": "c%d", "quote": "Q%d.", "text": "T%d."}'
    text = '{"claims": [' + ", ".join(claim % (n, n, n) for n in range(1, 6)) + "]}"
    stop, reason = replay(text, max_claims=2)
    assert reason == "the model gave the claims the question needs"
    assert [c.text for c in parse_output(text[:stop]).claims] == ["T1.", "T2."]


def test_the_guard_lets_ordinary_output_through():
    text = json.dumps(
        {
            "claims": [
                {"source_id": "c1", "quote": "The fee is due monthly.", "text": "Monthly."},
            ],
            "unsupported": ["Nothing else."],
        }
    )
    assert replay(text) == (len(text), None)


def test_the_guard_reads_a_long_output_in_linear_time():
    """Every piece closes a brace and ends a word: the work that used to grow with the output."""
    guard = RepetitionGuard(max_claims=2)
    pieces = ["<think>", *(f" w{n:07d} x{n:05d}}}" for n in range(25_000))]  # 400 KB
    started = time.thread_time()
    for piece in pieces:
        assert guard.feed(piece) == ([], None)
    spent = time.thread_time() - started
    assert spent < 1.0, f"the guard took {spent:.2f} s of CPU for 400 KB"
