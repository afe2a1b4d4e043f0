"""Numbers in claims and quotes: values, and what is said of them.

"1,000", "1000" and "a thousand" are one number; "twenty-four" is 24, "fifty
thousand" 50000, "2 million" 2000000. And a number is said with a bound or a
unit that is part of the statement: "less than 24 hours", "within five
miles", "approximately 24" and "24" are four statements, "32%" and "32
studies" two. The support check (``reader.verify.grounding``) asks both. And
a reference mark ("(75-83)", "[12]") holds numbers that count nothing.
"""

from __future__ import annotations

import re

from reader.text.numbers import MULTIPLIERS, ORDINALS, SMALL_NUMBERS, TENS, small_number_words
from reader.text.words import STOPWORDS, stem

_NUMBER = re.compile(r"^[0-9]+(?:[.,][0-9]+)*$")

# A reference to the works cited: numbers in square brackets ("[12]", "[3, 4]"),
# or a list or range of them in parentheses before a sentence's or clause's end
# ("... for genotypes 1 and 4 (75-83)."); not years ("Jochi (1185-1226),").
_REFERENCE_MARK = re.compile(
    r"\[\s*\d+(?:\s*[-\u2013,;]\s*\d+)*\s*\]"
    r"|\(\s*\d{1,3}(?:\s*[-\u2013,;]\s*\d{1,3})+\s*\)(?=\s*(?:[.;,:]|$))"
)


def without_reference_marks(text: str) -> str:
    """``text`` without its reference marks: "(75-83)" is not a cure rate."""
    return _REFERENCE_MARK.sub(" ", text)


# A number word's value as a numeral: zero to twenty, the tens, "hundred" and
# "thousand" (a million is read as a multiplier only, in ``number_phrases``).
NUMBER_WORDS = {word: str(value) for word, value in SMALL_NUMBERS.items()}
NUMBER_WORDS.update({word: str(value) for word, value in TENS.items()})
NUMBER_WORDS.update({"hundred": "100", "thousand": "1000"})
# "twenty-four" is folded to one word, as hyphenated words are.
NUMBER_WORDS.update(
    {
        tens + unit: str(value + SMALL_NUMBERS[unit])
        for tens, value in TENS.items()
        for unit in small_number_words(1, 9)
    }
)


# "the third day" is "the 3rd day". "First" and "second" are left as words: they
# are as often "earliest" and a unit of time as they are ordinals.
_ORDINAL_WORDS = {word: f"{place}th" for word, place in ORDINALS.items() if place >= 3}
_ORDINAL = re.compile(r"^([0-9]+)(?:st|nd|rd|th)$")


def number_value(token: str) -> str | None:
    if _NUMBER.match(token):
        # "1,000" and "1000" are one number; "1.5" keeps its point.
        return token.replace(",", "")
    ordinal = _ORDINAL.match(token)
    if ordinal:
        return f"{int(ordinal.group(1))}th"
    return NUMBER_WORDS.get(token) or _ORDINAL_WORDS.get(token)


def number_phrases(tokens: list[str]) -> list[tuple[int, int, str]]:
    """``(first, end, value)`` of each run of two or more number tokens read as one
    number: "twenty four" is 24, "fifty thousand" 50000, "2 million" 2000000."""
    phrases = []
    index = 0
    while index < len(tokens):
        end = index
        while end < len(tokens) and (
            number_value(tokens[end]) is not None or tokens[end] in MULTIPLIERS
        ):
            end += 1
        if end - index >= 2:
            total = current = 0.0
            for token in tokens[index:end]:
                if token in MULTIPLIERS and MULTIPLIERS[token] >= 1000:
                    total += max(current, 1.0) * MULTIPLIERS[token]
                    current = 0.0
                elif token in MULTIPLIERS:
                    current = max(current, 1.0) * MULTIPLIERS[token]
                else:
                    try:
                        current += float(number_value(token) or 0)
                    except ValueError:
                        break
            else:
                value = total + current
                text = str(int(value)) if value.is_integer() else str(value)
                phrases.append((index, end, text))
        index = max(end, index + 1)
    return phrases


