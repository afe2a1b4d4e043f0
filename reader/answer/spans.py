"""Answers built from the quotes: the model chooses the words of its quote that answer.

In constrained quoting a claim names an evidence sentence, and the grammar
gives that sentence whole as its quote (``KnownQuotes``). Its ``text`` is then
no sentence of the model's own: the grammar lets through only a run of the
quote's own words, in order and unbroken ("$12,000" from "They demanded
$12,000 to dismiss the case."), or the words saying the passages do not
answer. What carries a marker is the quoted sentence, with that run shown as
the direct answer inside it; so every linked word is the source's, by
construction, whatever the model meant.

Cutting a run out of a sentence can still change what it says on its own.
Those ways can be listed, and each is checked here, on the run's own sentence
of its quote (most within the run's clause): a negation the run leaves out ("did not award
$5,000"), a condition ("if the appeal fails, ... $5,000"), a possibility
("could reach $5,000"), a report or belief ("critics said ... $5,000"), a
qualifier ("most", "some", "about $5,000"), and a run that states nothing the
question does not (its words are the question's, or only small words). A
narrowing the question itself asks under is none ("What did he think ...?"
keeps "believed"). A run
that fails one is still linked, but as its whole sentence, with no direct
answer of its own (``CheckedClaim.shown_text``). A server that takes no
grammar gets the same checks after the fact: a text that is not a run of its
quote's words is no direct answer either.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from reader.records import Grounding
from reader.retrieve.question import Question
from reader.text.sentences import ENDS_SENTENCE, STARTS_SENTENCE
from reader.text.words import STOPWORDS, bare, stem, words
from reader.verify.narrowing import (
    CONDITIONS,
    NEGATIONS,
    QUALIFIER_FAMILY,
    REPORTING_VERBS,
)

# What the model writes, in place of a run of words, when its sentence does not answer.
NOT_ANSWERED_TEXT = "The passages do not say."

# Possibility and hedges: "could reach $5,000" is not "$5,000". Not "would": in
# narrative it states ("the fight would cost him $250,000").
MODALS = frozenset(["may", "might", "could", "perhaps", "possibly", "probably"])
# Approximation right before the run: "about $5,000" is not "$5,000".
APPROXIMATIONS = frozenset(
    ["about", "around", "approximately", "roughly", "nearly", "almost", "over", "under", "up"]
)
ATTRIBUTIONS = frozenset(["according", "reportedly", "allegedly", "supposedly"])
# Where a clause ends, for what bears on a run: punctuation, and the words that
# join two clauses.
_CLAUSE_END = re.compile(r"[,;:.!?()\u2014]$")
_JOINERS = frozenset(["but", "however", "although", "though", "whereas", "while", "and", "or"])
_NEGATED_VERB = re.compile(r"n[\u2019']t$", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class Run:
    """Where a claim's text lies in its quote: word ``first`` to word ``last``
    (inclusive) of ``quote.split()``, and its characters in the one-line quote."""

    first: int
    last: int
    start: int
    end: int


def folded(text: str) -> str:
    """``text`` on one line, each run of whitespace one space: the quote as
    ``CheckedClaim.shown_text`` shows it, which ``Run`` offsets index. Not
    ``reader.text.escaping.one_line``, whose cleaning would move them."""
    return " ".join(text.split())


def find_run(text: str, quote: str) -> Run | None:
    """Where ``text`` is a run of ``quote``'s words (letter case, and a mark at either
    end of the run, aside), else None. The first such place counts."""
    written = text.split()
    tokens = quote.split()
    wanted = [bare(token) for token in written]
    if not wanted or not any(wanted):
        return None
    quoted = [bare(token) for token in tokens]
    offsets = []
    position = 0
    for token in tokens:
        offsets.append(position)
        position += len(token) + 1
    for first in range(len(tokens) - len(wanted) + 1):
        last = first + len(wanted) - 1
        # Inner words as written: only the run's ends may lose a mark.
        if quoted[first : last + 1] != wanted or written[1:-1] != tokens[first + 1 : last]:
            continue
        lead = max(tokens[first].casefold().find(written[0].casefold()), 0)
        tail = tokens[last].casefold().find(written[-1].casefold())
        tail_end = tail + len(written[-1]) if tail >= 0 else len(tokens[last])
        return Run(first, last, offsets[first] + lead, offsets[last] + tail_end)
    return None


def _clause(tokens: list[str], run: Run) -> tuple[list[str], list[str]]:
    """The words of the run's clause before it and after it, bare."""
    before: list[str] = []
    for token in reversed(tokens[: run.first]):
        if _CLAUSE_END.search(token) or bare(token) in _JOINERS:
            break
        before.insert(0, token)
    after: list[str] = []
    if not _CLAUSE_END.search(tokens[run.last]):
        for token in tokens[run.last + 1 :]:
            if bare(token) in _JOINERS:
                break
            after.append(token)
            if _CLAUSE_END.search(token):
                break
    return [bare(t) for t in before], [bare(t) for t in after]


