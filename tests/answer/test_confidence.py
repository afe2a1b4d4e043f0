"""How sure the model was of the words it chose (``reader.answer.confidence``)."""

from __future__ import annotations

import json
import math
import re

import pytest

from reader.answer import Answerer, ScriptedBackend, confidence
from reader.answer.confidence import choice_confidences, with_confidence
from reader.answer.render import render_text
from reader.answer.spans import NOT_ANSWERED_TEXT
from reader.models.backends import Generation
from reader.records import AnswerSpan, CheckedClaim, Claim, Grounding, Verification
from tests.answer.test_pipeline import QUESTION, SIGNED, constrained_reply, evidence_alias

QUOTE = "They demanded $12,000 to dismiss the case."


def _output(run: str) -> tuple[str, int, int, int]:
    """A constrained output with one claim; where its alias, run and its first word lie."""
    head = '{"claims": [{"source_id": "c2", "quote": '
    text = head + json.dumps(QUOTE) + ', "text": ' + json.dumps(run, ensure_ascii=False) + "}]}"
    alias = text.index('"c2"') + 1
    start = text.index(json.dumps(run, ensure_ascii=False)) + 1
    return text, alias, start, start + len(run)


def _tokens(text: str, alias: int, start: int, end: int) -> tuple[tuple[int, int, float], ...]:
    """Sampled tokens: the alias in two, the run word by word with the closing
    quotation mark and brace in its last token, as a tokenizer would cut them."""
    cut = [alias, alias + 1, alias + 2]
    tokens = [(cut[0], cut[1], -0.1), (cut[1], cut[2], -0.2)]
    values = iter([-0.5, -1.5, -0.25, -0.75])
    position = start
    for word in text[start:end].split(" "):
        stop = position + len(word)
        if stop == end:
            stop += 2  # '"}' comes in the same token as the last word
        tokens.append((position, stop, next(values)))
        position = stop + 1 if stop < end else stop
    return tuple(tokens)


def test_a_claims_confidence_is_read_from_the_tokens_that_made_its_alias_and_words():
    text, alias, start, end = _output("$12,000 to dismiss")
    generation = Generation(text, token_log_probabilities=_tokens(text, alias, start, end))
    found = choice_confidences(generation)
    sure = found[(QUOTE, "$12,000 to dismiss")]
    assert sure.source == pytest.approx(-0.3)
    assert sure.first == pytest.approx(-0.5)
    assert sure.mean == pytest.approx((-0.5 - 1.5 - 0.25) / 3)
    assert sure.least == pytest.approx(-1.5)


def test_a_backend_that_gives_no_log_probabilities_gives_no_confidence():
    text, *_ = _output("$12,000")
    assert choice_confidences(Generation(text)) == {}


def test_a_repeated_claim_is_its_first_copy_and_its_key_is_the_checked_text():
    first, alias, start, end = _output("\u200b1648")
    repeated = first[:-2] + ", " + first[first.index("{", 1) : -2] + "]}"
    second = repeated.rindex('"\u200b1648"') + 1
    tokens = ((alias, alias + 2, -0.1), (start, end + 2, -2.0), (second, second + 6, -0.01))
    found = choice_confidences(Generation(repeated, token_log_probabilities=tokens))
    # The zero-width space is gone from the claim as it is checked (strip_meta).
    assert found == {(QUOTE, "1648"): found[(QUOTE, "1648")]}
    assert found[(QUOTE, "1648")].least == pytest.approx(-2.0)


class _SplitBytes:
    """A tokenizer that gives "é" as two tokens of one byte each."""

    def detokenize(self, tokens: list[int]) -> bytes:
        pieces = {1: b"\xc3", 2: b"\xa9", 3: b"t", 4: b"\xc3\xa9!"}
        return b"".join(pieces[token] for token in tokens)


def test_a_token_holding_part_of_a_character_is_placed_on_that_character():
    from reader.models.in_process import _placed_tokens

    chosen = [(1, -0.1), (2, -3.0), (3, -0.2), (4, -0.4)]
    placed = list(_placed_tokens(_SplitBytes(), chosen, 10, 10 + len("été!")))
    assert placed == [(10, 11, -0.1), (10, 11, -3.0), (11, 12, -0.2), (12, 14, -0.4)]
    # What the stream never gave out is not placed.
    assert list(_placed_tokens(_SplitBytes(), chosen, 10, 12)) == placed[:3]


def _checked(run: str) -> CheckedClaim:
    begin = QUOTE.index(run)
    return CheckedClaim(
        Claim(run, "chunk-1", QUOTE),
        Verification("exact", "found", start=100, end=100 + len(QUOTE), chunk_id="chunk-1"),
        doc_id="doc",
        grounding=Grounding(True, "a run of the quote's words"),
        answer_span=AnswerSpan(run, (begin, begin + len(run)), 100 + begin, 100 + begin + len(run)),
    )


