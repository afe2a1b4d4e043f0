"""The model's judgement of support, after the rules: it confirms or refuses a link
the rules allow, and is never asked about a claim they refuse (a number, a negation,
a claim made of the question's words) or one in the quote's own words."""

from dataclasses import dataclass, field

import pytest

from reader.answer import Answerer, ScriptedBackend
from reader.answer.judge import CONFIRM, judge_messages
from reader.errors import ModelError
from tests.answer.conftest import claims_json
from tests.answer.test_pipeline import QUESTION, alias_of, model_claims

SIGNED = "The Treaty of Westphalia was signed in 1648."
ENDED = "It ended the Thirty Years' War in the Holy Roman Empire."


@dataclass
class JudgingBackend(ScriptedBackend):
    """A scripted model that also judges: ``verdicts`` maps a claim to its probability."""

    verdicts: dict[str, float] = field(default_factory=dict)
    judged: list[str] = field(default_factory=list)

    def yes_probability(self, messages):
        user = messages[-1]["content"]
        claim = user.split('Claim: "', 1)[1].split('"\n', 1)[0]
        self.judged.append(claim)
        return self.verdicts.get(claim, 0.5)


def ask(treaty, backend, claim, quote):
    library, doc_id = treaty
    answerer = Answerer(library, backend, mode="free")
    source = alias_of(answerer, QUESTION, doc_id, "Westphalia")
    backend.enqueue(claims_json((claim, source, quote)))
    return model_claims(answerer.ask(QUESTION, [doc_id]))


def test_a_link_the_rules_allow_is_refused_when_the_model_judges_it_unsupported(treaty):
    claim = "The treaty was signed in 1648."
    backend = JudgingBackend(verdicts={claim: CONFIRM - 0.2})
    [item] = ask(treaty, backend, claim, SIGNED)
    assert item.verified and not item.grounded
    assert "judged support" in item.grounding.reason and item.grounding.judged < CONFIRM
    assert item.shown_text == f"\u201c{SIGNED}\u201d"


def test_a_link_the_model_confirms_is_kept(treaty):
    claim = "The treaty was signed in 1648."
    backend = JudgingBackend(verdicts={claim: CONFIRM + 0.2})
    [item] = ask(treaty, backend, claim, SIGNED)
    assert item.grounded and item.shown_text == claim
    assert item.grounding.judged == pytest.approx(CONFIRM + 0.2)
    assert item.to_json()["support_judged"] == pytest.approx(CONFIRM + 0.2)


def test_a_claim_the_model_cannot_judge_keeps_the_rules_verdict(treaty):
    @dataclass
    class OverflowingJudge(JudgingBackend):
        def yes_probability(self, messages):
            raise ModelError("The claim and its quote are too long for the model's context.")

    claim = "The treaty was signed in 1648."
    [item] = ask(treaty, OverflowingJudge(), claim, SIGNED)
    assert item.grounded and item.grounding.judged is None


def test_a_claim_the_rules_refuse_is_never_judged(treaty):
    claim = "The Treaty of Westphalia was concluded in 1648."  # "concluded": not the quote's
    backend = JudgingBackend(verdicts={claim: 0.99})
    [item] = ask(treaty, backend, claim, SIGNED)
    assert not item.grounded and claim not in backend.judged


@pytest.mark.parametrize(
    "claim",
    [
        "The Treaty of Westphalia was signed in 1649.",  # a number
        "The Treaty of Westphalia was not signed in 1648.",  # a negation
        "The Treaty of Westphalia was signed.",  # the question's words alone
    ],
)
def test_the_judge_never_overrules_numbers_negations_or_the_question(treaty, claim):
    backend = JudgingBackend(verdicts={claim: 0.99})
    items = ask(treaty, backend, claim, SIGNED)
    assert not any(item.grounded and item.claim.text == claim for item in items)
    assert claim not in backend.judged


def test_the_judge_checks_a_re_anchored_claim_too(treaty):
    claim = "Westphalia's treaty was signed in 1648."  # not the sentence's own words
    backend = JudgingBackend(verdicts={claim: CONFIRM - 0.3})
    [item] = ask(treaty, backend, claim, ENDED)
    # The rules would move it to the sentence that says it; the judge refused both.
    assert not item.reanchored and not item.grounded


def test_the_judge_is_asked_with_the_question_the_claim_and_the_quote():
    messages = judge_messages("When?", "It was 1648.", "Signed in 1648.")
    assert messages[0]["role"] == "system"
    user = messages[1]["content"]
    assert "When?" in user and '"It was 1648."' in user and '"Signed in 1648."' in user


def test_a_claim_in_the_quotes_own_words_and_order_is_not_judged(treaty):
    backend = JudgingBackend(verdicts={SIGNED: 0.01})
    [item] = ask(treaty, backend, SIGNED, SIGNED)
    assert item.grounded and SIGNED not in backend.judged


def test_models_measured_to_judge_badly_are_not_asked():
    from reader.answer.judge import judge_for

    for name in ("SmolLM2-135M-Instruct.Q4_1", "qwen2.5-coder-0.5b-instruct-q4"):
        assert judge_for(JudgingBackend(name=name)) is None
    assert judge_for(JudgingBackend(name="qwen2.5-coder-1.5b-instruct-q4_k_m")) is None
    assert judge_for(JudgingBackend(name="qwen2.5-7b-instruct-q4_k_m")) is not None
    assert judge_for(ScriptedBackend()) is None  # no probability to give