# Nouns that only count what a number says: "three times" is "after 3 attempts".
COUNT_NOUNS = frozenset(["times", "time", "attempts", "attempt", "occasions", "tries"])


# What a claim or quote says of a number: "more than 24", "within five miles",
# "approximately 24" and "24" are four statements.
_BOUNDS = [
    (re.compile(pattern + r"$"), bound)
    for pattern, bound in (
        (r"\b(?:not|never|no) (?:\w+ ){0,3}(?:more than|over|above|beyond|exceed\w*)", "at most"),
        (r"\b(?:not|never|no) (?:\w+ ){0,3}(?:less than|fewer than|under|below)", "at least"),
        (r"\b(?:at least|no less than|no fewer than|(?:at )?(?:a )?minimum(?: of)?)", "at least"),
        (r"\b(?:at most|up to|no more than|(?:at )?(?:a )?maximum(?: of)?|within)", "at most"),
        (
            r"\b(?:more than|over|above|beyond|exceed\w*|in excess of|greater than|higher than|"
            r"larger than|bigger than)",
            "over",
        ),
        (r"\b(?:less than|fewer than|under|below|lower than|smaller than)", "under"),
        (r"\b(?:about|approximately|around|roughly|nearly|almost|circa|close to|some)", "about"),
    )
]
# The words before a number that may bound it ("should not send dates more than").
_BOUND_WINDOW = 7


_BOUND_WORDS = frozenset(
    [
        "more",
        "over",
        "above",
        "beyond",
        "exceeds",
        "exceeded",
        "exceed",
        "exceeding",
        "excess",
        "greater",
        "higher",
        "larger",
        "bigger",
        "smaller",
        "less",
        "fewer",
        "under",
        "below",
        "lower",
        "least",
        "most",
        "up",
        "maximum",
        "minimum",
        "within",
        "about",
        "approximately",
        "around",
        "roughly",
        "nearly",
        "almost",
        "circa",
        "close",
    ]
)


def bound_positions(tokens: list[str]) -> set[int]:
    """The words that bound a number ("more than", "up to"): the number check reads
    them, so the word check leaves them to it."""
    positions: set[int] = set()
    for index, token in enumerate(tokens):
        if number_value(token) is None or _bound_before(tokens, index) is None:
            continue
        for before in range(max(0, index - _BOUND_WINDOW), index):
            if tokens[before] in _BOUND_WORDS:
                positions.add(before)
    return positions


def bounding_negations(tokens: list[str]) -> set[int]:
    """Negations that only bound a number ("not more than 2" is "at most 2")."""
    positions: set[int] = set()
    for index, token in enumerate(tokens):
        if number_value(token) is None or _bound_before(tokens, index) not in (
            "at most",
            "at least",
        ):
            continue
        for before in range(max(0, index - _BOUND_WINDOW), index):
            if tokens[before] in ("not", "never", "no"):
                positions.add(before)
    return positions


def _bound_before(tokens: list[str], index: int) -> str | None:
    """How the words before ``tokens[index]`` bound the number there."""
    preceding = tokens[max(0, index - _BOUND_WINDOW) : index]
    if preceding and preceding[-1] in ("a", "an"):  # "more than a thousand"
        preceding = preceding[:-1]
    before = " ".join(preceding)
    return next((bound for pattern, bound in _BOUNDS if pattern.search(before)), None)


def _percent_after(tokens: list[str], index: int) -> bool:
    return index + 1 < len(tokens) and tokens[index + 1] == "percent"


