"""What narrows a quote's words, for the support check (``reader.verify.grounding``).

A claim can have every word of its quote and still say more than the quote:
"objects are counted" against "most objects are counted", "the white
population" against "the non-Hispanic white population", "A is B" against
"she believed A to be B", "it stops" against "we could stop". Each rule here
finds a word of the quote that narrows what the quote says, in the part of the
quote the claim draws on, and that the claim drops; it returns the reason the
claim is refused, or None.
"""

from __future__ import annotations

import re

from reader.text.normalize import normalize_key
from reader.text.sentences import sentence_spans
from reader.text.words import STOPWORDS, stem, words
from reader.verify.numbers import number_value

# Words that negate what follows them.
# fmt: off
NEGATIONS = frozenset([
    "not", "no", "never", "none", "nor", "neither", "cannot", "without", "nobody", "nothing",
    "nowhere",
])
# fmt: on
# Words that start a clause of their own: a negation before one negates nothing after it.
CLAUSE_WORDS = ("but", "however", "although", "though", "whereas", "while")
CLAUSE_BREAK = re.compile(r"[,;:.!?()]|\s(?:" + "|".join(CLAUSE_WORDS) + r")\s")

# Words that say how much of a thing, or how often, a statement holds for: "most
# objects are counted" is not "objects are counted"; "all objects" says more.
QUALIFIER_FAMILY = {
    **dict.fromkeys(
        [
            "most",
            "mostly",
            "mainly",
            "largely",
            "generally",
            "usually",
            "typically",
            "often",
            "majority",
        ],
        "most",
    ),
    **dict.fromkeys(
        ["some", "several", "partly", "somewhat", "sometimes", "occasionally", "minority"], "some"
    ),
    **dict.fromkeys(["few", "rarely", "seldom", "hardly"], "few"),
}
# How many content words after a qualifier it bears on.
QUALIFIER_REACH = 3
# Words before "most" that make it a superlative: "the most", "their most".
# "William's most trusted barons": a possessive's "s" too.
SUPERLATIVE_AFTER = frozenset(["the", "a", "its", "their", "his", "her", "our", "your", "my", "s"])
# A condition: "when this code is returned, the response should..." is not "this
# code is returned". Read only where the claim begins with what the condition says.
CONDITIONS = frozenset(["if", "when", "whenever", "unless", "provided"])
UNIVERSAL_FAMILY = {
    **dict.fromkeys(["all", "every", "each", "always", "entirely", "completely"], "all"),
    **dict.fromkeys(["only", "solely", "exclusively"], "only"),
}


def _span_of(tokens: list[str], content_words: int) -> int:
    """How many of ``tokens`` it takes to hold their first ``content_words`` words
    that are not stopwords."""
    seen = 0
    for index, token in enumerate(tokens):
        seen += token not in STOPWORDS
        if seen == content_words:
            return index + 1
    return len(tokens)


def qualifier_problem(claim_tokens: list[str], quote_tokens: list[str]) -> str | None:
    """A qualifier of the quote's that the claim drops, or a universal it adds."""
    claim_stems = {stem(t) for t in claim_tokens if t not in STOPWORDS}
    claim_families = {QUALIFIER_FAMILY.get(t) for t in claim_tokens} - {None}
    for index, token in enumerate(quote_tokens):
        family = QUALIFIER_FAMILY.get(token)
        if family is None or family in claim_families:
            continue
        if token == "most" and index > 0 and quote_tokens[index - 1] in SUPERLATIVE_AFTER:
            continue  # "their most famous song" ranks the song; it does not qualify it
        if index + 1 < len(quote_tokens) and number_value(quote_tokens[index + 1]) is not None:
            continue  # "some 20 people" bounds a number: the number check reads it
        # A qualifier bears on the words it stands before, not only the next one:
        # "typically support uniform encryption" qualifies the encryption too. The
        # claim draws on what it qualifies when it has two of those words (or the
        # only one): one shared name ("covers most of the Amazon basin" against
        # "the Amazon rainforest is ...") is not enough.
        reach_end = index + 1 + _span_of(quote_tokens[index + 1 :], QUALIFIER_REACH)
        qualified = {stem(t) for t in quote_tokens[index + 1 : reach_end] if t not in STOPWORDS}
        # The claim may say those words from elsewhere in the quote, unqualified
        # ("also often called Southwest Fresno ... lies southwest of the freeway").
        elsewhere = {stem(t) for t in quote_tokens[:index] + quote_tokens[reach_end:]}
        drawn = claim_stems & qualified
        if drawn <= elsewhere:
            continue
        if qualified and len(drawn) >= min(2, len(qualified)):
            return f"the quote says '{token}' and the claim drops it"
    claim_content = [t for t in claim_tokens if t not in STOPWORDS and t not in NEGATIONS]
    if claim_content and not CONDITIONS & set(claim_tokens):
        for index, token in enumerate(quote_tokens):
            if token not in CONDITIONS:
                continue
            conditioned = next((t for t in quote_tokens[index + 1 :] if t not in STOPWORDS), None)
            if conditioned is not None and stem(conditioned) == stem(claim_content[0]):
                return f"the quote says it only '{token}' something else holds"
    quote_universals = {UNIVERSAL_FAMILY.get(t) for t in quote_tokens} - {None}
    for token in claim_tokens:
        family = UNIVERSAL_FAMILY.get(token)
        if family is not None and family not in quote_universals:
            return f"the claim says '{token}' where the quote does not"
    return None


