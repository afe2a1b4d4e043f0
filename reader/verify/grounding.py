"""Does a claim say only what its quote says?

The span verifier proves that a quote is in the source. That is not enough to
link a claim: a model can pair a real quote with a sentence the quote does not
support, and the link would lend that sentence the source's authority. This
check runs after the quote verifies and decides, word by word, whether the
claim's text is grounded in the quote:

- every number in the claim occurs in the quote ("1,000" and "1000" are the
  same number; "three" and "3" too), whatever the question said, and so does
  every rank ("the first chair", "the best known"); a reference mark's
  numbers ("(75-83)", "[8]") count nothing; a number of a list in the quote
  stays with its thing ("56.2% were Catholics ... 2.8% Protestants" does not
  make 56.2% Protestant);
- a negation in the claim ("not", "never", "n't", "without"...) is matched by
  one in the quote, and a negation in the part of the quote the claim draws on
  is kept by the claim (a dropped "not" turns the statement around; "you
  must not suppose that this means a kite" denies that it means a kite);
- every other content word of the claim, names included, occurs in the quote
  up to inflection (Snowball stems: "licences" matches "licence", "charged"
  matches "charge") and case; or is a light word that adds nothing ("used",
  "called", "total"); or restates a word of the question (the claim may
  repeat what the question presupposes: "Jefferson had 198 cases two years
  after starting as a lawyer" against "In two years ... he had 198 cases");
- the claim keeps what narrows the quote's words: a qualifier ("typically",
  "the majority"), a "non-" ("non-Hispanic white" is not "white"), a report
  or a hedge ("surveys indicate", "it is conjectured" is not a fact), an
  attempt that failed or a possibility ("tried to carve out a state, but
  failed", "we could choose to stop" is not that it stopped); and a
  "non-" word is the quote's, whatever the question said ("non-binary" is
  not "binary");
- the claim obliges no more strongly than the quote ("mandates" or "must"
  against a plain statement or a "should") and ties its fact to the quote's
  clause, not to one made of the question's words ("nine years old when he
  escaped" against "nine years old when he went to boarding school"); a
  question's two words written as one ("request header") cover the quote's
  compound ("request-header");
- the claim is a statement, not a question, and not cut at an abbreviation;
  it gives what the question asks for, not "this status code" for "Which
  status code ...?";
- and the claim says something of the quote's beyond the question's words
  (a claim made of the question's words alone is the question, not an answer).

The rules for what narrows a quote's words (qualifiers, conditions, reports,
attempts and possibilities, "non-") are in ``reader.verify.narrowing``; those
for how a claim asserts (obligation, the clause a fact is tied to, pointing
at an answer) in ``reader.verify.assertion``; negation in
``reader.verify.negation``; numbers in ``reader.verify.numbers``.

It is deterministic, explainable (the reason names the words that are not in
the quote) and fast. What it cannot see: words in the quote in another order
or relation ("Alice paid Bob" against "Bob paid Alice"; "the agency fined the
firm" against "firms were threatened with fines") pass, as they share every
word, and so does a quote's possibility stated as fact ("we could stop"
against "it stops"). A model run in-process can judge those
(``reader.answer.judge``), but none of the models measured does it well enough
on new claims to be asked; the figures for both are in ``bench/support``.
"""

from __future__ import annotations

import functools
import itertools
import re
from dataclasses import dataclass

from reader.records import Claim, Grounding, Verification
from reader.text.words import CJK_RUN, STOPWORDS, stem, words
from reader.verify.assertion import (
    OBLIGATIONS,
    points_at_answer,
    swapped_clause,
    unsaid_obligation,
)
from reader.verify.narrowing import (
    CLAUSE_WORDS,
    CONDITIONS,
    NEGATIONS,
    QUALIFIER_FAMILY,
    REPORTING_VERBS,
    SUPERLATIVE_AFTER,
    UNIVERSAL_FAMILY,
    dropped_non_prefix,
    qualifier_problem,
    reported_only,
    unrealised,
)
from reader.verify.negation import (
    BELIEF_VERBS,
    negation_in_drawn_clauses,
    negations,
    unmatched_negations,
)
from reader.verify.numbers import (
    COUNT_NOUNS,
    NUMBER_WORDS,
    bound_positions,
    misread_number,
    number_of_another,
    number_phrases,
    number_value,
    without_reference_marks,
)

