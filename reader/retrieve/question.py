"""A question as reader reads it, worked out once when it is asked.

Every stage of an answer reads something of the question: its content words
and how rare each is in the library (to score evidence), the kind of answer it
asks for, its acronyms and hyphenated words, the names it holds (a name no
document mentions is not answered), the quantity it asks for (a question for
a number that no passage gives is not answered). ``Question.parse`` works all of
that out at the start of an answer; the stages are handed the record and read
its fields, so none of them works those out again (the quantity asked for
carries the numbers the question states and the event an age is asked at, so
checking passages for it reads only the record). The checks of a
chosen run (``reader.answer.spans``) read its words and stems from the record;
the support check of a claim in the model's own words (``reader.verify``), which
also serves answers kept from before, reads the text once per question.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from reader.retrieve.asked import AskedWords
from reader.retrieve.mentions import question_names
from reader.retrieve.quantities import AskedQuantity, asked_quantity, holds_quantity
from reader.text.words import bare, stem, words

Rarity = Callable[[list[str]], dict[str, float]]


def even_rarity(terms: list[str]) -> dict[str, float]:
    """Every word as rare as any other: a question asked without a library."""
    return dict.fromkeys(terms, 1.0)


@dataclass(frozen=True)
class Question:
    """One question: its text, and what the stages read of it."""

    text: str
    # What its evidence is scored by (None: it has no content word to look for).
    words: AskedWords | None
    # The names it holds, each once, in order ("Jesse Jordan", "RPI").
    names: tuple[str, ...]
    # The quantity it asks for, when it is one reader can look for.
    quantity: AskedQuantity | None
    # Its words as whitespace splits them, without their marks, case folded (what
    # a narrowing it asks under is read from: "believed", "may", "about").
    bare_words: frozenset[str] = frozenset()
    # The stems of its words (a chosen run made only of them states nothing).
    stems: frozenset[str] = frozenset()

    @classmethod
    def parse(cls, text: str, rarity: Rarity = even_rarity) -> Question:
        """``text`` read once; ``rarity`` weighs its words (the library's, usually)."""
        text = text.strip()
        return cls(
            text=text,
            words=AskedWords.of(text, rarity),
            names=tuple(question_names(text)),
            quantity=asked_quantity(text),
            bare_words=frozenset(bare(token) for token in text.split()),
            stems=frozenset(stem(word) for word in words(text)),
        )

    @property
    def kind(self) -> str | None:
        """The kind of answer it asks for ("number", "year", "name" ...)."""
        return self.words.kind if self.words is not None else None


def unstated_quantity(question: Question, passages: Sequence[str]) -> str | None:
    """The reason a question is not answered, when it asks for a quantity that none
    of ``passages`` writes; None when they hold one, or it asks for none."""
    asked = question.quantity
    if asked is None or holds_quantity(asked, passages):
        return None
    return f"no passage found for it gives {asked.described()}"
