import itertools

from hypothesis import given, settings
from hypothesis import strategies as st

from reader.answer.parsing import (
    ClaimStream,
    _clean,
    _objects_after_claims,
    claim_from,
    parse_output,
)
from reader.records import Claim

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
