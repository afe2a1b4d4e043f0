"""Words as reader compares them: tokens, stems, stop words, and the index's forms.

The grounding check, evidence choice and the judge read a claim, a quote or a
question as words in one form (folded like quotes are, lower case, CJK runs
split into characters); the full-text index reads text in its own form
(``search_form``, ``porter_stem``), which a query must match.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

import snowballstemmer

from reader.text.normalize import CJK_CHARACTER, CJK_LETTERS, normalize_key

_WORD = re.compile(r"[^\W_]+(?:[.,][0-9]+)*", re.UNICODE)
# A run of letters of the CJK scripts.
CJK_RUN = re.compile(f"[{CJK_LETTERS}]+")
# A run of word characters (letters, digits, "_"), where a word is compared as
# written, not as a search term.
WORD_RUN = re.compile(r"\w+")
# A run of letters, any script, without digits or "_": "RoPE" in "RoPE-based",
# "Qwen" in "Qwen2". Acronyms are read from these.
LETTER_RUN = re.compile(r"[^\W\d_]+")
# Two letters or more in a row: what tells a title from a date or a number.
TWO_LETTERS = re.compile(r"[^\W\d_]{2,}")
# A Latin word with its apostrophes and hyphens ("don't", "pre-train"), or a
# number as written ("4.5", "12,000"): the words between a count and what it counts.
LATIN_WORD_OR_NUMBER = re.compile(r"[A-Za-z][\w'\-]*|\d[\d,.]*")
# A word as a name writes it, with what a name may carry inside it ("Qwen2-72B",
# "HTTP/1.1", "C++", "O'Brien"), and not the tail of such a word.
NAME_WORD = re.compile(r"(?<![\w'’\-/.+])[^\W\d_][\w'’\-/+.]*")
# A word of three letters or more and the number after it ("genotype 3",
# "version 2.4"), not a number that starts a code ("type 1N1" is no type 1):
# groups word, number.
WORD_THEN_NUMBER = re.compile(r"(?<![\w.])([^\W\d_]{3,})\s+(\d+(?:[.,]\d+)*)(?![\w.,]*\d)")
# A number and the word of three letters or more after it ("24 weeks"): groups
# number, word.
NUMBER_THEN_WORD = re.compile(r"(?<![\w.,])(\d+(?:[.,]\d+)*)\s+([^\W\d_]{3,})")
# A search term as the full-text index reads one: a run of CJK characters, or a
# run of other word characters ("Qwen2", "2018").
SEARCH_WORD = re.compile(rf"[{CJK_LETTERS}]+|[^\W{CJK_LETTERS}]+")
# A hyphen between two letters or digits, and a word made of parts joined by
# them ("pre-train", "COVID\u201119").
HYPHEN_IN_WORD = re.compile(r"(?<=[^\W_])[-\u2010\u2011](?=[^\W_])")
HYPHENATED_WORD = re.compile(r"[^\W_]+(?:[-\u2010\u2011][^\W_]+)+")
# What a date is written with: month and day names, "of", "the", ordinal
# endings and digits ("Monday, 3rd of March 2014"). Take them away, and a text
# that was a date alone has no letters left.
DATE_PARTS = re.compile(
    r"\b(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|"
    r"sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?|monday|tuesday|"
    r"wednesday|thursday|friday|saturday|sunday|of|the|st|nd|rd|th)\b|\d+",
    re.IGNORECASE,
)
_CJK_PIECES = re.compile(f"([{CJK_LETTERS}]+)")
# Function words: a claim may add or drop these without saying anything new.
# fmt: off
STOPWORDS = frozenset([
    "a", "an", "the", "this", "that", "these", "those", "there", "here", "it", "its", "itself",
    "they", "them", "their", "theirs", "he", "him", "his", "she", "her", "hers", "we", "us",
    "our", "ours", "you", "your", "yours", "i", "me", "my", "mine", "one", "ones", "is", "are",
    "was", "were", "be", "been", "being", "am", "do", "does", "did", "doing", "done", "has",
    "have", "had", "having", "will", "would", "shall", "should", "can", "could", "may", "might",
    "must", "ought", "and", "or", "but", "if", "then", "than", "so", "as", "of", "at", "by",
    "for", "with", "from", "to", "into", "onto", "in", "on", "upon", "about", "above", "below",
    "over", "under", "between", "among", "through", "during", "before", "after", "since", "until",
    "while", "because", "though", "although", "whether", "also", "too", "very", "just", "only",
    "even", "both", "each", "either", "every", "all", "any", "some", "such", "same", "other",
    "another", "more", "most", "less", "least", "much", "many", "few", "several", "own", "what",
    "which", "who", "whom", "whose", "when", "where", "why", "how", "s", "t", "d", "ll", "m",
    "re", "ve", "etc", "ie", "eg", "according", "said", "says", "say", "states", "stated",
    "stating", "mentions", "mentioned", "describes", "described", "document", "documents",
    "passage", "passages", "text", "source", "sources", "quote",
])
# fmt: on


@lru_cache(maxsize=1)
def _stemmer() -> snowballstemmer.stemmer:
    return snowballstemmer.stemmer("english")


# "Airplanes on the U.S. register" are "airplanes of U.S. registry". Not the
# whole "-istry" family: a chemist is not chemistry, a minister not a ministry.
_SAME_STEMS = {"registri": "regist"}


# The marks a word may carry at either end: quotation marks, brackets, stops.
_WORD_EDGES = "\"'\u2018\u2019\u201c\u201d()[]{}.,;:!?"


def bare(token: str) -> str:
    """A token as whitespace splits it, without the marks at its ends, case folded
    ("\u201ccase.\u201d" is "case")."""
    return token.strip(_WORD_EDGES).casefold()


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """The Snowball stem of a lower-case word (inflections share a stem).

    A few words Snowball leaves apart are one word to a reader (see
    ``_SAME_STEMS``).
    """
    stemmed = str(_stemmer().stemWord(word))
    return _SAME_STEMS.get(stemmed, stemmed)


def words(text: str, cjk_pairs: bool = False) -> list[str]:
    """The words of ``text`` in matching form: folded like quotes are, lower case.

    A run of CJK characters becomes one word per character, since those
    scripts do not separate words with spaces, and the digits or Latin letters
    it runs into are words of their own ("2018年1月" is "2018", "年", "1",
    "月"). With ``cjk_pairs``, a run becomes its overlapping pairs of characters
    instead ("负责人" is "负责", "责人"; a run of one character is itself): a
    pair tells a word from its characters' other uses, as search does.
    """
    folded = normalize_key(text).replace("n't", " not").replace("'", " ")
    # "12%", "12 per cent" and "12 percent" are one statement.
    folded = folded.replace("%", " percent ").replace("per cent", "percent")
    tokens: list[str] = []
    for token in _WORD.findall(folded):
        if not CJK_RUN.search(token):
            tokens.append(token.strip(".,"))
            continue
        for piece in _CJK_PIECES.split(token):
            if not CJK_RUN.fullmatch(piece):
                tokens.extend(part.strip(".,") for part in _WORD.findall(piece))
            elif cjk_pairs and len(piece) > 1:
                tokens.extend(piece[index : index + 2] for index in range(len(piece) - 1))
            else:
                tokens.extend(piece)
    return [token for token in tokens if token]


def search_form(text: str) -> str:
    """Text as the full-text index sees it.

    Compatibility forms are folded (so "ﬁnance" is found by "finance") and every
    CJK character stands alone, because SQLite's unicode61 tokenizer would
    otherwise treat a whole unspaced Chinese or Japanese sentence as one word.
    """
    if text.isascii():
        return text
    text = unicodedata.normalize("NFKC", text)
    if CJK_CHARACTER.search(text) is None:
        return text
    spaced = {ord(char): f" {char} " for char in set(CJK_CHARACTER.findall(text))}
    return text.translate(spaced)


_PORTER = snowballstemmer.stemmer("porter")


def porter_stem(word: str) -> str:
    """A lower-case word as SQLite's ``porter`` tokenizer indexes it."""
    return str(_PORTER.stemWord(word.lower()))
