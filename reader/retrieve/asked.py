"""A question as its evidence is scored: its content words (stems, weighted by
how rare they are in the library), the words that stand together in it, the
kind of answer it asks for, its hyphenated words with their parts, its words
written beside a number ("genotype 3", "24 weeks") and its acronyms. Worked out
once per question (``AskedWords.of``), then read for every candidate sentence.

A run of CJK characters counts as its overlapping pairs of characters, the
question's own words ("是谁", "多少") cut out first: one character is seldom a
word, and a run is a phrase.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection
from dataclasses import dataclass
from itertools import pairwise

from reader.retrieve.acronyms import AcronymMatcher
from reader.retrieve.answer_kinds import expected_kind
from reader.text.normalize import CJK_LETTERS
from reader.text.words import (
    HYPHEN_IN_WORD,
    HYPHENATED_WORD,
    NUMBER_THEN_WORD,
    STOPWORDS,
    WORD_THEN_NUMBER,
    stem,
    words,
)

# Words that ask rather than say what is asked about (function words, "what"
# and "how" among them, are in STOPWORDS already).
_QUESTION_FORMS = frozenset(
    [
        "tell",
        "explain",
        "describe",
        "give",
        "list",
        "name",
        "mean",
        "meaning",
        "define",
        "definition",
        "kind",
        "type",
    ]
)
_CJK_PAIR = re.compile(f"[{CJK_LETTERS}]{{2}}")
# What a Chinese, Japanese or Korean question asks with, and its particles:
# cut out of the question's runs of characters before those are paired, so
# that "公司负责人是谁" asks for "公司负责人", not also for "人是" and "是谁".
_CJK_QUESTION_FORMS = re.compile(
    "为什么|什么|怎么|怎样|如何|哪一?[家个位些里儿年天种条项]?|谁|多少|几|何时|为何|是否|请问|吗|呢|是|的|了"
    "|なぜ|どこ|いつ|だれ|誰|どの|どれ|どう|いくつ|いくら|何|です|ます|か|は|が|を|の|に|で|と|も"
    "|무엇|누구|언제|어디|어떻게|얼마|몇"
)
# Cuts a run of CJK characters and survives normalisation (a space beside a CJK
# character would vanish there).
_CJK_BREAK = "\u3001"


def question_terms(question: str) -> list[str]:
    """The question's content words, in order, without question forms.

    A run of CJK characters gives its pairs of characters (see ``matching_terms``), the
    question's own words ("是谁", "多少") cut out first.
    """
    seen: list[str] = []
    for token in matching_terms(_CJK_QUESTION_FORMS.sub(_CJK_BREAK, question)):
        if token in STOPWORDS or token in _QUESTION_FORMS or len(token) < 2:
            continue
        if token not in seen:
            seen.append(token)
    return seen


def matching_terms(text: str) -> list[str]:
    """The words of ``text`` as evidence matches them: a run of CJK characters as its
    overlapping pairs, since one character is seldom a word and a run is a phrase."""
    return words(text, cjk_pairs=True)


def _compounds(question: str) -> dict[str, tuple[str, ...]]:
    """The stems of the question's hyphenated words, each with the stems of its parts:
    a sentence that says "12 trillion token" says "12-trillion-token"."""
    found: dict[str, tuple[str, ...]] = {}
    for hyphenated in HYPHENATED_WORD.findall(question):
        parts = matching_terms(HYPHEN_IN_WORD.sub(" ", hyphenated))
        for joined in matching_terms(hyphenated):
            if joined in parts:
                continue
            for first in range(len(parts)):
                for last in range(first + 2, len(parts) + 1):
                    if "".join(parts[first:last]) == joined:
                        found[stem(joined)] = tuple(stem(part) for part in parts[first:last])
    return found


# What a sentence loses for each of the question's numbered words it gives only
# with another number: asked about genotype 3 after 24 weeks, a sentence on
# genotype 5 after 12 weeks is about another case.
OTHER_NUMBER_PENALTY = 0.2
# What it gains for giving one with the question's own number: as much as two of
# the question's words standing together.
SAME_NUMBER_BONUS = 0.15


def numbered_words(text: str) -> dict[tuple[str, bool], set[str]]:
    """Each word written beside a number, by its stem and whether the number
    follows it, with the numbers it stands beside."""
    found: dict[tuple[str, bool], set[str]] = {}
    for word, number in WORD_THEN_NUMBER.findall(text):
        if word.lower() not in STOPWORDS:
            found.setdefault((stem(word.lower()), True), set()).add(number)
    for number, word in NUMBER_THEN_WORD.findall(text):
        if word.lower() not in STOPWORDS:
            found.setdefault((stem(word.lower()), False), set()).add(number)
    return found


def number_agreement(asked: dict[tuple[str, bool], set[str]], text: str) -> float:
    """What a sentence gains or loses for the numbers beside the question's words."""
    if not asked:
        return 0.0
    given = numbered_words(text)
    agreement = 0.0
    for key, numbers in asked.items():
        if key not in given:
            continue
        agreement += SAME_NUMBER_BONUS if given[key] & numbers else -OTHER_NUMBER_PENALTY
    return agreement


