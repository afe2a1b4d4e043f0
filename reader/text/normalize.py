"""Normalisation for matching quotes against source text, with an offset map.

A model copies a quote from a passage, and on the way curly quotes become
straight, line breaks become spaces, ligatures become letters and words split
across a line end get joined. To match such a quote we compare *keys*: both the
quote and the source are normalised the same way. The source key keeps, for
every key character, the index of the canonical-text character it came from, so
a match found in the key maps back to exactly the quoted characters of the
canonical text, however many characters normalisation removed or expanded
before or inside the match.

What the key folds together:
- Unicode compatibility forms (NFKD per character): ligatures such as U+FB01,
  Arabic presentation forms, full-width letters, the ellipsis;
- case (``str.casefold``);
- curly, straight and prime quotes and apostrophes; every dash and minus;
- runs of whitespace and line breaks (one space), and whitespace beside a
  CJK character (none: some PDFs space every ideograph, and OCR spaces the
  digits and Latin letters of a Chinese sentence: "2017 年 9 月 7 日 ,");
- soft hyphens and zero-width characters (removed);
- hyphens between two letters, with or without a line break after them
  (removed), so "con-\\ntinued", "continued" and "well-known"/"wellknown"
  compare equal;
- the space after a sentence's closing punctuation before a letter
  (removed), so "copyright. When" and "copyright.When" compare equal.
"""

from __future__ import annotations

import re
import unicodedata
from array import array
from dataclasses import dataclass

_DROPPED = "\u00ad\u200b\u200c\u200d\u2060\ufeff"
_SINGLE_QUOTES = "'`\u2018\u2019\u201a\u201b\u2032\u2035\u00b4\u02bc\u02b9\uff07"
_DOUBLE_QUOTES = '"\u201c\u201d\u201e\u201f\u2033\u2036\u00ab\u00bb\u02ba\uff02'
_DASHES = "-\u2010\u2011\u2012\u2013\u2014\u2015\u2212\u2043\ufe58\ufe63\uff0d\u2e3a\u2e3b"

# The letters of Chinese, Japanese and Korean (ideographs, kana, Hangul), as a
# regular-expression class body: scripts whose words are not spaced, or whose
# PDFs space every character.
CJK_LETTERS = (
    "\u1100-\u11ff\u3040-\u30ff\u3100-\u312f\u3130-\u318f\u3400-\u4dbf\u4e00-\u9fff"
    "\ua960-\ua97f\uac00-\ud7ff\uf900-\ufaff"
)
# ... and their punctuation and full-width forms.
CJK_CHARACTERS = CJK_LETTERS + "\u2e80-\u2fdf\u3000-\u303f\uff00-\uffef"
_LETTER_BEFORE = r"(?:(?<=[^\W\d_])|(?<=[\u0300-\u036f]))"
_LETTER_AFTER = r"(?=[^\W\d_])"
# Characters of the first-pass key that the second pass deletes: a hyphen
# joining two letters (and any spaces after it), spaces beside a CJK
# character, every space or dash after the first in a run ("--" typed
# for an em dash), and the space between a word's closing full stop (or
# colon, semicolon, question or exclamation mark) and the next word, which
# PDFs often leave out ("copyright.When"), and a backslash before "[": the
# terminal escapes a bracket before a digit so it cannot pass for a claim
# marker ("\[2019]13"), and a quote copied from there must still match;
# and a hyphen after a letter at the very end.
_DELETIONS = re.compile(
    _LETTER_BEFORE
    + r"- *"
    + _LETTER_AFTER
    + rf"|(?<=[{CJK_CHARACTERS}]) +| +(?=[{CJK_CHARACTERS}])"
    + r"|(?<= ) +"
    + r"|(?<=-)-+"
    + r"|(?<=[.!?;:]) +(?=[^\W\d_])"
    + r"|\\(?=\[)"
    # A hyphen that ends the text after a letter: a quote that stops where a line
    # broke a word ("from Soekarno-") means the word the text joins.
    + "|"
    + _LETTER_BEFORE
    + r"-+ *$"
)

