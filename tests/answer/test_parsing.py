import itertools
import json
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reader.answer.parsing import (
    ClaimStream,
    RepetitionGuard,
    _clean,
    _objects_after_claims,
    claim_from,
    parse_output,
)
from reader.records import Claim

RECORDINGS = Path(__file__).parent / "recordings" / "looping-outputs.jsonl"

GOOD = (
    '{"answer": "A.", "claims": [{"text": "t", "source_id": "c1", "quote": "q"}], '
    '"unsupported": ["u"]}'
)


def test_plain_json():
    parsed = parse_output(GOOD)
    assert parsed.answer == "A."
    assert parsed.claims == [Claim("t", "c1", "q")]
    assert parsed.unsupported == ["u"]
    assert parsed.problems == []


def test_fences_think_blocks_prose_and_trailing_commas():
    raw = (
        "<think>let me see { not json }</think>Sure! Here it is:\n```json\n"
        '{"answer": "A.", "claims": [{"text": "t", "source_id": "c1", "quote": "q",},],}\n```'
    )
    parsed = parse_output(raw)
    assert parsed.claims == [Claim("t", "c1", "q")]


def test_truncated_output_keeps_complete_claims():
    raw = GOOD[: GOOD.index("]")] + ', {"text": "t2", "source_id": "c2", "quo'
    parsed = parse_output(raw)
    assert parsed.claims == [Claim("t", "c1", "q")]
    assert "not valid JSON" in parsed.problems[0]


def test_wrong_types_are_dropped_with_a_reason():
    raw = (
        '{"answer": 5, "claims": [{"text": 1, "source_id": "c1", "quote": "q"}, "x", '
        '{"text": "ok", "source_id": 2, "quote": "q2"}], "unsupported": "alone"}'
    )
    parsed = parse_output(raw)
    assert parsed.answer == ""
    assert parsed.claims == [Claim("ok", "c2", "q2")]
    assert parsed.unsupported == ["alone"]
    assert any("lacked" in problem for problem in parsed.problems)


def test_garbage_gives_no_claims_and_a_problem():
    for raw in ["", "no json here", "[1, 2]", "{{{{", '{"claims": "all of them"}', "\x00\xff"]:
        parsed = parse_output(raw)
        assert parsed.claims == []
        assert parsed.problems


def test_huge_output_is_cut():
    raw = '{"answer": "' + "x" * 1_000_000 + '"}'
    parsed = parse_output(raw)
    assert parsed.claims == []


def test_claim_stream_yields_each_claim_once_when_complete():
    stream = ClaimStream()
    raw = (
        '{"claims": [{"source_id": "c1", "quote": "a } b", "text": "x"}, '
        '{"source_id": "c2", "quote": "q2", "text": "y"}], "unsupported": []}'
    )
    seen = []
    for index in range(0, len(raw), 3):
        seen.extend(stream.feed(raw[index : index + 3]))
    assert seen == [Claim("x", "c1", "a } b"), Claim("y", "c2", "q2")]


def test_a_looping_model_s_repeats_are_dropped_and_the_note_counts_what_is_kept():
    claim = '{"text": "T", "source_id": "c1", "quote": "Q"}'
    other = '{"text": "u", "source_id": "c2", "quote": "r"}'
    cut_off = '{"claims": [' + ", ".join([claim, claim.lower(), other, claim]) + ', {"te'
    parsed = parse_output(cut_off)
    assert parsed.claims == [Claim("T", "c1", "Q"), Claim("u", "c2", "r")]
    assert parsed.problems == [
        "the model's output was not valid JSON; 2 complete claims were recovered; "
        "2 repeated claims dropped"
    ]
    whole = parse_output('{"answer": "A.", "claims": [' + f"{claim}, {claim}" + "]}")
    assert whole.claims == [Claim("T", "c1", "Q")]
    assert whole.problems == ["1 repeated claim dropped"]


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


FRAGMENTS = [
    "{",
    "}",
    '"',
    "\\",
    '\\"',
    "[",
    "]",
    ", ",
    " ",
    "word",
    "<think>",
    "</think>",
    "<THINK>",
    "<thi",
    '"claims": [',
    '"claims"  :\n [',
    '"claims',
    '"text": "T", ',
    '"source_id": "c1", ',
    '"quote": "Q"',
    '{"text": "a } b", "source_id": "c2", "quote": "q {"}',
    '{"text": "x", "source_id": "c1", "quote": "y",}',
]


@settings(max_examples=300, deadline=None)
@given(
    parts=st.lists(st.sampled_from(FRAGMENTS), max_size=40),
    cuts=st.lists(st.integers(min_value=0, max_value=600), max_size=30),
)
def test_the_claim_stream_finds_what_recovery_of_the_whole_output_finds(parts, cuts):
    text = "".join(parts)
    stream = ClaimStream()
    streamed = []
    bounds = sorted({0, len(text), *(cut for cut in cuts if cut < len(text))})
    for start, end in itertools.pairwise(bounds):
        streamed.extend(stream.feed(text[start:end]))
    recovered = [claim_from(o) for o in _objects_after_claims(_clean(text))]
    assert streamed == [claim for claim in recovered if claim is not None]


def test_the_guard_reads_a_long_output_in_linear_time():
    """Every piece closes a brace and ends a word: the work that used to grow with the output."""
    guard = RepetitionGuard(max_claims=2)
    pieces = ["<think>", *(f" w{n:07d} x{n:05d}}}" for n in range(25_000))]  # 400 KB
    started = time.thread_time()
    for piece in pieces:
        assert guard.feed(piece) == ([], None)
    spent = time.thread_time() - started
    assert spent < 1.0, f"the guard took {spent:.2f} s of CPU for 400 KB"
