"""The loaded model as a judge of support: does this quote state this claim?

The support check's rules (``reader.verify.grounding``) read words; they cannot
read relations ("the agency fined the firm" against "firms were threatened
with fines"), modality ("we could choose to stop" against "it stops") or whose
belief a sentence reports. The model that wrote the claim can, a little: asked
whether the quote states the claim, the probability it gives "yes" over "no"
separates supported claims from unsupported ones far better than chance
(measured on the labelled set in ``bench/support``). It is one forward pass of
a short prompt, no generation.

The judge only ever takes a link away or gives one back under the rules'
hard limits: a claim whose numbers or negations are not its quote's is never
linked, whatever the judge says.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from reader.answer.backends import Messages
from reader.records import Grounding
from reader.verify.grounding import words

# Below this, a claim the rules pass is not linked in its own words; above
# RESCUE, a claim the rules refused for a word or two the quote says in other
# words is. Chosen on the labelled set (bench/support/README.md has the figures).
CONFIRM = 0.6
RESCUE = 0.9
# At most this many of a claim's words may be the quote's in other words.
MAX_PARAPHRASED_WORDS = 2

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
        """The rules' verdict on a claim, confirmed or overturned where the judge may."""
        if not rules.grounded and not _paraphrased_words_only(rules):
            return rules  # numbers, negations, the question's words: the rules decide
        if rules.grounded and is_verbatim(claim, quote):
            return rules  # the quote's own words, in its order: nothing to judge
        probability = self.probability(question, claim, quote)
        if rules.grounded and probability < CONFIRM:
            return Grounding(
                False,
                f"the quote does not state it (the model judged support {probability:.0%} likely)",
                judged=probability,
            )
        if not rules.grounded and probability >= RESCUE:
            return Grounding(
                True,
                f"the quote says it in other words ({', '.join(rules.missing)}; the model "
                f"judged support {probability:.0%} likely)",
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


def _paraphrased_words_only(rules: Grounding) -> bool:
    """Refused only for a word or two the quote lacks: no number, negation or
    question-word problem, which the judge may not overturn."""
    return (
        rules.reason.startswith("words not in the quote")
        and ";" not in rules.reason
        and 0 < len(rules.missing) <= MAX_PARAPHRASED_WORDS
    )


def judge_for(backend: object) -> SupportJudge | None:
    """The backend's judge, if it can give a probability (a model run in-process)."""
    method = getattr(backend, "yes_probability", None)
    return SupportJudge(method) if callable(method) else None
