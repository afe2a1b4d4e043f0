"""The loaded model as a judge of support: does this quote state this claim?

The support check's rules (``reader.verify.grounding``) read words; they cannot
read relations ("the agency fined the firm" against "firms were threatened
with fines"), modality ("we could choose to stop" against "it stops") or a
subject swapped for another the quote names. The model that wrote the claim
can, a little: asked
whether the quote states the claim, the probability it gives "yes" over "no"
separates supported claims from unsupported ones far better than chance
(measured on the labelled set in ``bench/support``). It is one forward pass of
a short prompt, no generation.

The judge only ever takes a link away: it is asked about claims the rules
pass, never about one they refuse (a number or negation that is not the
quote's, a claim made of the question's words), and not about a claim that is
a run of the quote's own words. Letting it give links back (a claim refused
for a word or two the quote says otherwise, above 0.9) gained one supported
claim of 85 on the labelled set for a judgement on every such claim: not
worth its time.

Answers ask it only of models not listed in ``WEAK_JUDGES``. Every model
measured is listed: the 1.5B Qwen's judgement, on claims of questions its
threshold was not chosen on (the held-out sets), bought almost no precision
for a loss of recall. ``reader eval SET --model`` measures it for any model.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from reader.errors import ModelError
from reader.models.backends import Messages
from reader.models.files import judges_support
from reader.records import Grounding
from reader.text.words import words

# Below this, a claim the rules pass is not linked in its own words. Chosen on
# the labelled set (bench/support/README.md has the figures at each threshold).
CONFIRM = 0.6

SYSTEM = (
    "You check claims against quotes. A claim is supported only if the quote itself states "
    "everything the claim says: every fact, number, name, negation and relation. Paraphrase "
    "is fine; added facts, guesses, or a different subject are not."
)

YesProbability = Callable[[Messages], float]


def judge_messages(question: str, claim: str, quote: str) -> Messages:
    user = (
        f'Question: {question}\nQuote: "{quote}"\nClaim: "{claim}"\n'
        "Does the quote support the claim? Answer yes or no."
    )
    return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": user}]


class SupportJudge:
    """Asks a model how likely it is that a quote states a claim (0 to 1)."""

    def __init__(self, yes_probability: YesProbability) -> None:
        self._yes_probability = yes_probability
        self.calls = 0

    def probability(self, question: str, claim: str, quote: str) -> float:
        self.calls += 1
        return self._yes_probability(judge_messages(question, claim, quote))

    def verdict(self, rules: Grounding, question: str, claim: str, quote: str) -> Grounding:
        """The rules' verdict on a claim, confirmed or overturned: a claim the rules
        pass (and that is not the quote's own words) is refused below CONFIRM."""
        if not rules.grounded or is_verbatim(claim, quote):
            return rules
        try:
            probability = self.probability(question, claim, quote)
        except ModelError:  # too long to judge: the rules' verdict stands
            return rules
        if probability < CONFIRM:
            return Grounding(
                False,
                f"the quote does not state it (the model judged support {probability:.0%} likely)",
                judged=probability,
            )
        return replace(rules, judged=probability)


def is_verbatim(claim: str, quote: str) -> bool:
    """Whether the claim is a run of the quote's own words (case and punctuation aside)."""
    claim_words, quote_words = words(claim), words(quote)
    size = len(claim_words)
    return size >= 3 and any(
        quote_words[start : start + size] == claim_words
        for start in range(len(quote_words) - size + 1)
    )


def judge_for(backend: object) -> SupportJudge | None:
    """The backend's judge, if it can give a probability (a model run in-process) and
    its judgement was not measured to make the check worse (``WEAK_JUDGES``)."""
    method = getattr(backend, "yes_probability", None)
    if not callable(method) or not judges_support(str(getattr(backend, "name", ""))):
        return None
    return SupportJudge(method)
