"""Choosing evidence: the sentences of the retrieved passages that answer a question.

Chunk search finds the right neighbourhood; the answer is usually one
sentence in it. Each sentence of the candidate chunks is scored by the
question's content words it holds (matched by stem, a hyphenated word also by
its parts written apart, an acronym by the words it stands for; weighted by
how rare the word is in the library), with boosts for words that stand
together as in the question, for the kind of answer the question asks for (a
number for "how many", a year for "when"), for the question's own numbers
beside their words ("genotype 3", "24 weeks"; the same words with other
numbers are another case) and for the chunk's own search rank,
and lowered for what cannot be the answer: a heading, a question the text asks
without the sentence that replies, a list's lead-in without its list, back
matter (an index, contents, a list of works cited). The best few by words are
then reordered by meaning as well (their cosine with the question under a small
sentence model, ``reader.retrieve.meaning``), which sees a paraphrase words
miss. The best sentences become the evidence shown first and the quotes the
model may use.

When even the best sentence holds fewer than two of the question's content
words (for a question of two, fewer than its rarer one), the documents are
judged not to answer it: what was found shares a word with the question by
chance. Questions that only miss their point ("How many GPU hours...?"
against a report that gives every figure but that one) pass this test;
telling those apart takes understanding the question, which no lexical rule
has.
"""

from __future__ import annotations

import logging
import math
import re
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from itertools import pairwise

from reader.records import Chunk
from reader.retrieve.acronyms import AcronymMatcher
from reader.retrieve.answer_kinds import expected_kind, kind_bonus
from reader.retrieve.meaning import MeaningUnavailable, similarities
from reader.text.normalize import CJK_LETTERS, normalize_key
from reader.text.sentences import sentence_spans
from reader.text.words import STOPWORDS, stem, words

MIN_SENTENCE_CHARS = 25
MAX_SENTENCE_CHARS = 420
# A list's lead-in with its items may run longer than a sentence.
MAX_LIST_CHARS = 700
# Fewer of the question's distinct content words than this in the best
# evidence: the documents do not answer the question.
MIN_MATCHED_TERMS = 2
# The best candidates by words that are reordered by meaning as well, and how
# much a cosine with the question counts beside the score by words (about 1 for
# a sentence holding every content word). Measured on the sealed set in passages
# mode: evidence on the gold sentence 0.743 by words, 0.784 with meaning; more
# candidates bought nothing on the development set and cost about 8 ms each.
MEANING_CANDIDATES = 8
MEANING_WEIGHT = 1.0
# The share of a question's letters in the Latin alphabet below which meaning
# is left out (the sentence model reads English).
LATIN_SHARE = 0.8
# What a heading line loses, beyond what any unit not ending as a sentence does:
# it names what its section is about, and the sentences under it say it.
HEADING_PENALTY = 0.2

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
_log = logging.getLogger(__name__)
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
_LEADER_DOTS = re.compile(r"(?:\.\s?){4,}|_{4,}")
_SENTENCE_END = re.compile(r"[.!?:;][\"'”’)\]]*$")
_LIST_LEAD_IN = re.compile(r":[\"'”’)\]]*\s*$")
# A question the text asks ('"Did you save any of my books?"'): its answer follows.
_ASKS = re.compile(r"\?[\"'”’)\]]*\s*$")
# What a sentence of back matter loses (an index, contents, a list of works
# cited: ``Chunk.back_matter``): they hold the question's words and say nothing,
# so they rank below any sentence of the body holding as many.
BACK_MATTER_PENALTY = 1.0
# Items of a list its lead-in may bring along (sentences, as segmented).
LIST_ITEMS = 4
_LIST_ITEM = re.compile(r"\s*(?:[•·▪◦‣*–-]|\(?\d{1,2}[.)]|\(?[a-z][.)])\s")


@dataclass(frozen=True, slots=True)
class Evidence:
    """A sentence of a chunk as read: ``chunk.reading_text[start:end] == text``.

    The reading text has the chunk's offsets (see ``reader.text.reading_view``), so
    ``chunk.start + start`` is where the sentence begins in the canonical text.
    """

    chunk: Chunk
    start: int
    end: int
    text: str
    score: float
    coverage: float  # share of the question's weighted content words it holds
    matched: int  # how many distinct content words of the question it holds
    asked: int  # how many distinct content words the question has
    holds_rarest: bool  # whether it holds the question's rarest word in the library
    # The matching keys of its sentences (one, or a pair): what "the same sentence" means.
    sentences: tuple[str, ...] = ()
    # Whether it reads as a statement: not a heading, a question without its reply,
    # a list's lead-in without its list, nor back matter.
    # Those are about what the question asks without answering it, so meaning,
    # which sees what a sentence is about, adds nothing to them.
    states: bool = True


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