_SAYS_ITS_STEM = re.compile(
    r"\b(?:pre|re|al|el|ibn|bin|abu|ben)[-\u2010\u2011](\w+)", re.IGNORECASE
)


@dataclass(frozen=True, slots=True)
class _Vocabulary:
    """What a piece of text offers to support a claim: words, stems, numbers."""

    words: frozenset[str]
    stems: frozenset[str]
    numbers: frozenset[str]

    @classmethod
    def of(cls, text: str, compounds: bool = False) -> _Vocabulary:
        # "pre-fetch data" says "fetch data" too, "re-elected" "elected", and
        # "Hassan al-Turabi" names Turabi; not so a prefix that negates ("non-",
        # "un-"), reverses ("de-") or shares ("co-wrote" is not "wrote").
        tokens = words(text) + words(" ".join(_SAYS_ITS_STEM.findall(text)))
        if compounds:  # "request header" says "request-header" (one word, "requestheader")
            tokens += [first + second for first, second in itertools.pairwise(tokens)]
        numbers = {value for value in map(number_value, tokens) if value is not None}
        numbers.update(value for _, _, value in number_phrases(tokens))
        return cls(frozenset(tokens), frozenset(stem(t) for t in tokens), frozenset(numbers))

    def has(self, token: str) -> bool:
        return token in self.words or stem(token) in self.stems


@functools.lru_cache(maxsize=32)
def _question_vocabulary(question: str) -> _Vocabulary:
    """The question's words, read once per question, not once per claim checked."""
    return _Vocabulary.of(question, compounds=True)


# Words a claim may add that say nothing of their own: "the samples used in the
# trial" says what "the trial samples" says.
# fmt: off
LIGHT_WORDS = frozenset([
    "used", "using", "called", "named", "known", "located", "situated", "given", "total",
    "overall", "specifically", "respectively", "actually", "really", "indeed", "currently",
    "originally", "initially", "also", "noted", "reported", "stated", "explained",
    "indicated", "include", "includes", "included", "including", "consist", "consists",
    "consisting", "involve", "involves", "involved", "make", "makes", "made", "get", "gets",
    "got", "take", "takes", "took", "taken", "there", "way", "ways", "thing", "things",
    "something", "contain", "contains", "contained", "containing", "occur", "occurs",
    "occurred", "occurring",
])
# fmt: on

# Words that rank: "the first chair", "the least known algorithm". Like a number,
# a rank the question presupposes is the quote's to state.
# fmt: off
RANKS = frozenset([
    "first", "last", "least", "best", "worst", "earliest", "latest", "highest", "lowest",
    "largest", "smallest", "biggest", "greatest", "oldest", "newest", "youngest",
])
# fmt: on


# Words that count one of what follows them, as "one" does: "to one server" says
# what "to a given server" and "with any server" say.
_ONE_OF = frozenset(["a", "an", "any", "each", "single", "given"])


def _one_of(claim_tokens: list[str], position: int, quote_tokens: list[str]) -> bool:
    """Whether "one" at ``position`` counts a thing the quote names after a word that
    counts one of it."""
    if position + 1 >= len(claim_tokens):
        return False
    counted = stem(claim_tokens[position + 1])
    return any(
        stem(token) == counted and quote_tokens[index - 1] in _ONE_OF
        for index, token in enumerate(quote_tokens)
        if index > 0
    )


def _unsaid_superlative(claim_tokens: list[str], position: int, quote_tokens: list[str]) -> bool:
    """A rank made with "most" ("the most important type") that the quote does not
    make of the same word: like "the first", it is the quote's to state."""
    if claim_tokens[position] != "most" or position + 1 >= len(claim_tokens):
        return False
    if position == 0 or claim_tokens[position - 1] not in SUPERLATIVE_AFTER:
        return False
    following = claim_tokens[position + 1]
    if following in STOPWORDS or following.endswith("ly"):
        return False  # "the most of", "the most commonly used": not a rank of a thing
    ranked = stem(following)
    return not any(
        token == "most" and stem(quote_tokens[index + 1]) == ranked
        for index, token in enumerate(quote_tokens[:-1])
    )