# Verbs that report what someone said or believed: "she believed Lady Catherine to be
# what he represented" does not say Lady Catherine was.
# fmt: off
REPORTING_VERBS = frozenset([
    "believed", "believes", "believe", "thought", "thinks", "think", "said", "says", "told",
    "tells", "informed", "informs", "claimed", "claims", "argued", "argues", "felt", "feels",
    "hoped", "hopes", "feared", "fears", "supposed", "supposes", "imagined", "imagines",
    "assured", "promised", "suspected", "suspects", "wondered", "suggested", "suggests",
    "suggest", "asked", "asks", "replied", "answered", "wrote", "indicate", "indicates",
    "conjectured", "hypothesized", "hypothesised", "speculated", "rumored", "rumoured",
    "alleged", "allegedly", "presumed", "theorized", "theorised", "postulated",
])
# fmt: on


def reported_only(claim_tokens: list[str], quote: str) -> str | None:
    """A claim that states as fact what the quote only reports someone said or believed:
    the words the claim draws on come after a reporting verb it does not keep."""
    if any(token in REPORTING_VERBS for token in claim_tokens):
        return None
    claim_stems = {stem(t) for t in claim_tokens if t not in STOPWORDS}
    # What a clause of the quote says in its own voice, with no reporting verb: "It
    # is tempting to think that A is B. However, since A can be recast as B ..."
    # says A is B itself in its last clause.
    unreported = max(
        (
            len(claim_stems & {stem(t) for t in clause})
            for clause in map(words, CLAUSE_BREAK.split(normalize_key(quote)))
            if not REPORTING_VERBS & set(clause)
        ),
        default=0,
    )
    for passage in _reported_passages(quote):
        problem = _reported_in(words(passage), claim_stems, unreported)
        if problem:
            return problem
    return None


# Speech that opens with a quotation mark: it goes on saying what the verb before it
# reported ('"You began well," said Mrs. Bennet. "You were his first choice."').
_OPENS_SPEECH = re.compile(r"^[\"'\u201c\u2018_]")


def _sentences(quote: str) -> list[str]:
    return [quote[start:end] for start, end in sentence_spans(quote)] or [quote]


def _reported_passages(quote: str) -> list[str]:
    """The quote cut where what a reporting verb says ends: at the end of a sentence
    ("than had been supposed. Hutton published ..." does not report what Hutton
    published), unless the next one goes on in quoted speech."""
    passages: list[str] = []
    for sentence in _sentences(quote):
        if passages and _OPENS_SPEECH.match(sentence):
            passages[-1] += " " + sentence
        else:
            passages.append(sentence)
    return passages


def _reported_in(quote_tokens: list[str], claim_stems: set[str], unreported: int) -> str | None:
    """The reporting verb of one passage of the quote whose words the claim draws on."""
    for index, token in enumerate(quote_tokens):
        if token not in REPORTING_VERBS:
            continue
        before = {stem(t) for t in quote_tokens[:index] if t not in STOPWORDS}
        after = {stem(t) for t in quote_tokens[index + 1 :] if t not in STOPWORDS}
        drawn = claim_stems & (before | after)
        reported = len(drawn & after)
        if drawn and reported >= 2 and reported > max(len(drawn & before), unreported):
            return f"the quote only reports this ('{token}'); the claim states it as fact"
    return None


# "non-Hispanic white": a "non-" word that narrows the word after it to its opposite.
_NON_PREFIXED = re.compile(r"\bnon-(\w+)\s+(\w+)", re.IGNORECASE)


