"""Whether the passages hold the quantity a question asks for.

"How many GPU hours did it take to pre-train the model?" is answered by a number
of hours, "How old was he when ...?" by an age, "How much does a licence cost?"
by a price, "In which year ...?" by a year. A report on the model whose
sentences that best match the question (the evidence candidates, a dozen)
never count hours holds the question's words but not its answer: the
question is on the document's topic and asks for something it does not say.
Reading the evidence for the quantity asked is how reader declines such near
misses without a model.

Only quantities a passage writes in a form a program can recognise are asked
for: a number of the thing counted ("73 airplanes", "seven justices", "4.5
trillion tokens"), an age ("nine years old", "at the age of twenty-seven"), a
sum of money ("$12,000", "ten pounds"), a year ("1813", "the 1950s"). A question for any
other kind ("How long ...?", "How much faster ...?") is never declined here.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from reader.text.numbers import MULTIPLIERS, TENS, TIMES, alternation, small_number_words
from reader.text.words import LATIN_WORD_OR_NUMBER, STOPWORDS, stem

# A count written out. A ten takes the rest of a hyphenated number with it
# ("twenty-seven"), a multiplier its plural ("hundreds of"); "a dozen" and
# "single" count too.
_NUMBER_WORDS = alternation(
    [
        *small_number_words(1, 19),
        rf"(?:{alternation(TENS)})(?:-\w+)?",
        *(f"{word}s?" for word in MULTIPLIERS),
        "dozens?",
        "a dozen",
        *TIMES,
        "single",
    ]
)
_COUNT = re.compile(rf"\d[\d,.]*|\b(?:{_NUMBER_WORDS})\b", re.IGNORECASE)
# How many words may stand between a number and what it counts: "73 airplanes",
# "4.5 trillion tokens", "two Major League Soccer teams", "10 percent of American
# physicians".
_COUNT_REACH = 4
_REACH_BACK = 2

_HOW_MANY = re.compile(r"\bhow many\s+(.+)", re.IGNORECASE)
_PARTITIVE = re.compile(r"^of\s+(?:the|these|those|its|their|his|her|our)\s+", re.IGNORECASE)
_HOW_OLD = re.compile(r"\bhow old\b|\bwhat (?:was|is) (?:the )?age\b|\bat what age\b", re.I)
_PRICE = re.compile(
    r"\bhow much (?:\w+ ){0,8}?(?:cost|costs|charge|charges|charged|pay|paid|sell|sold|"
    r"fee|price)\b|\bwhat (?:is|was|does|did) (?:\w+ ){0,3}?(?:price|cost|fee)\b",
    re.IGNORECASE,
)
_YEAR_QUESTION = re.compile(r"\b(?:in )?(?:which|what) year\b", re.IGNORECASE)

_AGE = re.compile(
    rf"(?:\d+|\b(?:{_NUMBER_WORDS}))[\s-]+(?:(?:thousand|million|billion)\s+)?"
    rf"(?:years?|months?)[\s-]+(?:old|ago)\b"
    rf"|\bage[ds]?(?: of)?\s+(?:about\s+)?(?:\d+|(?:{_NUMBER_WORDS})\b)",
    re.IGNORECASE,
)
# Currencies by name, past and present: "36 crowns", "ten pounds", "40 guilders".
_CURRENCIES = (
    r"dollars?|pounds?|euros?|cents?|pence|shillings?|guineas?|crowns?|guilders?|florins?"
    r"|francs?|marks?|lire|liras?|yen|yuan|renminbi|rupees?|pesos?|kronor|kroner|kronur"
    r"|krona|rand|roubles?|rubles?|dinars?|dirhams?|shekels?|ducats?|sovereigns?|zlot(?:y|ys)"
    r"|forints?|baht|usd|eur|gbp|chf|jpy|cny"
)
_MONEY = re.compile(
    rf"[$£€¥₹]\s*\d|\b(?:{_CURRENCIES})\b|\bfree of charge\b|\bno cost\b", re.IGNORECASE
)
_YEAR = re.compile(r"\b((?:1[0-9]|20)\d\d)s?\b")  # "1813", "the 1950s"
# Units a passage abbreviates: "2000 km" counts kilometers.
_UNIT_SYMBOLS = {
    "kilomet": ("km",),
    "kilometr": ("km",),
    "mile": ("mi",),
    "meter": ("m",),
    "metr": ("m",),
    "kilogram": ("kg",),
    "gram": ("g",),
    "pound": ("lb", "lbs"),
    "hour": ("h", "hr", "hrs"),
    "minut": ("min",),
    "second": ("s", "sec"),
    "byte": ("b",),
    "gigabyt": ("gb",),
    "megabyt": ("mb",),
    "terabyt": ("tb",),
    "litr": ("l",),
    "liter": ("l",),
}
# Things counted so often under other names that any number may count them:
# "How many people ..." is answered by "30 to 50 thousand inhabitants".
_ANY_COUNT = frozenset(
    [
        "people",
        "persons",
        "individuals",
        "men",
        "women",
        "children",
        "humans",
        "times",
    ]
)
# Words after "how many" that are not the thing counted: "How many of the ...".
_NOT_COUNTED = frozenset(["more", "other", "different", "new", "total", "separate", "distinct"])
# Words that end the thing counted and start what is said of it: "How many
# airplanes registered outside the United States ...".
_AFTER_COUNTED = frozenset(
    ["outside", "inside", "across", "within", "without", "beyond", "per", "via", "throughout"]
)


@dataclass(frozen=True, slots=True)
class AskedQuantity:
    """The quantity a question asks for, and how the reason names it."""

    kind: str  # "count", "age", "price" or "year"
    counted: tuple[str, ...] = ()  # for a count, the words for the thing counted
    # The numbers the question itself states ("737" of "737 MAX airplanes"): a
    # passage that writes them gives no answer by them.
    stated: frozenset[str] = frozenset()
    # For an age: the stems of the common words of the question's "when" clause
    # (what happened), so an age at another event does not answer.
    event: frozenset[str] = frozenset()

    def described(self) -> str:
        if self.kind == "count":
            return "a number beside " + " or ".join(f"'{word}'" for word in self.counted)
        return {"age": "an age", "price": "a price or sum of money", "year": "a year"}[self.kind]


# A number as a question states it ("737", "1,200", "2.5").
_STATED_NUMBER = re.compile(r"\d[\d,.]*")


def asked_quantity(question: str) -> AskedQuantity | None:
    """The quantity ``question`` asks for, when it is one reader can look for."""
    stated = frozenset(number.replace(",", "") for number in _STATED_NUMBER.findall(question))
    if _HOW_OLD.search(question):
        return AskedQuantity("age", stated=stated, event=_event_words(question))
    if _PRICE.search(question):
        return AskedQuantity("price", stated=stated)
    if _YEAR_QUESTION.search(question):
        return AskedQuantity("year", stated=stated)
    many = _HOW_MANY.search(question)
    if many:
        counted = _counted_words(many.group(1))
        if counted:
            return AskedQuantity("count", counted, stated=stated)
    return None


def _counted_words(after: str) -> tuple[str, ...]:
    """The thing "how many" counts: the common words of the phrase after it, past
    names, acronyms and numbers ("How many 737 MAX airplanes ..." counts airplanes,
    "GPU hours" hours, "simultaneous connections" connections)."""
    counted: list[str] = []
    after = _PARTITIVE.sub("", after)  # "How many of the justices ..."
    for word in LATIN_WORD_OR_NUMBER.findall(after):
        if word.lower() in STOPWORDS or word.lower() in _AFTER_COUNTED:
            break
        # A participle after the thing counted says what is said of it ("airplanes
        # registered ...", "people living ..."); before it, it is part of it
        # ("registered voters").
        if counted and word.islower() and word.endswith(("ed", "ing")) and len(word) > 4:
            break
        # Acronyms name a kind, not the thing ("GPU hours", "737 MAX airplanes");
        # a capitalised word may be the thing ("Examination Boards").
        if word.isalpha() and not word.isupper() and len(word) > 2:
            counted.append(word.lower())
    return tuple(word for word in counted if word not in _NOT_COUNTED)


def holds_quantity(asked: AskedQuantity, passages: Sequence[str]) -> bool:
    """Whether any of ``passages`` writes the quantity asked for; a number the
    question itself states ("737" of "737 MAX") does not count."""
    stated = asked.stated
    counted = _counted_forms(asked.counted) if asked.kind == "count" else set()
    event = asked.event
    for text in passages:
        if asked.kind == "age" and _gives_age(text, event):
            return True
        if asked.kind == "price" and _MONEY.search(text):
            return True
        if asked.kind == "year" and any(year not in stated for year in _YEAR.findall(text)):
            return True
        if asked.kind == "count" and _counts(text, counted, stated):
            return True
    return False


# "How old was he when he escaped?": the age is at an event, and an age the
# passage gives at another event ("nine years old when he went to boarding
# school") does not answer it.
_WHEN = re.compile(r"\bwhen\s+(.+)", re.IGNORECASE)
_EVENT_REACH = 8


def _event_words(question: str) -> frozenset[str]:
    """The stems of the common words of the question's "when" clause: what
    happened, not to whom ("when the Heron model was released" is a release)."""
    when = _WHEN.search(question)
    if when is None:
        return frozenset()
    return frozenset(
        stem(w)
        for w in LATIN_WORD_OR_NUMBER.findall(when.group(1))
        if w.islower() and w not in STOPWORDS
    )


def _gives_age(text: str, event: frozenset[str]) -> bool:
    """An age in ``text`` not tied by its own "when" clause to another event."""
    for age in _AGE.finditer(text):
        clause = _WHEN.match(text[age.end() :].lstrip(" ,"))
        if not event or clause is None:
            return True
        said = [w.lower() for w in LATIN_WORD_OR_NUMBER.findall(clause.group(1))[:_EVENT_REACH]]
        if event & {stem(w) for w in said if w not in STOPWORDS}:
            return True
    return False


def _counted_forms(counted: tuple[str, ...]) -> set[str]:
    """The stems of the words counted, and their units' symbols."""
    forms = {stem(word) for word in counted}
    if forms & {stem(word) for word in _ANY_COUNT}:
        return set()  # any number counts
    return forms.union(*(_UNIT_SYMBOLS.get(form, ()) for form in list(forms)))


