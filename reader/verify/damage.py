"""What extraction damage looks like, as opposed to a different statement.

A quote whose words differ from the source only where extraction could have
damaged the text (a ligature glyph without a Unicode mapping, a word split or
run together, stray marks, look-alike glyphs) is the same statement; any other
letter or word added, dropped or changed is not. Numbers and negations must
survive whole.

On text read by OCR the engine's misreadings count as damage too (see
``reader.verify.ocr``): the caller says which characters OCR read, and how
sure it was, with ``ocr_confidence``.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from difflib import SequenceMatcher
from typing import NamedTuple

from rapidfuzz import fuzz
from rapidfuzz.distance import Levenshtein

from reader.text.words import WORD_RUN
from reader.verify.ocr import OcrDifference, ocr_difference

FUZZY_MIN_SCORE = 85.0
_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
_NEGATION = re.compile(
    r"\b(?:not|no|never|none|nor|neither|nobody|nothing|nowhere|cannot|without|"
    r"nicht|kein\w*|nie|pas|non|jamais|nunca|nada)\b|n't\b"
)
# Glyph look-alikes that extraction confuses, as (source, quote).
_LOOKALIKES = {("l", "i"), ("i", "l"), ("rn", "m"), ("m", "rn"), ("cl", "d")}
# What a Latin ligature glyph stands for, when extraction lost it.
_LIGATURE_LETTERS = {"ff", "fi", "fl", "ffi", "ffl", "ft", "st"}

# OCR's confidence in the word holding a position of the text; None where OCR read nothing.
OcrConfidenceAt = Callable[[int], float | None]
_Word = tuple[str, int, int]  # a word of a key, and its [start, end) in the key


class _OcrRead(NamedTuple):
    """Words OCR read otherwise than the quote gives them: their ranges in the quote
    and the text, how OCR came to read them so, and its confidence in them."""

    quote: tuple[int, int]
    text: tuple[int, int]
    how: OcrDifference
    confidence: float


@dataclass(frozen=True, slots=True)
class Alignment:
    """Where a damaged copy of a quote lies in a text, ``[start, end)``, how similar
    it is, and the ``[start, end)`` ranges of the text that OCR misread or was
    uncertain of (with its confidence there)."""

    start: int
    end: int
    score: float
    misread: tuple[tuple[int, int], ...] = ()
    uncertain: tuple[tuple[int, int, float], ...] = ()

    def shifted(self, by: int) -> Alignment:
        """The same alignment in a text ``by`` characters longer at its start."""
        return Alignment(
            self.start + by,
            self.end + by,
            self.score,
            tuple((start + by, end + by) for start, end in self.misread),
            tuple((start + by, end + by, value) for start, end, value in self.uncertain),
        )


def align_damaged(
    quote: str, text: str, ocr_confidence: OcrConfidenceAt | None = None
) -> Alignment | None:
    """Find the stretch of ``text`` that ``quote`` is a damaged copy of.

    Both arguments are normalisation keys. Returns the alignment in ``text`` or
    None when the only alignment found changes what is said.
    """
    quote_words = [(m.group(0), m.start(), m.end()) for m in WORD_RUN.finditer(quote)]
    text_words = [(m.group(0), m.start(), m.end()) for m in WORD_RUN.finditer(text)]
    if not quote_words or not text_words:
        return None
    matcher = SequenceMatcher(
        None, [w[0] for w in quote_words], [w[0] for w in text_words], autojunk=False
    )
    opcodes: list[tuple[str, int, int, int, int]] = list(matcher.get_opcodes())
    # Text words before the quote's first word or after its last are context.
    while opcodes and opcodes[0][0] == "insert":
        opcodes.pop(0)
    while opcodes and opcodes[-1][0] == "insert":
        opcodes.pop()
    if not opcodes or all(op[0] != "equal" for op in opcodes):
        return None
    opcodes = _trim_edge(opcodes, quote_words, text_words, first=True)
    opcodes = _trim_edge(opcodes, quote_words, text_words, first=False)

    ocr_read: list[_OcrRead] = []
    for tag, q1, q2, t1, t2 in opcodes:
        if tag == "equal":
            continue
        if tag in ("delete", "insert"):
            return None  # a word added or dropped
        if ocr_confidence is not None and all(
            ocr_confidence(word[1]) is not None for word in text_words[t1:t2]
        ):
            reads = _ocr_reads(quote, text, quote_words[q1:q2], text_words[t1:t2], ocr_confidence)
            if reads is None:
                return None
            ocr_read.extend(reads)
        elif not _is_extraction_damage(_joined(quote_words[q1:q2]), _joined(text_words[t1:t2])):
            return None

    first, last = opcodes[0], opcodes[-1]
    start = text_words[first[3]][1]
    end = text_words[last[4] - 1][2]
    matched = text[start:end]
    core_quote = quote[quote_words[first[1]][1] : quote_words[last[2] - 1][2]]
    # What OCR read differently is checked above; the quote's reading stands in for it.
    as_quoted = matched
    for read in reversed(ocr_read):
        (q_start, q_end), (t_start, t_end) = read.quote, read.text
        as_quoted = as_quoted[: t_start - start] + quote[q_start:q_end] + as_quoted[t_end - start :]
    if _NUMBER.findall(core_quote) != _NUMBER.findall(as_quoted):
        return None
    if len(_NEGATION.findall(core_quote)) != len(_NEGATION.findall(as_quoted)):
        return None
    if fuzz.ratio(quote, as_quoted) < FUZZY_MIN_SCORE:
        return None
    return Alignment(
        start,
        end,
        fuzz.ratio(quote, matched),
        tuple(read.text for read in ocr_read if read.how == "misread"),
        tuple((*read.text, read.confidence) for read in ocr_read if read.how == "uncertain"),
    )


def _ocr_reads(
    quote: str,
    text: str,
    quote_words: list[_Word],
    text_words: list[_Word],
    ocr_confidence: OcrConfidenceAt,
) -> list[_OcrRead] | None:
    """How OCR read the quote's words as the text's, word for word where their
    numbers agree (else all together: a word split or run together); None if
    it cannot have, even allowing for extraction damage."""
    if len(quote_words) == len(text_words):
        pairs = [([q], [t]) for q, t in zip(quote_words, text_words, strict=True)]
    else:
        pairs = [(quote_words, text_words)]
    reads = []
    for quote_part, text_part in pairs:
        if _joined(quote_part) == _joined(text_part):
            continue  # only split or run together
        quote_range = (quote_part[0][1], quote_part[-1][2])
        text_range = (text_part[0][1], text_part[-1][2])
        confidences = [ocr_confidence(word[1]) for word in text_part]
        how = ocr_difference(quote[slice(*quote_range)], text[slice(*text_range)], confidences)
        if how is not None:
            surest = max(value for value in confidences if value is not None)
            reads.append(_OcrRead(quote_range, text_range, how, surest))
        elif not _is_extraction_damage(_joined(quote_part), _joined(text_part)):
            # A space read in the wrong place moves letters between words.
            whole = _is_extraction_damage(_joined(quote_words), _joined(text_words))
            return [] if whole else None
    return reads


def _joined(words: list[_Word]) -> str:
    return "".join(word[0] for word in words)


def _trim_edge(
    opcodes: list[tuple[str, int, int, int, int]],
    quote_words: list[tuple[str, int, int]],
    text_words: list[tuple[str, int, int]],
    first: bool,
) -> list[tuple[str, int, int, int, int]]:
    """Drop context words folded into a replacement at the quote's edge."""
    index = 0 if first else -1
    tag, q1, q2, t1, t2 = opcodes[index]
    if tag != "replace" or t2 - t1 <= 1:
        return opcodes
    intended = "".join(w[0] for w in quote_words[q1:q2])
    best_range, best_score = (t1, t2), -1.0
    for cut in range(t1, t2):
        candidate = (cut, t2) if first else (t1, cut + 1)
        damaged = "".join(w[0] for w in text_words[candidate[0] : candidate[1]])
        score = Levenshtein.normalized_similarity(intended, damaged)
        if score > best_score:
            best_range, best_score = candidate, score
    trimmed = list(opcodes)
    trimmed[index] = (tag, q1, q2, best_range[0], best_range[1])
    return trimmed


