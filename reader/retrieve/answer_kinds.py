"""The kind of answer a question asks for, and the sentences that hold one.

"How many ...?" asks for a number, "How often ...?" for a share, "When ...?" for
a date, "Who ...?" for a name, "Why ...?" for a reason. Evidence that holds the
kind asked for ranks above evidence that holds the question's words alone
(see ``reader.retrieve.evidence``).
"""

from __future__ import annotations

import re

from reader.text.numbers import FRACTIONS, MULTIPLIERS, TENS, alternation, small_number_words

_NUMBER = re.compile(r"\d")
# A count or share written out: "fourteen years", "twenty-seven", "one quarter".
# From "two": "one" is as often no count ("one of them", "no one") as a count.
_WRITTEN_NUMBER = re.compile(
    rf"\b({alternation([*small_number_words(2, 19), *TENS, *MULTIPLIERS, *FRACTIONS])}"
    r"|dozen|percent|once|twice)\b",
    re.IGNORECASE,
)
# A question for a share or a rate, answered by a percentage most often.
_SHARE_QUESTION = re.compile(
    r"\bhow often\b|\bwhat (?:\w+ )?(?:percentage|share|proportion|fraction|rate|percent)\b"
)
_PERCENT = re.compile(r"%|\bper ?cent", re.IGNORECASE)
_YEAR = re.compile(r"\b(1[5-9]|20)\d\d\b")
# A Chinese or Japanese date: "2018年1月16日", "一九三七年八月一日".
_CJK_DATE = re.compile(r"(?:\d{1,4}|[〇零一二三四五六七八九十]+)\s*[年月日]")
_CJK_NUMBER_QUESTION = re.compile("多少|几|多长|多大|多高|多久|いくつ|いくら|몇|얼마")
_CJK_DATE_QUESTION = re.compile("何时|什么时候|哪一?天|哪一?年|什么日期|いつ|언제")
_NAME = re.compile(r"(?<![.!?]\s)(?<!^)\b[A-Z][a-z]+")
_REASON = re.compile(
    r"\b(because|since|so that|due to|attributed|in order to|as a result|reason|"
    r"intended to|aims? to|designed to|simplif|allows?|enables?)\b",
    re.IGNORECASE,
)

# A clause that sets the scene before the question proper: "When the house burned
# down, which of his books ...?" asks which, not when.
_LEADING_CLAUSE = re.compile(
    r"^\s*(?:when|if|once|after|before|while|since|as)\b"
    # "When was the house burned, and by whom?" asks when.
    r"(?!\s+(?:did|does|do|was|were|is|are|will|would|can|could|should|has|have|had)\b)"
    r"[^,?]*,\s*(?=(?:\w+\s+){0,3}"
    r"(?:what|which|who|whom|whose|how|why|where|when)\b)",
    re.IGNORECASE,
)


def expected_kind(question: str) -> str | None:
    """What the question asks for: "number", "share", "year", "name", "reason" or None."""
    question = _LEADING_CLAUSE.sub("", question)
    if _CJK_DATE_QUESTION.search(question):
        return "year"
    if _CJK_NUMBER_QUESTION.search(question):
        return "number"
    lowered = question.lower()
    if _SHARE_QUESTION.search(lowered):
        return "share"
    if re.search(
        r"\bhow (many|much|long|old|often|large|big|far)\b|\bwhat (?:\w+ ){0,2}(percentage|"
        r"share|proportion|number|rate|amount|size|cost|price|sum|total|age|duration)\b"
        r"|\bhow high\b",
        lowered,
    ):
        return "number"
    if re.search(
        r"\b(when|what year|which year|what date|in what year|(what|which) (day|month))\b",
        lowered,
    ):
        return "year"
    if re.search(r"\b(who|whom|whose)\b", lowered):
        return "name"
    if re.search(r"\b(why|what for|purpose|goal|aim|explanation|reason|cause)\b", lowered):
        return "reason"
    return None


def kind_bonus(kind: str | None, sentence: str) -> float:
    """What a sentence gains for holding the kind of answer asked for."""
    if kind == "share":
        # Any number may be the share ("nine out of ten"); a percentage most likely is.
        return kind_bonus("number", sentence) + (0.1 if _PERCENT.search(sentence) else 0.0)
    if kind == "number" and (_NUMBER.search(sentence) or _WRITTEN_NUMBER.search(sentence)):
        return 0.15
    if kind == "reason" and _REASON.search(sentence):
        return 0.1
    if kind == "year" and (_YEAR.search(sentence) or _CJK_DATE.search(sentence)):
        return 0.15
    if kind == "name" and _NAME.search(sentence):
        return 0.05
    return 0.0
