"""Negation, for the support check (``reader.verify.grounding``).

A dropped "not" turns a statement around, so negation is matched both ways:
every negation of the claim's must be one of the quote's, bearing on a word
they share ("did not approve the budget" is not "approved the budget"), and a
negation of the quote in the clauses the claim draws on must be kept by the
claim. A quote that says what not to believe ("you must not suppose that this
means a paper kite") denies what follows its verb. A negation that only
bounds a number ("no more than 10") is a bound, read in ``reader.verify.numbers``.
"""

from __future__ import annotations

from reader.text.normalize import normalize_key
from reader.text.words import STOPWORDS, stem, words
from reader.verify.narrowing import CLAUSE_BREAK, NEGATIONS
from reader.verify.numbers import bounding_negations

# "not", "no" and "cannot" negate alike; "never", "without"... say more.
_NEGATION_FAMILY = {"no": "not", "cannot": "not"}


def negations(tokens: list[str]) -> set[tuple[str, frozenset[str]]]:
    """(negation, stems of the two content words after it) for each negation that
    does more than bound a number: "no definitive data" negates the data too."""
    found = set()
    bounding = bounding_negations(tokens)
    for index, token in enumerate(tokens):
        if token in NEGATIONS and index not in bounding:
            negated = [
                stem(t) for t in tokens[index + 1 :] if t not in STOPWORDS and t not in NEGATIONS
            ]
            found.add((_NEGATION_FAMILY.get(token, token), frozenset(negated[:2])))
    return found


def unmatched_negations(
    claim: set[tuple[str, frozenset[str]]], quote: set[tuple[str, frozenset[str]]]
) -> list[str]:
    """The claim's negations that no negation of the quote's matches: the same kind,
    bearing on a word they share (or on nothing, at the end of both)."""
    return sorted(
        kind
        for kind, negated in claim
        if not any(kind == other and (negated & said or negated == said) for other, said in quote)
    )


# Verbs that say the same of what someone held true: "Forster thought" is
# "Forster believed". Which one the claim uses adds nothing.
# fmt: off
BELIEF_VERBS = frozenset([
    "think", "thinks", "thought", "believe", "believes", "believed", "feel", "feels", "felt",
    "suppose", "supposes", "supposed", "consider", "considers", "considered",
])
# fmt: on


_BELIEF_STEMS = frozenset(stem(verb) for verb in BELIEF_VERBS)


def negation_in_drawn_clauses(
    quote: str, claim_tokens: list[str], asked_stems: frozenset[str] = frozenset()
) -> str | None:
    """A negation of the quote whose negated words the claim states without it.

    The negated word is the first content word after the negation; the claim
    draws on that negated statement when it has that word and another content
    word of the same clause ("did not approve the budget" against "approved
    the budget"), but not when it only shares the clause's other half ("play
    recordings without permission" against "play recordings").
    """
    claim_stems = {stem(t) for t in claim_tokens if t not in STOPWORDS and t not in NEGATIONS}
    clauses = [words(clause) for clause in CLAUSE_BREAK.split(normalize_key(quote))]
    # What the quote says in clauses with no negation: a claim may draw on those.
    unnegated = {stem(t) for tokens in clauses if not NEGATIONS & set(tokens) for t in tokens}
    for tokens in clauses:
        content = {stem(t) for t in tokens if t not in STOPWORDS and t not in NEGATIONS}
        bounding = bounding_negations(tokens)
        for index, token in enumerate(tokens):
            if token not in NEGATIONS or index in bounding:
                continue
            negated = next(
                (stem(t) for t in tokens[index + 1 :] if t not in STOPWORDS and t not in NEGATIONS),
                None,
            )
            if negated in _BELIEF_STEMS and not _BELIEF_STEMS & claim_stems:
                # "You must not suppose that this means a paper kite": what is not
                # to be believed is the clause after the verb.
                verb = next(i for i in range(index + 1, len(tokens)) if stem(tokens[i]) == negated)
                believed = [stem(t) for t in tokens[verb + 1 :] if t not in STOPWORDS]
                if len(claim_stems.intersection(believed)) >= 2:
                    return token
            if negated is None or negated not in claim_stems:
                continue
            others = content - {negated}
            shared = others & claim_stems
            # "Neither Tesla nor Edison won the prize ... Tesla did receive a bid"
            # against "Tesla received a Nobel Prize bid": what the claim shares with
            # the negated clause beyond its subject is only what the question asked,
            # and the quote names the subject elsewhere without a negation.
            if shared and negated in unnegated and shared <= asked_stems:
                continue
            if not others or shared:
                return token
    return None
