"""English number words, once: their values, and patterns built from them.

Checking a claim's numbers, telling a count in a passage, telling a numbered
chapter from a title: each reads "fourteen", "twenty" or "thousand" as a
number. The words live here; each caller builds the pattern or table it needs
from them, taking the words it counts and adding the few of its own.
"""

from __future__ import annotations

from collections.abc import Iterable

__all__ = [
    "FRACTIONS",
    "MULTIPLIERS",
    "ORDINALS",
    "SMALL_NUMBERS",
    "TENS",
    "TIMES",
    "alternation",
    "small_number_words",
]

# fmt: off
# Zero to nineteen: the numbers English writes as one word of their own.
SMALL_NUMBERS = {
    word: value
    for value, word in enumerate([
        "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
        "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen",
        "eighteen", "nineteen",
    ])
}
# fmt: on
# The tens: "twenty" to "ninety"; "twenty-four" is a ten and a small number.
TENS = {
    "twenty": 20,
    "thirty": 30,
    "forty": 40,
    "fifty": 50,
    "sixty": 60,
    "seventy": 70,
    "eighty": 80,
    "ninety": 90,
}
# Words that multiply the number before them: "fifty thousand", "2 million".
MULTIPLIERS = {"hundred": 100, "thousand": 1000, "million": 10**6, "billion": 10**9}
# "first" to "twelfth", by the place each names.
ORDINALS = {
    word: place
    for place, word in enumerate(
        [
            "first",
            "second",
            "third",
            "fourth",
            "fifth",
            "sixth",
            "seventh",
            "eighth",
            "ninth",
            "tenth",
            "eleventh",
            "twelfth",
        ],
        start=1,
    )
}
# How many times: "once", "twice", "thrice".
TIMES = {"once": 1, "twice": 2, "thrice": 3}
# Shares written out, by the share each names: "half", "a quarter", "one third".
FRACTIONS = {"half": 0.5, "quarter": 0.25, "third": 1 / 3}


def small_number_words(lowest: int, highest: int) -> list[str]:
    """The one-word numbers from ``lowest`` to ``highest`` (at most nineteen), in order."""
    return [word for word, value in SMALL_NUMBERS.items() if lowest <= value <= highest]


def alternation(words: Iterable[str]) -> str:
    """A regular-expression alternation of ``words``, tried in the order given.

    The words are pattern text, not escaped: a caller may write "hundreds?".
    Order matters where one alternative begins another ("four", "fourteen"),
    so callers keep theirs.
    """
    return "|".join(words)
