"""How sure the model was of the words it chose, and no direct answer when it was not.

In constrained quoting the grammar lets a model write only a run of its quote's
words, so whatever it chooses is the source's text; what the grammar cannot say
is whether the model meant it. A model that would rather have written something
else (another name, words of its own, "not found") still has to take one of the
runs the grammar allows, and it does so with little probability left on what it
takes. The log-probability of each token it sampled, under its own distribution
before the grammar, says how much (``Generation.token_log_probabilities``).

A run with a token the model gave less than an even chance (``UNSURE_LOG_PROBABILITY``)
is no direct answer: the sentence stays linked, as for a run that fails a check
of ``reader.answer.spans``, and the answer says why. Of the four measures, the
least sure token tells supported from unsupported answers best (area under the
ROC curve 0.70 on 108 direct answers of the 1.5B model labelled blind, 0.69 on
105 more drawn afterwards); bench/support/README.md has the figures.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Sequence
from dataclasses import replace

from reader.answer.hygiene import strip_meta
from reader.models.backends import Generation
from reader.records import CheckedClaim, ChoiceConfidence, Grounding

# The log-probability under which a token of a run makes it a guess: less than
# an even chance (the best F0.5 floor on the 213 labelled answers is -0.72).
UNSURE_LOG_PROBABILITY: float | None = math.log(0.5)

_STRING = r'"((?:[^"\\]|\\.)*)"'
_CLAIM = re.compile(r'"source_id": ' + _STRING + r', "quote": ' + _STRING + r', "text": ' + _STRING)
_WORD_END = re.compile(r"\s")


def _decoded(content: str) -> str:
    """A JSON string's content as text; as written if the model broke its escapes
    (then it matches no claim, and that claim has no confidence)."""
    try:
        return str(json.loads('"' + content + '"'))
    except json.JSONDecodeError:
        return content


def _key(quote: str, text: str) -> tuple[str, str]:
    return " ".join(quote.split()), " ".join(text.split())


def _log_probabilities(
    tokens: Sequence[tuple[int, int, float]], start: int, end: int
) -> list[float]:
    """Those of the tokens that overlap characters ``start`` to ``end``."""
    return [value for first, last, value in tokens if first < end and last > start]


def choice_confidences(generation: Generation) -> dict[tuple[str, str], ChoiceConfidence]:
    """Each claim of a constrained output, by its quote and text (both on one
    line), with how sure the model was of its choices; empty where the backend
    gave no log-probabilities."""
    tokens = generation.token_log_probabilities
    if not tokens:
        return {}
    found: dict[tuple[str, str], ChoiceConfidence] = {}
    for match in _CLAIM.finditer(generation.text):
        source = _log_probabilities(tokens, *match.span(1))
        start, end = match.span(3)
        words = _log_probabilities(tokens, start, end)
        space = _WORD_END.search(generation.text, start, end)
        first = _log_probabilities(tokens, start, space.start() if space else end)
        # As the claim is checked (``strip_meta``); a repeated claim is the first
        # copy, as the parser keeps it.
        key = _key(_decoded(match.group(2)), strip_meta(_decoded(match.group(3))))
        found.setdefault(
            key,
            ChoiceConfidence(
                source=sum(source) if source else None,
                first=sum(first) if first else None,
                mean=sum(words) / len(words) if words else None,
                least=min(words) if words else None,
            ),
        )
    return found


def with_confidence(
    checked: CheckedClaim, confidences: dict[tuple[str, str], ChoiceConfidence]
) -> CheckedClaim:
    """``checked`` with how sure the model was of it; a direct answer with a word
    the model guessed is none (the sentence stays linked, with the reason)."""
    confidence = confidences.get(_key(checked.claim.quote, checked.claim.text))
    if confidence is None:
        return checked
    checked = replace(checked, confidence=confidence)
    if (
        UNSURE_LOG_PROBABILITY is not None
        and checked.direct_answer is not None
        and confidence.least is not None
        and confidence.least < UNSURE_LOG_PROBABILITY
    ):
        # Whole percents rounded down: "50%" would read as an even chance.
        percent = math.floor(100 * math.exp(confidence.least))
        reason = (
            f"the model was unsure of its words \u201c{checked.claim.text}\u201d "
            f"(it gave one of them a {percent}% chance)"
        )
        checked = replace(checked, grounding=Grounding(False, reason, guessed=True))
    return checked