@pytest.mark.parametrize(("least", "shown"), [(-0.2, True), (-2.5, False)])
def test_a_direct_answer_the_model_was_unsure_of_is_not_shown_but_its_sentence_stays_linked(
    monkeypatch, least, shown
):
    monkeypatch.setattr(confidence, "UNSURE_LOG_PROBABILITY", -1.0)
    text, alias, start, end = _output("$12,000")
    tokens = ((alias, alias + 2, -0.1), (start, end + 2, least))
    checked = with_confidence(
        _checked("$12,000"), choice_confidences(Generation(text, token_log_probabilities=tokens))
    )
    assert checked.confidence is not None and checked.confidence.least == pytest.approx(least)
    assert checked.verified and checked.verification.start == 100
    if shown:
        assert checked.direct_answer == "$12,000" and checked.why_no_direct_answer is None
    else:
        assert checked.direct_answer is None
        assert checked.shown_text == "\u201c" + QUOTE + "\u201d"
        reason = checked.why_no_direct_answer
        assert reason is not None and f"{math.exp(least):.0%}" in reason and "$12,000" in reason
        assert checked.to_json()["confidence"]["least"] == pytest.approx(least, abs=1e-3)


class _UnsureBackend(ScriptedBackend):
    """Scripted output, with each word of it sampled at one log-probability."""

    def __init__(self, log_probability: float) -> None:
        super().__init__()
        self.log_probability = log_probability

    def generate(self, *args, **kwargs) -> Generation:
        generation = super().generate(*args, **kwargs)
        generation.token_log_probabilities = tuple(
            (match.start(), match.end(), self.log_probability)
            for match in re.finditer(r"\S+", generation.text)
        )
        return generation


@pytest.mark.parametrize("log_probability", [-0.05, -1.2])
def test_an_answer_leads_with_the_chosen_words_only_when_the_model_was_sure_of_them(
    treaty, log_probability
):
    library, doc_id = treaty
    alias = evidence_alias(library, doc_id, QUESTION, SIGNED)
    backend = _UnsureBackend(log_probability).enqueue(constrained_reply(alias, SIGNED, "1648"))
    answer = Answerer(library, backend, mode="constrained").ask(QUESTION, [doc_id])
    [claim] = [c for c in answer.claims if not c.from_evidence]
    assert claim.verified and claim.confidence is not None
    assert claim.confidence.least == pytest.approx(log_probability)
    text = render_text(answer)
    if log_probability > confidence.UNSURE_LOG_PROBABILITY:
        assert claim.direct_answer == "1648" and text.startswith("Answer: 1648")
    else:
        # Still linked, as the source's sentence; not the answer, and not a claim
        # its quote does not say (it does say it: the model was guessing).
        assert claim.direct_answer is None and claim.shown_text == f"\u201c{SIGNED}\u201d"
        assert answer.unsupported == []
        assert "no direct answer: the model was unsure of its words \u201c1648\u201d" in text
        assert answer.to_json()["claims"][0]["confidence"]["least"] == pytest.approx(-1.2)


def test_a_guess_beside_the_models_not_found_keeps_its_sentence_linked(treaty):
    library, doc_id = treaty
    alias = evidence_alias(library, doc_id, QUESTION, SIGNED)
    claims = [
        {"source_id": alias, "quote": SIGNED, "text": "1648"},
        {"source_id": alias, "quote": SIGNED, "text": NOT_ANSWERED_TEXT},
    ]
    reply = json.dumps({"claims": claims})
    answer = Answerer(library, _UnsureBackend(-1.2).enqueue(reply), mode="constrained").ask(
        QUESTION, [doc_id]
    )
    assert not answer.declined_by_model and answer.not_found is None
    [claim] = [c for c in answer.claims if not c.from_evidence]
    assert claim.guessed and claim.verified and claim.direct_answer is None


def test_a_guess_and_its_confidence_are_kept_in_the_history(treaty):
    library, doc_id = treaty
    alias = evidence_alias(library, doc_id, QUESTION, SIGNED)
    backend = _UnsureBackend(-1.2).enqueue(constrained_reply(alias, SIGNED, "1648"))
    answer = Answerer(library, backend, mode="constrained").ask(QUESTION, [doc_id])
    [stored] = library.store.answers(doc_id)
    [claim] = [c for c in stored.claims if not c.from_evidence]
    assert claim.grounding is not None and claim.grounding.guessed
    assert claim.direct_answer is None and claim.why_no_direct_answer is not None
    assert claim.confidence == next(c for c in answer.claims if not c.from_evidence).confidence