# A hyphen between two letters or digits, and a word made of parts joined by them.
_HYPHEN = re.compile(r"(?<=[^\W_])[-\u2010\u2011](?=[^\W_])")
_HYPHENATED = re.compile(r"[^\W_]+(?:[-\u2010\u2011][^\W_]+)+")


def _compounds(question: str) -> dict[str, tuple[str, ...]]:
    """The stems of the question's hyphenated words, each with the stems of its parts:
    a sentence that says "12 trillion token" says "12-trillion-token"."""
    found: dict[str, tuple[str, ...]] = {}
    for hyphenated in _HYPHENATED.findall(question):
        parts = matching_terms(_HYPHEN.sub(" ", hyphenated))
        for joined in matching_terms(hyphenated):
            if joined in parts:
                continue
            for first in range(len(parts)):
                for last in range(first + 2, len(parts) + 1):
                    if "".join(parts[first:last]) == joined:
                        found[stem(joined)] = tuple(stem(part) for part in parts[first:last])
    return found


# A word and the number that tells which one it is: "genotype 3", "24 weeks",
# "version 2.4" (a number written before or after its word).
_WORD_NUMBER = re.compile(r"(?<![\w.])([^\W\d_]{3,})\s+(\d+(?:[.,]\d+)*)(?![\w.,]*\d)")
_NUMBER_WORD = re.compile(r"(?<![\w.,])(\d+(?:[.,]\d+)*)\s+([^\W\d_]{3,})")
# What a sentence loses for each of the question's numbered words it gives only
# with another number: asked about genotype 3 after 24 weeks, a sentence on
# genotype 5 after 12 weeks is about another case.
OTHER_NUMBER_PENALTY = 0.2
# What it gains for giving one with the question's own number: as much as two of
# the question's words standing together.
SAME_NUMBER_BONUS = 0.15


def _numbered_words(text: str) -> dict[tuple[str, bool], set[str]]:
    """Each word written beside a number, by its stem and whether the number
    follows it, with the numbers it stands beside."""
    found: dict[tuple[str, bool], set[str]] = {}
    for word, number in _WORD_NUMBER.findall(text):
        if word.lower() not in STOPWORDS:
            found.setdefault((stem(word.lower()), True), set()).add(number)
    for number, word in _NUMBER_WORD.findall(text):
        if word.lower() not in STOPWORDS:
            found.setdefault((stem(word.lower()), False), set()).add(number)
    return found


def _number_agreement(asked: dict[tuple[str, bool], set[str]], text: str) -> float:
    """What a sentence gains or loses for the numbers beside the question's words."""
    if not asked:
        return 0.0
    given = _numbered_words(text)
    agreement = 0.0
    for key, numbers in asked.items():
        if key not in given:
            continue
        agreement += SAME_NUMBER_BONUS if given[key] & numbers else -OTHER_NUMBER_PENALTY
    return agreement


def _sentence_terms(text: str) -> list[str]:
    """``matching_terms``, and the parts of each hyphenated word after them: "pre-trained
    on a 12-trillion-token corpus" holds "trained" and "trillion" too."""
    terms = matching_terms(text)
    if _HYPHEN.search(text) is None:
        return terms
    seen = set(terms)
    return terms + [t for t in matching_terms(_HYPHEN.sub(" ", text)) if t not in seen]


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


def _word_count(terms: Collection[str], cjk_pairs: Collection[str]) -> int:
    """How many words ``terms`` make: one each, but pairs of CJK characters (those of
    ``cjk_pairs``) overlap ("当事", "事人" are the one word "当事人"), so they make a
    word for every two characters they cover."""
    if not cjk_pairs:
        return len(terms)
    pairs = [term for term in terms if term in cjk_pairs]
    return len(terms) - len(pairs) + len({char for pair in pairs for char in pair}) // 2


