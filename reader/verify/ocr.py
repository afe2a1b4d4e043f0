"""What OCR misreads, and where it was unsure: the verifier's tolerance on scanned pages.

The canonical text of a page read by OCR is what the engine read, misreadings
included, while a person (or a model) quoting the document writes what the
paper says. On OCR'd text only, a quote that differs from the source just
where OCR confuses look-alike glyphs is the same statement, and verifies as
fuzzy with a reason saying the page was read by OCR:

- rn and m, cl and d, vv and w; l, 1, I and |; O and 0; S and 5; B and 8;
  f and t (the misreading bench/ocr_quotes.py finds most on poor scans);
- accents the engine added or dropped (ä and a, é and e), æ and ae, œ and oe;
  ß and ss, ligatures, quotes and dashes are one form in every key already.

A number is not a word. OCR may read a letter of a word as the digit it
resembles ("m0dern" for "modern"), but a digit the quote gives must be a digit
OCR read ("1O0" is not "100"), and a word OCR read as digits only ("10") is a
number the quote must give as read. A changed number is a miss however it came
about, unless the engine itself was unsure of the word: below
``UNCERTAIN_BELOW`` a number the quote gives may differ from the one read by a
misread digit or two, or by a letter read for a digit ("1O0" for "100"), and
the reason names the word and the engine's confidence, so the user checks the
page image. Words without digits get no such licence: a letter changed in a
word ("increase", "decrease") is a different statement at any confidence.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable, Sequence
from typing import Literal
from unicodedata import combining

from rapidfuzz.distance import Levenshtein

from reader.records import OcrConfidence
from reader.text.words import WORD_RUN

# Tesseract's word confidence (0 to 100) below which a number it read is not
# trusted over the quote's: there it is more often wrong than right. On 14
# corpus pages rendered at 200 to 75 dpi and read back (bench/ocr_quotes.py
# --confidence), Tesseract 5.3 misread 55% of the numbers it gave a confidence
# below 50 (67 of 122), 36% of those from 50 to 69, 15% from 70 to 89 and 1%
# at 90 or more. Above the line a quote that disagrees stays a miss: a true
# number left unlinked costs the reader a look at the page, a changed one
# linked (even flagged) costs the promise that links were checked.
UNCERTAIN_BELOW = 50.0

OcrDifference = Literal["misread", "uncertain"]

# Glyph groups OCR confuses, as one key character each (keys are case-folded).
_LOOKALIKE_GROUPS = (("rn", "m"), ("cl", "d"), ("vv", "w"), ("æ", "ae"), ("œ", "oe"))
_LOOKALIKE = str.maketrans({"1": "l", "i": "l", "|": "l", "0": "o", "5": "s", "8": "b", "f": "t"})
# Letters that OCR reads for the digits they resemble.
_DIGIT_LIKE = frozenset("li|osb")


class OcrReading:
    """Which words of a document's canonical text OCR read, and how sure it was of each.

    ``load`` gives the document's ``OcrConfidence`` records; it is called on
    first use, so a verifier that never needs them (every quote exact) never
    reads them.
    """

    def __init__(self, load: Callable[[], Sequence[OcrConfidence]]) -> None:
        self._load = load
        self._words: list[OcrConfidence] | None = None
        self._starts: list[int] = []

    @classmethod
    def of(cls, words: Sequence[OcrConfidence]) -> OcrReading:
        return cls(lambda: words)

    def _loaded(self) -> list[OcrConfidence]:
        if self._words is None:
            self._words = sorted(self._load(), key=lambda word: word.start)
            self._starts = [word.start for word in self._words]
        return self._words

    def has_words(self) -> bool:
        """Whether any of the document was read by OCR."""
        return bool(self._loaded())

    def confidence_at(self, offset: int) -> float | None:
        """The confidence of the OCR word holding canonical ``offset``; None where
        OCR read no word there (a page with a text layer)."""
        words = self._loaded()
        index = bisect_right(self._starts, offset) - 1
        if index < 0 or offset >= words[index].end:
            return None
        return words[index].confidence


def ocr_difference(
    intended: str, damaged: str, confidences: Sequence[float | None]
) -> OcrDifference | None:
    """How OCR could have read ``intended`` (a stretch of the quote's key) as
    ``damaged`` (the source's), whose words it read with ``confidences``.

    "misread": only look-alike glyphs differ; "uncertain": a number differs by
    a digit or two in words the engine was unsure of; None: neither, or some of
    the words were not read by OCR.
    """
    if not confidences or any(confidence is None for confidence in confidences):
        return None
    if _is_misreading(intended, damaged):
        return "misread"
    surest = max(confidence for confidence in confidences if confidence is not None)
    if surest < UNCERTAIN_BELOW and _is_uncertain_number(intended, damaged):
        return "uncertain"
    return None


def _is_misreading(intended: str, damaged: str) -> bool:
    """Whether the two read the same up to look-alike glyphs, no digit of the quote
    standing on a letter of the source, and no number of the source read as a word."""
    if any(token.isdigit() for token in WORD_RUN.findall(damaged)):
        return False
    quote_glyphs, source_glyphs = _glyphs(intended), _glyphs(damaged)
    if _looks(quote_glyphs) != _looks(source_glyphs):
        return False
    return all(
        source.isdigit() or not quote.isdigit()
        for quote, source in zip(quote_glyphs, source_glyphs, strict=True)
    )


def _glyphs(text: str) -> str:
    """``text`` as OCR sees it: each look-alike group as one glyph; accents, spaces
    and stray marks left out."""
    for group, glyph in _LOOKALIKE_GROUPS:
        text = text.replace(group, glyph)
    return "".join(char for char in text if (char.isalnum() or char == "|") and not combining(char))


def _looks(glyphs: str) -> str:
    """Glyphs OCR confuses as one: what a run of glyphs looks like on the page."""
    return glyphs.translate(_LOOKALIKE)


def _is_uncertain_number(intended: str, damaged: str) -> bool:
    """Whether the two read the same but in the digits of a number the quote gives:
    every letter as read, and no more than one digit in two of those read
    changed, added or dropped (a letter read for the digit it resembles, as
    "1O0" for "100", is no change)."""
    quote, source = _glyphs(intended), _glyphs(damaged)
    if not any(char.isdigit() for char in quote):
        return False
    read = sum(char.isdigit() or char in _DIGIT_LIKE for char in source)
    changed = 0
    for edit in Levenshtein.opcodes(source, quote):
        if edit.tag == "equal":
            continue
        quote_part = quote[edit.dest_start : edit.dest_end]
        source_part = source[edit.src_start : edit.src_end]
        if not all(char.isdigit() for char in quote_part + source_part if char not in _DIGIT_LIKE):
            return False  # a letter of the quote, or one read, is not part of a number
        if _looks(quote_part) != _looks(source_part):
            changed += max(len(quote_part), len(source_part))
    return changed <= max(1, read // 2)


def ocr_reason(misread: Sequence[str], uncertain: Sequence[tuple[str, float]], score: float) -> str:
    """Why a quote verified as fuzzy on a page read by OCR, in words a user acts on.

    ``misread`` holds the source's words that OCR read as look-alikes of the
    quote's; ``uncertain`` the words the engine was unsure of, with its
    confidence. Without either, the differences are the kind extraction makes
    (a word split or run together, a stray mark).
    """
    if uncertain:
        places = " and ".join(f"'{word}' (confidence {value:.0f}%)" for word, value in uncertain)
        return f"the page was read by OCR and is uncertain at {places}: check the page image"
    if misread:
        words = ", ".join(f"'{word}'" for word in dict.fromkeys(misread))
        how = f"look-alike characters OCR confuses: {words} as read"
    else:
        how = "reading errors: words split or run together, stray marks"
    return (
        f"the page was read by OCR and the quote differs from it only in {how} "
        f"(similarity {score:.0f}%)"
    )