def _number_readings(tokens: list[str]) -> dict[str, set[tuple[str | None, bool]]]:
    """For each number value in ``tokens``: the bounds and units it is said with."""
    readings: dict[str, set[tuple[str | None, bool]]] = {}
    phrases = number_phrases(tokens)
    # A word of a number said in several ("fifty" of "fifty thousand") is not a
    # number of its own.
    inside = {index for first, end, _ in phrases for index in range(first, end)}
    spans = [
        (i, i + 1, v)
        for i, t in enumerate(tokens)
        if i not in inside and (v := number_value(t)) is not None
    ]
    spans += phrases
    for first, end, value in spans:
        reading = (_bound_before(tokens, first), _percent_after(tokens, end - 1))
        readings.setdefault(value, set()).add(reading)
    return readings


def misread_number(claim_tokens: list[str], quote_tokens: list[str]) -> str | None:
    """A number the claim and the quote both give, but bounded or counted differently."""
    said = _number_readings(quote_tokens)
    for value, readings in _number_readings(claim_tokens).items():
        if value not in said:
            continue  # not the quote's at all: reported as a missing number
        if not readings & said[value]:
            bound, percent = sorted(readings, key=str)[0]
            quoted = sorted(said[value], key=str)[0]
            return (
                f"the quote says {_reading(value, *quoted)} where the claim says "
                f"{_reading(value, bound, percent)}"
            )
    return None


def _reading(value: str, bound: str | None, percent: bool) -> str:
    return f"'{bound + ' ' if bound else ''}{value}{'%' if percent else ''}'"


# How far past a number the thing it counts may stand: "56.2% were Catholics".
_COUNTED_REACH = 3
# What may stand between a number and what it counts.
_BEFORE_COUNTED = frozenset(["percent", "were", "was", "are", "is", "of", "the"])
_YEAR_LIKE = re.compile(r"1[0-9]{3}|20[0-9]{2}")
# How far apart the numbers of one list may stand: "56.2% were Catholics, 35.7% Jews".
_LIST_GAP = 6


def _counted_lists(tokens: list[str]) -> list[dict[str, set[str]]]:
    """The lists of things counted in ``tokens``: runs of numbers close together,
    each with the word after it (past "percent", "were" ...) that is neither a
    number nor a function word: what it counts; as thing -> the numbers it is given."""
    lists: list[dict[str, set[str]]] = []
    last = -_LIST_GAP - 1
    for index, token in enumerate(tokens):
        value = number_value(token)
        if value is None or _YEAR_LIKE.fullmatch(token):
            continue  # a year dates the list, it counts nothing of it
        if index - last > _LIST_GAP:
            lists.append({})
        last = index
        for following in tokens[index + 1 : index + 1 + _COUNTED_REACH]:
            if following in _BEFORE_COUNTED:
                continue
            if number_value(following) is None and following not in STOPWORDS:
                lists[-1].setdefault(following, set()).add(value)
            break
    return [counted for counted in lists if len(counted) > 1]


def number_of_another(claim_tokens: list[str], quote_tokens: list[str]) -> str | None:
    """A claim that gives a number of a quote's list to a thing the list gives
    another number: against "56.2% were Catholics, 35.7% Jews ... and 2.8%
    Protestants", "56.2% of the population was Protestant"."""
    claim_values = {v for t in claim_tokens if (v := number_value(t)) is not None}
    claim_stems = {stem(t) for t in claim_tokens}
    for counted in _counted_lists(quote_tokens):
        by_thing: dict[str, set[str]] = {}
        for thing, values in counted.items():
            by_thing.setdefault(stem(thing), set()).update(values)
        for value in sorted(claim_values):
            things = {thing for thing, values in by_thing.items() if value in values}
            if not things or things & claim_stems:
                continue  # not this list's, or the claim names what it counts
            for thing in sorted(claim_stems & by_thing.keys()):
                if not by_thing[thing] & claim_values:
                    given = sorted(by_thing[thing])[0]
                    return f"the quote gives '{thing}' {given}, not {value}"
    return None