def choose_evidence(
    question: str,
    ranked_chunks: Sequence[Chunk],
    rarity: Callable[[list[str]], dict[str, float]],
    limit: int = 4,
) -> list[Evidence]:
    """The best sentences of ``ranked_chunks`` (best chunk first), best first.

    ``rarity`` maps question terms to a weight (inverse document frequency).
    """
    terms = question_terms(question)
    if not terms:
        return []
    term_stems = [stem(term) for term in terms]
    weights = _term_weights(terms, rarity)
    weight_of = {s: max(weights.get(t, 1.0), 0.1) for t, s in zip(terms, term_stems, strict=True)}
    total = sum(weight_of.values())
    rarest = max(weight_of, key=weight_of.__getitem__)
    cjk_pairs = {s for s in weight_of if _CJK_PAIR.fullmatch(s)}
    asked = _word_count(weight_of.keys(), cjk_pairs)
    pairs = set(pairwise(term_stems))
    kind = expected_kind(question)
    compounds = {c: parts for c, parts in _compounds(question).items() if c in weight_of}
    numbered = _numbered_words(question)
    acronyms = AcronymMatcher.for_question(question)
    # What an acronym's words may add to a sentence: the question's terms, and the
    # parts of its hyphenated ones ("DAAs" says "direct", "acting", so "direct-acting").
    spelled_stems = weight_of.keys() | {part for parts in compounds.values() for part in parts}

    scored: list[Evidence] = []
    for rank, chunk in enumerate(ranked_chunks):
        heading_stems = {stem(t) for t in matching_terms(chunk.heading_path)}
        back_matter = chunk.back_matter
        in_heading = sum(weight_of[s] for s in heading_stems & weight_of.keys()) / total
        # Page furniture left out, so a sentence runs on across a page break.
        reading = chunk.reading_text
        spans = [
            (start, end)
            for start, end in sentence_spans(reading)
            if not _LEADER_DOTS.search(reading[start:end])  # a table of contents line
        ]
        stems = [[stem(t) for t in _sentence_terms(reading[start:end])] for start, end in spans]
        for piece, (start, end) in zip(stems, spans, strict=True) if acronyms else ():
            said = {stem(word) for word in acronyms.held_words(reading[start:end])}
            piece.extend(sorted((said & spelled_stems) - set(piece)))
        for piece in stems if compounds else ():
            held = set(piece)
            piece.extend(
                c for c, parts in compounds.items() if c not in held and held >= set(parts)
            )
        keys = [normalize_key(reading[start:end]) for start, end in spans]
        # A sentence alone, or with the next one: the answer often follows the
        # sentence that names the topic ("They demanded $12,000..."). A sentence
        # that introduces a list ("the regimens for children aged 3 to 11 are:")
        # also with the items that follow it, up to the longest evidence allowed,
        # and a pair ending in a question with the sentence that replies.
        # A heading (a line that does not end as a sentence does) is a unit of its
        # own, never run into the sentences before or under it.
        ends = [_SENTENCE_END.search(reading[start:end]) is not None for start, end in spans]
        headings = [
            not ended and _whole_line(reading, start, end)
            for ended, (start, end) in zip(ends, spans, strict=True)
        ]
        for index, (start, _) in enumerate(spans):
            for last in (index, _unit_end(reading, spans, index)) if ends[index] else (index,):
                if last >= len(spans) or any(headings[index + 1 : last + 1]):
                    continue
                end = spans[last][1]
                text = reading[start:end]
                longest = MAX_LIST_CHARS if last > index + 1 else MAX_SENTENCE_CHARS
                if not MIN_SENTENCE_CHARS <= len(text) <= longest:
                    continue
                unit = [s for piece in stems[index : last + 1] for s in piece]
                present = set(unit) & weight_of.keys()
                if not present:
                    continue
                coverage = sum(weight_of[s] for s in present) / total
                adjacent = sum(1 for a, b in pairwise(unit) if (a, b) in pairs)
                unended = not _SENTENCE_END.search(text)
                lead_in = _introduces_list(text)
                asks = _ASKS.search(text) is not None
                score = (
                    coverage
                    + 0.15 * min(adjacent, 3)
                    + 0.2 * in_heading
                    + kind_bonus(kind, text)
                    + _number_agreement(numbered, text)
                    - 0.02 * rank
                    # Longer quotes hold more words by chance.
                    - 0.05 * math.log(max(len(unit), 12) / 12)
                    - (0.2 if unended else 0.0)
                    - (HEADING_PENALTY if headings[index] else 0.0)
                    # A list's lead-in without its list says what is asked, not the answer.
                    - (0.2 if lead_in else 0.0)
                    # So does a question without its reply.
                    - (0.2 if asks else 0.0)
                    - (BACK_MATTER_PENALTY if back_matter else 0.0)
                )
                scored.append(
                    Evidence(
                        chunk,
                        start,
                        end,
                        text,
                        score,
                        coverage,
                        _word_count(present, cjk_pairs),
                        asked,
                        rarest in present,
                        tuple(keys[index : last + 1]),
                        not (headings[index] or back_matter or lead_in or asks or unended),
                    )
                )
    scored.sort(key=lambda e: (-e.score, e.chunk.seq, e.start))
    return _without_overlaps(_with_meaning(question, scored))[:limit]