def dropped_non_prefix(claim_tokens: list[str], quote: str) -> str | None:
    """The quote's "non-X Y" where the claim says Y without it: "the white
    population was 55.1%" against "non-Hispanic white ... 55.1%"."""
    claim_stems = {stem(t) for t in claim_tokens}
    drawn_sentence: str | None = None
    for match in _NON_PREFIXED.finditer(quote):
        prefixed, narrowed = match.group(1).casefold(), match.group(2).casefold()
        if narrowed in STOPWORDS or stem(narrowed) not in claim_stems:
            continue
        # "Many types of Turing machines ... non-deterministic Turing machines": the
        # claim may say the word where the sentence it draws on says it without
        # "non-" (not so "white flight ... non-Hispanic white ... 55.1%").
        drawn_sentence = drawn_sentence or _drawn_sentence(quote, claim_stems)
        if _said_without_non(drawn_sentence, narrowed):
            continue
        negated = stem(prefixed) in claim_stems and bool(NEGATIONS.intersection(claim_tokens))
        if stem("non" + prefixed) not in claim_stems and not negated:
            said = f"non-{match.group(1)} {match.group(2)}"
            return f"the quote says '{said}' and the claim drops 'non-'"
    return None


def _drawn_sentence(quote: str, claim_stems: set[str]) -> str:
    """The sentence of the quote that shares the most words with the claim."""
    return max(
        _sentences(quote),
        key=lambda sentence: len(claim_stems & {stem(t) for t in words(sentence)}),
    )


def _said_without_non(quote: str, word: str) -> bool:
    """Whether the quote says ``word`` somewhere not right after a "non-" word."""
    tokens = re.findall(r"[\w-]+", quote.casefold())
    return any(
        stem(token) == stem(word) and not (index > 0 and tokens[index - 1].startswith("non-"))
        for index, token in enumerate(tokens)
    )


# An attempt that did not come off: "travelled to Iberia to carve out a state, but
# failed" does not say he carved one out, nor "tried to reach Acre" that he did.
# A failure said after the attempt bears on the words before it in its sentence;
# a past "tried to" on the words after it. (A metric that "attempts to gauge"
# something is said to gauge it: the present tense states a purpose.)
_FAILED_AFTER = re.compile(
    r"\b(?:(?:but|and) (?:failed|was unsuccessful|were unsuccessful)|in vain|unsuccessfully)\b",
    re.IGNORECASE,
)
_TRIED = frozenset(["tried", "attempted", "sought", "failed"])
# A possibility: "we could choose to stop interpretation" does not say it stops.
# "It might be 10%" hedges a value and is read as the value.
_POSSIBILITY = frozenset(["could", "might"])
# Words with which a claim keeps that the thing was tried, possible, or not done.
# fmt: off
_KEEPS_UNREALISED = frozenset([
    "could", "might", "may", "can", "possible", "possibly", "option", "options", "able",
    "would", "choose", "chose", "try", "tried", "tries", "attempt", "attempted", "attempts",
    "fail", "failed", "fails", "sought", "seek", "unsuccessful", "unsuccessfully", "vain",
    *NEGATIONS,
])
# fmt: on


def unrealised(claim_tokens: list[str], quote: str) -> str | None:
    """A claim that states as done what the quote says was only tried, or only
    could be done: the words it draws on are those of a failed attempt or come
    after "could" or "might"."""
    if _KEEPS_UNREALISED.intersection(claim_tokens):
        return None
    claim_stems = {stem(t) for t in claim_tokens if t not in STOPWORDS}
    for sentence in _sentences(quote):
        failed = _FAILED_AFTER.search(sentence)
        if failed:
            attempted = {stem(t) for t in words(sentence[: failed.start()]) if t not in STOPWORDS}
            if len(claim_stems & attempted) >= 2:
                return f"the quote says this was only tried ('{failed.group(0)}')"
    quote_tokens = words(quote)
    for index, token in enumerate(quote_tokens[:-2]):
        tried = token in _TRIED and quote_tokens[index + 1] == "to"
        possible = token in _POSSIBILITY and quote_tokens[index + 1] not in STOPWORDS
        if not (tried or possible):
            continue
        reach_end = index + 1 + _span_of(quote_tokens[index + 1 :], QUALIFIER_REACH)
        governed = {stem(t) for t in quote_tokens[index + 1 : reach_end] if t not in STOPWORDS}
        if len(claim_stems & governed) >= 2:
            if tried:
                return f"the quote says this was only tried ('{token} to')"
            return f"the quote says this only '{token}' be; the claim states it as fact"
    return None