# One CJK character (letter, punctuation or full-width form).
CJK_CHARACTER = re.compile(f"[{CJK_CHARACTERS}]")

_CLOSING_MARKS = (". ", "! ", "? ", "; ", ": ")

# ord -> replacement, filled lazily for every character seen.
_TABLE: dict[int, str] = {}
_KNOWN: set[str] = set()


def _fold_char(char: str) -> str:
    if char in _DROPPED:
        return ""
    if char in _SINGLE_QUOTES:
        return "'"
    if char in _DOUBLE_QUOTES:
        return '"'
    if char in _DASHES:
        return "-"
    if char.isspace():
        return " "
    decomposed = unicodedata.normalize("NFKD", char).casefold()
    if decomposed == char:
        return char
    # Compatibility decomposition can itself yield quotes, dashes or spaces
    # (a full-width quote, a no-break space inside a ligature form).
    return "".join(_fold_char(part) if part != char else part for part in decomposed)


def _ensure_table(text: str) -> None:
    new = set(text)
    new.difference_update(_KNOWN)
    for char in new:
        _TABLE[ord(char)] = _fold_char(char)
    _KNOWN.update(new)


@dataclass(frozen=True, slots=True)
class NormalizedText:
    """A matching key and, for each key character, its index in the source."""

    key: str
    origin: array  # array('q'): origin[i] is the source index of key[i]

    def span(self, key_start: int, key_end: int) -> tuple[int, int]:
        """Source ``[start, end)`` covering key characters ``[key_start, key_end)``."""
        return self.origin[key_start], self.origin[key_end - 1] + 1


def normalize_key(text: str) -> str:
    """The matching key of ``text``, stripped of surrounding spaces."""
    _ensure_table(text)
    # Every whitespace character is a space by now; split() collapses runs.
    first = " ".join(text.translate(_TABLE).split())
    # Most quotes hold nothing else the second pass deletes; skip the regex then.
    if (
        "-" in first
        or "\\[" in first
        or any(mark in first for mark in _CLOSING_MARKS)
        or (not first.isascii() and CJK_CHARACTER.search(first))
    ):
        return _DELETIONS.sub("", first).strip(" ")
    return first


def normalize(text: str, offset: int = 0) -> NormalizedText:
    """The matching key of ``text`` with its offset map back into ``text``, whose
    first character is character ``offset`` of the text the map points into."""
    _ensure_table(text)
    first = text.translate(_TABLE)
    origin = _first_pass_origin(text, len(first), offset)

    key_parts: list[str] = []
    key_origin = array("q")
    kept_from = 0
    for match in _DELETIONS.finditer(first):
        key_parts.append(first[kept_from : match.start()])
        key_origin.extend(origin[kept_from : match.start()])
        kept_from = match.end()
    key_parts.append(first[kept_from:])
    key_origin.extend(origin[kept_from:])
    return NormalizedText("".join(key_parts), key_origin)


def _first_pass_origin(text: str, first_length: int, offset: int = 0) -> array:
    """Origin map of ``text.translate(_TABLE)``.

    Most characters map to exactly one key character, so the map is the
    identity except around the few that expand (a ligature) or vanish (a soft
    hyphen); only those are visited one by one.
    """
    if first_length == len(text):
        irregular = [c for c in set(text) if len(_TABLE[ord(c)]) != 1]
        if not irregular:
            return array("q", range(offset, offset + len(text)))
    else:
        irregular = [c for c in set(text) if len(_TABLE[ord(c)]) != 1]
    origin = array("q")
    pattern = re.compile("[" + "".join(re.escape(c) for c in irregular) + "]")
    previous = 0
    for match in pattern.finditer(text):
        index = match.start()
        origin.extend(range(offset + previous, offset + index))
        origin.extend([offset + index] * len(_TABLE[ord(text[index])]))
        previous = index + 1
    origin.extend(range(offset + previous, offset + len(text)))
    assert len(origin) == first_length
    return origin
