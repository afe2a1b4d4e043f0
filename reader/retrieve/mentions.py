"""Whether the documents mention what a question names.

A question that names something ("Who won the 1998 football World Cup?",
"Which painter made the Mona Lisa?") is answered only by a passage that names
it too. Its other words can still match: "won" and "world" are in a book on
copyright law, and the evidence would link three sentences about lawsuits won.
A name no passage of the documents holds says, better than any score, that
the documents do not answer the question.

A name is a word written with a capital inside the question: not its first
word or a sentence's, not a function word ("I"), and not in a question written
in Title Case or in German, where capitals say nothing (German writes every
noun with one: "Wie hoch ist die Miete?" names nothing). It is looked up in
the full-text index as search reads it (case, accents and inflections aside:
"Jumieges" finds "Jumièges", "GPU" finds "GPUs"), within the documents asked
about, and counts as mentioned in another form or misspelt by one letter.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from rapidfuzz.distance import Levenshtein

from reader.retrieve.search import search
from reader.retrieve.word_counts import chunks_holding
from reader.store.database import LibraryStore
from reader.text.sentences import BEFORE_SENTENCE_START
from reader.text.words import NAME_WORD, STOPWORDS, porter_stem

# Words that stand before a name and name nothing alone.
_TITLES = frozenset(["mr", "mrs", "ms", "dr", "st", "prof", "sir", "mt"])
# A stem shorter than this is too short to tell a misspelling from another word.
_SHORTEST_FUZZY = 4
_POSSESSIVE = re.compile(r"['’]s?$")
# Function words of German, most of them no English words ("was" is both): two
# of them say a question is German.
_GERMAN = frozenset(
    ["der", "das", "ist", "sind", "wie", "wer", "wo", "was", "welche", "welcher", "welches",
     "und", "nicht", "ein", "eine", "einen", "einer", "wird", "wurde", "werden", "hat", "für",
     "mit", "von", "bei", "zum", "zur", "im", "auf", "dem", "den", "des", "wann", "warum"]
)  # fmt: skip


def question_names(question: str) -> list[str]:
    """The names a question holds, each once, in order."""
    inside = [
        match.group()
        for match in NAME_WORD.finditer(question)
        # Where a new sentence begins inside a question its first word is no name.
        if not BEFORE_SENTENCE_START.search(question[: match.start()])
    ]
    if any(_title_cased(word) and word.lower() in STOPWORDS for word in inside):
        return []  # "What Is The Capital Of Australia?": every word has its capital
    if len({w.lower() for w in NAME_WORD.findall(question)} & _GERMAN) >= 2:
        return []
    names: list[str] = []
    for word in inside:
        name = _POSSESSIVE.sub("", word.rstrip(".,"))
        if not name[:1].isupper() or len(name) < 2 or name in names:
            continue
        if name.lower() in STOPWORDS or name.lower() in _TITLES:
            continue
        names.append(name)
    return names


def _title_cased(word: str) -> bool:
    return word[0].isupper() and not word.isupper()  # "WHO" is a name, "Who" a word


def unmentioned(
    store: LibraryStore, names: Sequence[str], doc_ids: Sequence[str] | None = None
) -> list[str]:
    """The names no chunk of the documents holds (of the whole library for None)."""
    if not names:
        return []
    if not doc_ids:
        held = chunks_holding(store, names)
        missing = [name for name in names if held[name] == 0 and not _found(store, name, None)]
    else:
        missing = [name for name in names if not any(_found(store, name, doc) for doc in doc_ids)]
    return [name for name in missing if not _spelled_otherwise(store, name, doc_ids)]


def _found(store: LibraryStore, name: str, doc_id: str | None) -> bool:
    # Search splits "Qwen2-72B" as the index does; a name of several parts is
    # found where any part is.
    return bool(search(store, name, doc_id=doc_id, limit=1))


def _spelled_otherwise(store: LibraryStore, name: str, doc_ids: Sequence[str] | None) -> bool:
    """Whether the documents hold the name in another form: a word it begins
    ("Europe" in "European", "Asia" in "Asian") or one letter away from it
    ("Hatmanis" for "Hartmanis"). A question that misspells a name is still
    asked of the documents; the evidence's own checks judge it."""
    key = porter_stem(name)
    if len(key) < _SHORTEST_FUZZY or not key.isalpha():
        return False
    forms = [
        term
        for term in store.terms_starting(key[:2])
        if term.startswith(key) or Levenshtein.distance(term, key, score_cutoff=1) <= 1
    ]
    scopes: Sequence[str | None] = doc_ids or [None]
    return any(_found(store, form, doc) for form in forms for doc in scopes)
