"""How a claim asserts its words, for the support check (``reader.verify.grounding``).

What a claim says beyond its words, which the question cannot lend it:

- how strongly it obliges: "the publication mandates encryption" against
  "encryption protects data", or "a client must" against "a client should".
  In a standard, "must" and "should" are different rules; the quote has to
  say the claim's strength (or a stronger one), whatever the question asked.
- what it ties a fact to: "he was nine years old when he escaped from
  slavery" against "he was nine years old when he went to boarding school".
  The claim's clause after "when", "because", "after"... is made of the
  question's words, which the claim may repeat as presupposed; but the quote
  ties its fact to a clause of its own, and the claim swaps it.

- what it answers with: asked "Which status code should a server return ...?",
  "A server should return this status code if ..." points at an answer it
  does not give; every other word may be the quote's or the question's.

Each rule returns the reason the claim is refused, or None.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from reader.text.words import STOPWORDS

# Words that oblige, by strength: the strong ones require, the weak ones advise.
# fmt: off
_REQUIRES = frozenset([
    "must", "shall", "mandate", "mandates", "mandated", "mandatory", "require", "requires",
    "required", "requirement", "requirements", "compulsory", "obligatory", "obliged",
    "obligated",
])
_ADVISES = frozenset([
    "should", "ought", "recommend", "recommends", "recommended", "recommendation",
    "recommendations", "advise", "advises", "advised",
])
# fmt: on
OBLIGATIONS = _REQUIRES | _ADVISES

# Words that tie a clause to the statement they follow.
_CLAUSE_LINKS = frozenset(["when", "because", "after", "before", "while", "since", "until"])
# How many of the linked clause's content words are read; a clause of one word
# is too little to tell ("after it finishes" says "after a job has completed").
_CLAUSE_WORDS = 5
_FEWEST_CLAUSE_WORDS = 2


def unsaid_obligation(token: str, quote_tokens: list[str]) -> bool:
    """Whether ``token`` obliges more strongly than anything the quote says:
    "should" is said by "should" or "must", "must" only by a word that requires."""
    if token in _REQUIRES:
        return not _REQUIRES.intersection(quote_tokens)
    if token in _ADVISES:
        return not OBLIGATIONS.intersection(quote_tokens)
    return False


def swapped_clause(
    claim_tokens: list[str],
    quote_tokens: list[str],
    in_quote: Callable[[str], bool],
    in_question: Callable[[str], bool],
) -> str | None:
    """A clause the claim links with a word the quote also links with ("when"),
    made only of the question's words the quote does not say: the quote's own
    clause is about something else."""
    linking = set(quote_tokens) & _CLAUSE_LINKS
    for position, token in enumerate(claim_tokens):
        if token not in linking:
            continue
        clause = [t for t in claim_tokens[position + 1 :] if t not in STOPWORDS][:_CLAUSE_WORDS]
        presupposed = all(not in_quote(t) and in_question(t) for t in clause)
        if len(clause) >= _FEWEST_CLAUSE_WORDS and presupposed:
            return f"the quote says '{token}' of something else than '{' '.join(clause)}'"
    return None


# "Which status code ...", "What type of network ...": the thing asked for.
_ASKED_THING = re.compile(r"\b(?:which|what)\s+([a-z]+)", re.IGNORECASE)
_POINTERS = frozenset(["this", "that", "these", "those", "such"])


def points_at_answer(claim_tokens: list[str], question: str) -> str | None:
    """A claim that names the thing asked for only as "this" or "that" one
    ("this status code", "this network type")."""
    asked = _ASKED_THING.search(question)
    if asked is None or asked.group(1).lower() in STOPWORDS:
        return None
    thing = asked.group(1).lower()
    for position, token in enumerate(claim_tokens):
        if token in _POINTERS and thing in claim_tokens[position + 1 : position + 3]:
            return f"the claim says '{token} {thing}' where the question asks which"
    return None