def _with_meaning(question: str, ranked: list[Evidence]) -> list[Evidence]:
    """``ranked`` with its best ``MEANING_CANDIDATES`` reordered by words and meaning.

    Each keeps its score by words and gains ``MEANING_WEIGHT`` times its cosine
    with the question (``reader.retrieve.meaning``), so a sentence that says
    "dismiss the case" can pass one that repeats "lawsuit". Without the
    sentence model (a broken install), the order by words stands.
    """
    head = ranked[:MEANING_CANDIDATES]
    if len(head) < 2 or not _in_latin_script(question):
        return ranked
    # A unit of several sentences (a pair, a lead-in with its list) means at least
    # what its closest sentence means: otherwise the lead-in alone, which echoes
    # the question, would pass the lead-in with the list that answers it.
    parts = [_sentences_of(item) for item in head]
    texts = list(dict.fromkeys([item.text for item in head] + [p for ps in parts for p in ps]))
    try:
        cosine_of = dict(zip(texts, similarities(question, texts), strict=True))
    except MeaningUnavailable as error:
        _log.warning("evidence chosen by words alone: %s", error)
        return ranked
    cosines = [
        max([cosine_of[item.text], *(cosine_of[p] for p in ps)]) if item.states else 0.0
        for item, ps in zip(head, parts, strict=True)
    ]
    order = sorted(range(len(head)), key=lambda i: -(head[i].score + MEANING_WEIGHT * cosines[i]))
    return [head[i] for i in order] + ranked[MEANING_CANDIDATES:]


def _in_latin_script(question: str) -> bool:
    """Whether the question is written in the Latin alphabet: the sentence model
    learned English, and on Chinese it put a sentence without the answer first."""
    letters = [c for c in question if c.isalpha()]
    return bool(letters) and sum(c <= "\u024f" for c in letters) >= LATIN_SHARE * len(letters)


def _sentences_of(item: Evidence) -> list[str]:
    """The sentences of a unit of more than one, as read; none for a sentence."""
    if len(item.sentences) < 2:
        return []
    return [
        item.text[start:end].strip()
        for start, end in sentence_spans(item.text)
        if end - start >= MIN_SENTENCE_CHARS
    ]


def _without_overlaps(evidence: list[Evidence]) -> list[Evidence]:
    """Best first, dropping any candidate that overlaps a better one.

    Two candidates overlap when they share characters of one chunk (a sentence
    and a pair holding it, two pairs sharing a sentence) or a sentence of the
    same words in two places (a paragraph repeated in a chunk or a document
    further on, a second copy of a document): the evidence shown never says the
    same sentence twice.
    """
    kept: list[Evidence] = []
    taken: dict[str, list[tuple[int, int]]] = {}
    said: set[str] = set()
    for item in evidence:
        spans = taken.setdefault(item.chunk.id, [])
        if any(item.start < end and start < item.end for start, end in spans):
            continue
        if said.intersection(item.sentences):
            continue
        spans.append((item.start, item.end))
        said.update(item.sentences)
        kept.append(item)
    return kept


def _whole_line(reading: str, start: int, end: int) -> bool:
    """Whether ``reading[start:end]`` is a line of its own, not a list item."""
    before = reading[:start].rstrip(" \t")
    after = reading[end:].lstrip(" \t")
    return (
        (not before or before.endswith("\n"))
        and (not after or after.startswith("\n"))
        and not _LIST_ITEM.match(reading[start:end])
    )


def _introduces_list(text: str) -> bool:
    return _LIST_LEAD_IN.search(text) is not None


def _unit_end(reading: str, spans: list[tuple[int, int]], index: int) -> int:
    """The last sentence of the longer unit starting at sentence ``index``: the
    next one; where either introduces a list, the items that follow it too (those
    marked as items, up to ``LIST_ITEMS`` and the longest list evidence allowed),
    so a lead-in ("The three priority areas are:") never ends the evidence; where
    the next one asks a question, the sentence after it, which replies."""
    start, end = spans[index]
    lead_in = index if _introduces_list(reading[start:end]) else index + 1
    if lead_in >= len(spans) or not _introduces_list(reading[slice(*spans[lead_in])]):
        asks = index + 2 < len(spans) and _ASKS.search(reading[slice(*spans[index + 1])])
        return index + 2 if asks else index + 1
    last = lead_in
    for following in range(lead_in + 1, min(lead_in + 1 + LIST_ITEMS, len(spans))):
        item_start, item_end = spans[following]
        if not _LIST_ITEM.match(reading[item_start:item_end]):
            break
        if item_end - start > MAX_LIST_CHARS:
            break
        last = following
    return max(last, index + 1)


def answers_question(evidence: Sequence[Evidence]) -> bool:
    """Whether the best evidence holds enough of the question to answer it."""
    if not evidence:
        return False
    # The best by its words: meaning may put first a sentence that paraphrases.
    best = max(evidence, key=lambda item: item.score)
    if best.matched >= min(MIN_MATCHED_TERMS, best.asked):
        return True
    # "How did revenue change?": two words, the rare one found, the other paraphrased.
    return best.asked == MIN_MATCHED_TERMS and best.holds_rarest