def _contrasts(tokens: list[str], position: int) -> bool:
    """ "compared to" and "compared with" only set two things the claim names side
    by side; "the study compared two drugs" says more, and is a word to find."""
    return (
        tokens[position] == "compared"
        and position + 1 < len(tokens)
        and tokens[position + 1] in ("to", "with")
    )


# Every word a rule reads for its meaning, not only for being in the quote.
WORDS_WITH_RULES = frozenset(
    [
        *QUALIFIER_FAMILY,
        *CONDITIONS,
        *UNIVERSAL_FAMILY,
        *REPORTING_VERBS,
        *BELIEF_VERBS,
        *RANKS,
        *CLAUSE_WORDS,
    ]
)


def _has_kin(token: str, source: _Vocabulary) -> bool:
    return token in BELIEF_VERBS and bool(BELIEF_VERBS & source.words)


def check_grounding(claim: str, quote: str, question: str = "") -> Grounding:
    """Does ``claim`` say only what ``quote`` says?

    Every number and negation must be the quote's (whatever the question
    said). Every other content word must be the quote's up to inflection,
    a light word that adds nothing, or a word of the question restating what
    the question presupposes. And the claim must say something of the
    quote's beyond the question's own words.
    """
    # A claim may copy the quote's reference marks; their numbers count nothing.
    claim_tokens = words(without_reference_marks(claim))
    if not claim_tokens:
        return Grounding(False, "the claim is empty")
    source = _Vocabulary.of(without_reference_marks(quote))
    asked = _question_vocabulary(question)
    quote_tokens = words(quote)
    tally = _tally_words(claim_tokens, quote_tokens, source, asked)
    missing = list(tally.kinds)
    # The first problem found decides the reason, so the order of the checks matters.
    problems = []
    if missing:
        problems.append(_not_in_quote(tally.kinds))
    negation = _negation_problem(claim_tokens, quote_tokens, quote, asked)
    if negation:
        problems.append(negation)
    if not missing:
        misread = misread_number(claim_tokens, quote_tokens) or number_of_another(
            claim_tokens, quote_tokens
        )
        if misread:
            problems.append(misread)
    if not problems:
        changed = _narrowing_or_assertion_problem(
            claim_tokens, quote_tokens, quote, question, source, asked
        )
        if changed:
            problems.append(changed)
    if _CUT_OFF.search(claim.strip()):
        problems.append("the claim stops mid-sentence")
    if claim.strip().endswith("?"):
        problems.append("the claim is a question, not a statement")
    if not problems and tally.beyond_question == 0:
        problems.append("the claim only restates the question")
    elif not problems and not _states_something(tally.said):
        problems.append("the claim is too short to state anything")
    if problems:
        return Grounding(False, "; ".join(problems), tuple(missing))
    return Grounding(True, "every word of the claim is in the quote")


@dataclass(frozen=True, slots=True)
class _Tally:
    """The claim's words read one by one against the quote and the question."""

    kinds: dict[str, str]  # each word or number the quote does not say: "word" or "number"
    said: list[str]  # the claim's content words and numbers the quote says
    beyond_question: int  # ... of which the question does not say


def _tally_words(
    claim_tokens: list[str], quote_tokens: list[str], source: _Vocabulary, asked: _Vocabulary
) -> _Tally:
    """Which of the claim's numbers and content words the quote says, and which it
    does not (a rank, an obligation or a "non-" the quote lacks is missing whatever
    the question said)."""
    kinds: dict[str, str] = {}
    said: list[str] = []
    beyond_question = 0
    after_number = False
    # Numbers written in several words ("fifty thousand") that the quote says.
    as_one = {
        index
        for first, end, value in number_phrases(claim_tokens)
        if value in source.numbers
        for index in range(first, end)
    }
    bounding = bound_positions(claim_tokens)
    for position, token in enumerate(claim_tokens):
        if position in bounding:
            continue
        if position in as_one:
            said.append(token)
            beyond_question += not asked.has(token)
            after_number = True
            continue
        value = number_value(token)
        if value is not None:
            said_as_one = token == "one" and _one_of(claim_tokens, position, quote_tokens)
            if (
                value not in source.numbers
                and not (token in NUMBER_WORDS and source.has(token))
                and not said_as_one
            ):
                kinds.setdefault(token, "number")
            else:
                said.append(token)
                beyond_question += value not in asked.numbers
            after_number = True
            continue
        counted = after_number and token in COUNT_NOUNS
        after_number = False
        if token in RANKS and not source.has(token):
            kinds.setdefault(token, "word")  # a rank is a fact, whatever the question says
            continue
        if _unsaid_superlative(claim_tokens, position, quote_tokens):
            kinds.setdefault(f"most {claim_tokens[position + 1]}", "word")
            continue
        if token in OBLIGATIONS and unsaid_obligation(token, quote_tokens):
            kinds.setdefault(token, "word")  # how strongly it obliges, whatever was asked
            continue
        if token in NEGATIONS or token in STOPWORDS or counted:
            continue
        if _adds_non(token, source):
            kinds.setdefault(token, "word")  # "non-" turns a word around, whatever was asked
            continue
        if source.has(token) or _has_kin(token, source):
            said.append(token)
            beyond_question += not asked.has(token)
        elif (
            token not in LIGHT_WORDS
            and not asked.has(token)
            and not _contrasts(claim_tokens, position)
        ):
            kinds.setdefault(token, "word")
    return _Tally(kinds, said, beyond_question)