def _is_extraction_damage(intended: str, damaged: str) -> bool:
    """Whether ``damaged`` (source) could be ``intended`` (quote) mangled by extraction.

    Both are words run together without spaces, so split and merged words
    compare equal. Allowed: letters lost where a ligature glyph had no
    Unicode mapping ("nd" for "find"), garbage characters in the source in
    place of letters or between them, and look-alike glyphs. Not allowed: any
    other letter added, dropped or replaced, which is how one word becomes
    another ("likely" and "unlikely", "increase" and "decrease").
    """
    if intended == damaged:
        return True
    if re.sub(r"\D", "", intended) != re.sub(r"\D", "", damaged):
        return False
    changed = 0
    for opcode in Levenshtein.opcodes(damaged, intended):
        if opcode.tag == "equal":
            continue
        source_part = damaged[opcode.src_start : opcode.src_end]
        quote_part = intended[opcode.dest_start : opcode.dest_end]
        changed += max(len(source_part), len(quote_part))
        if not source_part and _is_garbage(quote_part):
            continue  # punctuation the source lacks
        if (
            source_part
            and _is_garbage(source_part)
            and (_is_garbage(quote_part) or quote_part in _LIGATURE_LETTERS or len(quote_part) == 1)
        ):
            continue  # a glyph with no Unicode mapping, or stray marks
        if not source_part and quote_part in _LIGATURE_LETTERS:
            continue  # a ligature that extraction dropped altogether
        if (source_part, quote_part) in _LOOKALIKES:
            continue
        return False
    return changed <= max(3, len(intended) // 5)


def _is_garbage(text: str) -> bool:
    return not any(char.isalnum() for char in text)
