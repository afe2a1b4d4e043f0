"""Sentences: where each sentence of a text begins and ends.

One splitter for every stage: chunking cuts chunks at sentence ends, evidence
is chosen sentence by sentence, and the verifier reads a quote's sentence. It
lives here, with the other text helpers, so none of those stages imports
another to split a sentence.
"""

from __future__ import annotations

import re

__all__ = [
    "BEFORE_SENTENCE_START",
    "ENDS_AS_UNIT",
    "ENDS_SENTENCE",
    "PARAGRAPH_BREAK",
    "SENTENCE_END",
    "STARTS_SENTENCE",
    "inside_sentence",
    "sentence_spans",
]

PARAGRAPH_BREAK = re.compile(r"\n[ \t]*\n\s*")
# Zero-width spaces after the mark are where the reading view left out a
# footnote marker ("today.16 These"). The pattern starts with one character of
# a fixed set, which the search skips to (a pattern starting with a choice of
# two runs is tried at every character: three times slower, the same matches).
SENTENCE_END = re.compile(
    r"[.!?…。！？](?:(?<=[.!?…])[.!?…]*[\"'”’)\]]*|(?<=[。！？])[。！？]*[」』”’）]*)\u200b*\s+"
)
# Words whose full stop is not a sentence's end, whatever follows ("Dr. Smith",
# "e.g. Paris", "Fig. 3"); and an initial ("J. Smith").
# fmt: off
_NEVER_ENDS = frozenset([
    "mr", "mrs", "ms", "dr", "prof", "st", "sr", "jr", "vs", "cf", "e.g", "i.e", "fig",
    "figs", "no", "nos", "vol", "pp", "sec", "art", "ch", "eq", "approx", "gen", "gov",
    "sen", "rep", "jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep", "sept", "oct",
    "nov", "dec",
])
# A line ending in one of these runs on into the next: it is no heading.
_RUNS_ON = frozenset([
    "the", "a", "an", "of", "to", "in", "on", "at", "by", "for", "with", "from", "and",
    "or", "but", "that", "which", "is", "are", "was", "were", "as", "its", "their", "this",
])
# fmt: on
_LAST_WORD = re.compile(r"(?:^|[\s(\[\"'“‘])([A-Za-z](?:[A-Za-z.]*[A-Za-z])?)\.$")
_INITIAL = re.compile(r"(?:^|[\s(])[A-Z]\.$")
# A heading line: short, at a sentence's start, without a full stop, and the next
# line starts as a sentence does ("Age groups\nThe following definitions...").
_HEADING_LINE = re.compile(r"[^\n]{1,70}\n(?=[ \t]*[A-Z0-9“\"‘'(•])")
_HEADING_END = re.compile(r"[.!?,;:\-–—]\s*$")
MAX_HEADING_WORDS = 8


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """``[start, end)`` of each sentence of ``text``, surrounding whitespace excluded.

    Sentences end at ., !, ? (and their CJK forms) followed by whitespace, and
    at paragraph breaks (not at a blank line inside a sentence); not at an
    abbreviation or an initial ("U.S. operators", "Dr. Smith", "J. Smith"), nor
    where the next word starts in lower case. A heading line is a sentence of
    its own, never glued to the one after it.
    """
    cuts = {m.end() for m in PARAGRAPH_BREAK.finditer(text) if not inside_sentence(text, m)}
    cuts.add(len(text))
    cuts |= {m.end() for m in SENTENCE_END.finditer(text) if _ends_sentence(text, m)}
    spans = []
    start = 0
    for cut in sorted(cuts):
        piece = text[start:cut]
        stripped = piece.strip()
        if stripped:
            begin = start + (len(piece) - len(piece.lstrip()))
            spans.extend(_split_heading(text, begin, begin + len(stripped)))
        start = cut
    return spans


def _ends_sentence(text: str, match: re.Match[str]) -> bool:
    mark = match.group()
    if not mark.startswith("."):
        return True
    following = text[match.end() : match.end() + 1]
    if following.islower():
        return False  # "in U.S. operators", "e.g. the"
    before = text[max(0, match.start() - 24) : match.start() + 1]
    word = _LAST_WORD.search(before)
    if word and word.group(1).casefold() in _NEVER_ENDS:
        return False
    return not _INITIAL.search(before)


def _split_heading(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """The span, with a heading line at its start split off as a span of its own."""
    found = _HEADING_LINE.match(text, start, end)
    if found is None:
        return [(start, end)]
    line = text[start : found.end() - 1].strip()
    line_words = line.split()
    if (
        _HEADING_END.search(line)
        or len(line_words) > MAX_HEADING_WORDS
        or (not line[:1].isupper() and not line[:1].isdigit())
        or line_words[-1].casefold() in _RUNS_ON
    ):
        return [(start, end)]
    rest = found.end()
    while rest < end and text[rest].isspace():
        rest += 1
    if rest >= end:
        return [(start, end)]
    return [(start, start + len(line)), *_split_heading(text, rest, end)]


def inside_sentence(text: str, blank: re.Match[str]) -> bool:
    """Whether a blank line runs through a sentence: a page break ("set his net in
    the" / "river.") or a layout that puts a blank line after every line ("SVR rates
    increased to" / "90%."). A chunk cut there would end on half a sentence."""
    position = blank.start()
    while position > 0 and text[position - 1] in " \t":
        position -= 1
    before = text[position - 1 : position] if position else ""
    after = text[blank.end() : blank.end() + 1]
    return (before.islower() or before == ",") and (after.islower() or after.isdigit())


# -- a sentence's edges seen from one piece of text ----------------------------------
# The splitter above finds sentences in running text; these tell, of a piece
# already cut out, whether it ends or starts as a sentence does.

# A unit of evidence that ends as a statement, a list's lead-in or a clause does
# (``reader.retrieve.units``): ". ! ? : ;", then closing quotes or brackets.
ENDS_AS_UNIT = re.compile(r"[.!?:;][\"'”’)\]]*$")
# A word that ends a sentence (``reader.answer.spans``): ". ! ?", then closing
# quotes or brackets.
ENDS_SENTENCE = re.compile(r"[.!?][\"'\u2019\u201d)\]]*$")
# A word that may start one: a capital, a digit or a bullet, after opening
# quotes or brackets.
STARTS_SENTENCE = re.compile(r"^[\"'\u2018\u201c(\[]*[A-Z0-9\u2022]")
# The text before a word when that word starts a sentence (``reader.retrieve.mentions``):
# the start, a mark that ends a sentence and space, or an opening quote; not
# after "Mr." or an initial ("M. Theo Kearney").
BEFORE_SENTENCE_START = re.compile(
    r"(?:^|(?<!\bMr)(?<!\bMrs)(?<!\bMs)(?<!\bDr)(?<!\bSt)(?<!\b[A-Z])[.!?:;]\s+|[\"“(]\s*)$"
)