def _not_in_quote(kinds: dict[str, str]) -> str:
    """The reason that names the claim's words and numbers the quote does not say."""
    missing = list(kinds)
    listed = ", ".join(f"'{token}'" for token in missing[:8])
    more = f" and {len(missing) - 8} more" if len(missing) > 8 else ""
    numbers = [token for token in missing if kinds[token] == "number"]
    what = (
        "numbers and words"
        if numbers and len(numbers) < len(missing)
        else ("numbers" if numbers else "words")
    )
    return f"{what} not in the quote: {listed}{more}"


def _negation_problem(
    claim_tokens: list[str], quote_tokens: list[str], quote: str, asked: _Vocabulary
) -> str | None:
    """A negation the claim adds, or else one the claim drops from the part of the
    quote it draws on."""
    claim_negations = negations(claim_tokens)
    quote_negations = negations(quote_tokens)
    added = unmatched_negations(claim_negations, quote_negations)
    quote_negation = negation_in_drawn_clauses(quote, claim_tokens, asked.stems)
    if added:
        return f"the claim says '{added[0]}' where the quote does not"
    if quote_negation and not claim_negations:
        return f"the quote says '{quote_negation}' and the claim drops it"
    return None


def _narrowing_or_assertion_problem(
    claim_tokens: list[str],
    quote_tokens: list[str],
    quote: str,
    question: str,
    source: _Vocabulary,
    asked: _Vocabulary,
) -> str | None:
    """The first of these the claim does, in this order: drops a qualifier of the
    quote's (or adds a universal), drops a "non-", states as fact what the quote
    only reports, states as done what the quote only tries or allows, ties its fact
    to a clause of the question's words, or points at the answer without giving it."""
    return (
        qualifier_problem(claim_tokens, quote_tokens)
        or dropped_non_prefix(claim_tokens, quote)
        or reported_only(claim_tokens, quote)
        or unrealised(claim_tokens, quote)
        or swapped_clause(claim_tokens, quote_tokens, source.has, asked.has)
        or points_at_answer(claim_tokens, question)
    )


def _adds_non(token: str, source: _Vocabulary) -> bool:
    """A "non-" word ("nonbinary") whose quote says the word without it ("binary")."""
    return (
        token.startswith("non")
        and len(token) > 5
        and not source.has(token)
        and source.has(token[3:].lstrip("-"))
    )


# A claim cut at an abbreviation: "An HTTP/1.", "... to Mr." (a lone capital is not
# enough to tell: "the very first U." against "chronic hepatitis C.").
_CUT_OFF = re.compile(r"(?:/\d+|\b(?:Mr|Mrs|Ms|Dr|St|Prof))\.$")


def _states_something(said: list[str]) -> bool:
    """A number, or two words of substance: "Mr." and "The very first U." state nothing."""
    substantial = [t for t in said if t not in LIGHT_WORDS and (len(t) > 1 or CJK_RUN.match(t))]
    return len(substantial) >= 2 or any(number_value(t) is not None for t in said)


def grounding_for(claim: Claim, verification: Verification, question: str) -> Grounding | None:
    """The grounding of a claim whose quote verified; None when it did not."""
    if not verification.verified:
        return None
    return check_grounding(claim.text, claim.quote, question)