def _counts_as(word: str, counted: set[str]) -> bool:
    return word in counted or any(len(form) > 2 and word.endswith(form) for form in counted)


def _counts(text: str, counted: set[str], stated: frozenset[str]) -> bool:
    """A number the question does not state, within a few words of the thing counted."""
    matches = list(LATIN_WORD_OR_NUMBER.finditer(text))
    tokens = [match.group() for match in matches]
    for index, token in enumerate(tokens):
        number = token.split("-")[0] if "-" in token[1:] else token  # "Six-time"
        if not _COUNT.fullmatch(number) or token.rstrip(".,").replace(",", "") in stated:
            continue
        if _names_or_marks(text, matches, index, stated):
            continue
        if not counted:
            return True
        # The number most often comes first ("73 airplanes"); after the thing
        # counted, only next to it ("copies sold: 10,000"; not "dose of X 400 mg"),
        # and only when it counts nothing of its own ("airplanes includes two
        # flight control computers" counts computers).
        following = tokens[index + 1].lower() if index + 1 < len(tokens) else ""
        counts_next = following.isalpha() and following not in STOPWORDS
        back = 0 if counts_next else _REACH_BACK
        near = tokens[max(0, index - back) : index + 1 + _COUNT_REACH]
        # "gigatons" counts tons.
        if any(_counts_as(stem(word.lower()), counted) for word in near):
            return True
    return False


# A number joined by a dash to one the question states is part of a name
# ("737-8", "737– 9"); one that starts a sentence or follows its end, before a
# capitalised function word, marks a note ("2 The flight control system ...").
_JOINED_BEFORE = re.compile(r"(\d)\s?[-\u2010-\u2014]\s?$")
_MARK_BEFORE = re.compile(r"(?:^|[.;:)\]]\s+)$")


def _names_or_marks(
    text: str, matches: list[re.Match[str]], index: int, stated: frozenset[str]
) -> bool:
    """Whether the number at ``matches[index]`` names or marks rather than counts."""
    start = matches[index].start()
    if (
        index > 0
        and matches[index - 1].group().replace(",", "") in stated
        and _JOINED_BEFORE.search(text[matches[index - 1].start() : start])
    ):
        return True
    if index + 1 < len(matches) and _MARK_BEFORE.search(text[max(0, start - 4) : start]):
        following = matches[index + 1].group()
        if following[0].isupper() and following.lower() in STOPWORDS:
            return True
    return False
