"""Acronyms and the words they stand for, so evidence matches one for the other.

A report defines "Rotary Positional Embeddings (RoPE)" once and says "RoPE"
from then on; a question about "the rotary position embedding base" shares no
word with the sentence that answers it ("we modified the base frequency of
RoPE"). The other way round, a question about "HCV" asks about every sentence
that says "hepatitis C virus".

An acronym here is a word of two to six capitals, as many or more than its
small letters ("RoPE", "SwiGLU", "HCV"; a plural "s" aside: "DAAs"), not a name
like "McDonald". It stands for a run of content words whose initials are its
capitals, in order ("direct-acting antivirals" for "DAAs": a hyphen parts
words). Matching asks for nothing more: no definition need be in the document,
since the question's own words are the other half of the pair.
"""

from __future__ import annotations

from dataclasses import dataclass

from reader.text.words import LETTER_RUN, STOPWORDS

# Marks inside a word that leave it one word: soft hyphens, zero-width spaces.
_INSIDE_A_WORD = dict.fromkeys(map(ord, "\u00ad\u200b\u200c\u200d\u2060"))
_LONGEST = 6
# Spelled out in a sentence, two initials are any two words that happen to
# begin so ("used since" for "US"); three are seldom a chance.
_SHORTEST_SPELLED_IN_SENTENCE = 3
# A word of one letter that is a word of its own ("hepatitis C virus"); the
# stop words' single letters are articles, pronouns and pieces of contractions.
_LETTER_WORDS = frozenset("bcefghjklnopqruvwxyz")
# Words that say something but stand in no acronym: "NL" is not "not lie".
_NEVER_INITIALS = frozenset(["not", "no", "nor", "never"])


def acronym_letters(word: str) -> str | None:
    """The initials an acronym stands for, in lower case ("RoPE": "rpe", "DAAs":
    "daa"), or None for a word that is not an acronym."""
    core = word[:-1] if len(word) > 2 and word[-1] == "s" and word[:-1].isupper() else word
    capitals = "".join(char for char in core if char.isupper())
    if not 2 <= len(capitals) <= _LONGEST or 2 * len(capitals) < len(core):
        return None
    return capitals.lower()


def _content_words(text: str) -> list[str]:
    """The words of ``text`` in lower case, hyphenated ones in parts, stop words out."""
    found = []
    for word in LETTER_RUN.findall(text.translate(_INSIDE_A_WORD)):
        lowered = word.lower()
        if lowered in _NEVER_INITIALS or (lowered in STOPWORDS and lowered not in _LETTER_WORDS):
            continue
        found.append(lowered)
    return found


def _acronyms(text: str) -> dict[str, str]:
    """The acronyms of ``text``: their initials, each with its word in lower case."""
    found = {}
    for word in LETTER_RUN.findall(text.translate(_INSIDE_A_WORD)):
        letters = acronym_letters(word)
        if letters is not None:
            found[letters] = word.lower()
    return found


@dataclass(frozen=True, slots=True)
class AcronymMatcher:
    """What a question's acronyms and spelled-out runs make a sentence hold."""

    # Initials of each run of the question's content words, with the run.
    spelled: dict[str, tuple[str, ...]]
    # The question's acronyms: initials, with the acronym as a word.
    acronyms: dict[str, str]

    @classmethod
    def for_question(cls, question: str) -> AcronymMatcher:
        words = _content_words(question)
        spelled: dict[str, tuple[str, ...]] = {}
        for length in range(2, _LONGEST + 1):
            for first in range(len(words) - length + 1):
                run = tuple(words[first : first + length])
                spelled.setdefault("".join(word[0] for word in run), run)
        acronyms = {
            letters: word
            for letters, word in _acronyms(question).items()
            if len(letters) >= _SHORTEST_SPELLED_IN_SENTENCE
        }
        return cls(spelled, acronyms)

    def __bool__(self) -> bool:
        return bool(self.spelled or self.acronyms)

    def held_words(self, sentence: str) -> list[str]:
        """The question's words ``sentence`` says in the other form: the run an
        acronym of the sentence stands for, and an acronym of the question the
        sentence spells out."""
        held: list[str] = []
        for letters in _acronyms(sentence).keys() & self.spelled.keys():
            held.extend(self.spelled[letters])
        if not self.acronyms:
            return held
        words = _content_words(sentence)
        for letters, acronym in self.acronyms.items():
            length = len(letters)
            for first in range(len(words) - length + 1):
                run = words[first : first + length]
                if all(word[0] == letter for word, letter in zip(run, letters, strict=True)):
                    held.append(acronym)
                    break
        return held