# Conditions that reach across a comma: "If the appeal fails, the fee is $5,000".
_SENTENCE_CONDITIONS = frozenset(["if", "unless", "provided", "providing", "assuming"])


def _sentence_of(tokens: list[str], run: Run) -> tuple[int, int]:
    """The first and last token of the sentence the run lies in: a quote may hold
    two, and what the other one says does not bear on the run."""
    first = run.first
    while first > 0 and not (
        ENDS_SENTENCE.search(tokens[first - 1]) and STARTS_SENTENCE.match(tokens[first])
    ):
        first -= 1
    last = run.last
    while last < len(tokens) - 1 and not (
        ENDS_SENTENCE.search(tokens[last]) and STARTS_SENTENCE.match(tokens[last + 1])
    ):
        last += 1
    return first, last


def _asked_under(question: Question | None) -> set[str]:
    """The kinds of narrowing the question itself asks under: asked what someone
    thought, "believed" does not narrow the answer; asked what may be done, "may"
    does not; asked roughly how much, "about" does not."""
    asked = question.bare_words if question is not None else frozenset()
    kinds = set()
    if asked & NEGATIONS or any(_NEGATED_VERB.search(word) for word in asked):
        kinds.add("negation")
    # A question asks with a first "When" ("When was it paid?"); a "when" further
    # on asks under a condition ("What does it do when an allocation fails?").
    later = [bare(token) for token in question.text.split()[1:]] if question is not None else []
    if asked & (_SENTENCE_CONDITIONS | {"whenever"}) or "when" in later:
        kinds.add("condition")
    if asked & (MODALS | {"can", "should", "would", "must"}):
        kinds.add("modal")
    if asked & (REPORTING_VERBS | ATTRIBUTIONS):
        kinds.add("report")
    if asked & set(QUALIFIER_FAMILY):
        kinds.add("qualifier")
    if asked & (APPROXIMATIONS | {"roughly", "approximately"}):
        kinds.add("approximation")
    return kinds


def narrowed(quote: str, run: Run, question: Question | None = None) -> str | None:
    """Why the run, taken out of its sentence, says more than the sentence, or None.
    A kind of narrowing the question asks under (``_asked_under``) is not one."""
    tokens = quote.split()
    first, last = _sentence_of(tokens, run)
    # A clause never reaches past its sentence: a sentence's end ends a clause too.
    before, after = _clause(tokens, run)
    outside = [bare(t) for t in tokens[first : run.first] + tokens[run.last + 1 : last + 1]]
    asked = _asked_under(question)
    if "negation" not in asked:
        for word in before + after:
            if word in NEGATIONS or _NEGATED_VERB.search(word):
                return f'its sentence says "{word}" of it'
    for word in outside:
        if word in _SENTENCE_CONDITIONS and "condition" not in asked:
            return f'its sentence puts it under a condition ("{word}")'
        if word in ATTRIBUTIONS and "report" not in asked:
            return f'its sentence reports it as someone\'s ("{word}")'
    for word in before:
        if word in CONDITIONS and "condition" not in asked:
            return f'its sentence puts it under a condition ("{word}")'
        if word in MODALS and "modal" not in asked:
            return f'its sentence says only that it "{word}" be so'
        if word in REPORTING_VERBS and "report" not in asked:
            return f'its sentence reports it as someone\'s ("{word}")'
        if word in QUALIFIER_FAMILY and "qualifier" not in asked:
            return f'its sentence qualifies it ("{word}")'
    if "approximation" not in asked:
        for word in before[-2:]:
            if word in APPROXIMATIONS:
                return f'its sentence gives it as an approximation ("{word}")'
    return None


def states_nothing(run_text: str, question: Question) -> bool:
    """Whether the run's words are all the question's (in any form: "stayed" for
    "stay") or small words, without a number."""
    asked = question.stems
    said = [w for w in words(run_text) if w not in STOPWORDS and stem(w) not in asked]
    return not said and not any(ch.isdigit() for ch in run_text)


def span_grounding(text: str, quote: str, question: Question) -> tuple[Grounding, Run | None]:
    """Whether ``text`` may stand as the direct answer taken from ``quote``."""
    run = find_run(text, quote)
    if run is None:
        return Grounding(False, "the words chosen are not a run of the quote's own words"), None
    if states_nothing(text, question):
        return Grounding(False, "the words chosen say nothing the question does not"), run
    why = narrowed(quote, run, question)
    if why is not None:
        return Grounding(False, why), run
    return Grounding(True, "the quote's own words, chosen whole"), run