def sentence_terms(text: str) -> list[str]:
    """``matching_terms``, and the parts of each hyphenated word after them: "pre-trained
    on a 12-trillion-token corpus" holds "trained" and "trillion" too."""
    terms = matching_terms(text)
    if HYPHEN_IN_WORD.search(text) is None:
        return terms
    seen = set(terms)
    return terms + [t for t in matching_terms(HYPHEN_IN_WORD.sub(" ", text)) if t not in seen]


def _term_weights(
    terms: list[str], rarity: Callable[[list[str]], dict[str, float]]
) -> dict[str, float]:
    """Each term's rarity; a pair of CJK characters weighs what its rarer character
    does, since the index counts characters (a pair is at least that rare)."""
    pairs = [term for term in terms if _CJK_PAIR.fullmatch(term)]
    characters = [char for pair in pairs for char in pair]
    looked_up = rarity([term for term in terms if term not in pairs] + characters)
    for pair in pairs:
        looked_up[pair] = max(looked_up.get(char, 1.0) for char in pair)
    return looked_up


def word_count(terms: Collection[str], cjk_pairs: Collection[str]) -> int:
    """How many words ``terms`` make: one each, but pairs of CJK characters (those of
    ``cjk_pairs``) overlap ("当事", "事人" are the one word "当事人"), so they make a
    word for every two characters they cover."""
    if not cjk_pairs:
        return len(terms)
    pairs = [term for term in terms if term in cjk_pairs]
    return len(terms) - len(pairs) + len({char for pair in pairs for char in pair}) // 2


@dataclass(frozen=True)
class AskedWords:
    """What of a question its evidence is scored by, worked out once per question."""

    weight_of: dict[str, float]  # each content word's stem, with its rarity
    total: float
    cjk_pairs: set[str]
    asked: int  # how many distinct content words it has
    pairs: set[tuple[str, str]]  # stems that stand side by side in it
    kind: str | None
    compounds: dict[str, tuple[str, ...]]
    numbered: dict[tuple[str, bool], set[str]]
    acronyms: AcronymMatcher
    # What an acronym's words may add to a sentence: the question's terms, and the
    # parts of its hyphenated ones ("DAAs" says "direct", "acting", so "direct-acting").
    spelled_stems: set[str]

    @classmethod
    def of(
        cls, question: str, rarity: Callable[[list[str]], dict[str, float]]
    ) -> AskedWords | None:
        terms = question_terms(question)
        if not terms:
            return None
        term_stems = [stem(term) for term in terms]
        weights = _term_weights(terms, rarity)
        weight_of = {
            s: max(weights.get(t, 1.0), 0.1) for t, s in zip(terms, term_stems, strict=True)
        }
        cjk_pairs = {s for s in weight_of if _CJK_PAIR.fullmatch(s)}
        compounds = {c: parts for c, parts in _compounds(question).items() if c in weight_of}
        return cls(
            weight_of=weight_of,
            total=sum(weight_of.values()),
            cjk_pairs=cjk_pairs,
            asked=word_count(weight_of.keys(), cjk_pairs),
            pairs=set(pairwise(term_stems)),
            kind=expected_kind(question),
            compounds=compounds,
            numbered=numbered_words(question),
            acronyms=AcronymMatcher.for_question(question),
            spelled_stems=set(weight_of) | {part for parts in compounds.values() for part in parts},
        )
