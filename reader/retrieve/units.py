"""Evidence units: a sentence, or the sentences that read as one with it.

The answer often follows the sentence that names the topic ("They demanded
$12,000 to dismiss the case." after the sentence about the suit), so evidence
is scored as single sentences and as a sentence with the next one. Two kinds of
sentence never end a unit: a list's lead-in ("The three priority areas are:")
brings its items, and a question the text asks ('"Did you save any of my
books?"') brings the sentence that replies. A heading (a line of its own that
does not end as a sentence does) is a unit of its own.
"""

from __future__ import annotations

import re

from reader.text.sentences import ENDS_AS_UNIT

MIN_SENTENCE_CHARS = 25
MAX_SENTENCE_CHARS = 420
# A list's lead-in with its items may run longer than a sentence.
MAX_LIST_CHARS = 700
# Items of a list its lead-in may bring along (sentences, as segmented).
LIST_ITEMS = 4

_LIST_LEAD_IN = re.compile(r":[\"'”’)\]]*\s*$")
# A question the text asks: its answer follows.
_ASKS = re.compile(r"\?[\"'”’)\]]*\s*$")
_LIST_ITEM = re.compile(r"\s*(?:[•·▪◦‣*–-]|\(?\d{1,2}[.)]|\(?[a-z][.)])\s")


def ends_as_sentence(text: str) -> bool:
    return ENDS_AS_UNIT.search(text) is not None


def introduces_list(text: str) -> bool:
    return _LIST_LEAD_IN.search(text) is not None


def asks_question(text: str) -> bool:
    return _ASKS.search(text) is not None


def is_whole_line(reading: str, start: int, end: int) -> bool:
    """Whether ``reading[start:end]`` is a line of its own, not a list item."""
    before = reading[:start].rstrip(" \t")
    after = reading[end:].lstrip(" \t")
    return (
        (not before or before.endswith("\n"))
        and (not after or after.startswith("\n"))
        and not _LIST_ITEM.match(reading[start:end])
    )


def unit_end(reading: str, spans: list[tuple[int, int]], index: int) -> int:
    """The last sentence of the longer unit starting at sentence ``index``: the
    next one; where either introduces a list, the items that follow it too (those
    marked as items, up to ``LIST_ITEMS`` and the longest list evidence allowed),
    so a lead-in ("The three priority areas are:") never ends the evidence; where
    the next one asks a question, the sentence after it, which replies."""
    start, end = spans[index]
    lead_in = index if introduces_list(reading[start:end]) else index + 1
    if lead_in >= len(spans) or not introduces_list(reading[slice(*spans[lead_in])]):
        asks = index + 2 < len(spans) and asks_question(reading[slice(*spans[index + 1])])
        return index + 2 if asks else index + 1
    last = lead_in
    for following in range(lead_in + 1, min(lead_in + 1 + LIST_ITEMS, len(spans))):
        item_start, item_end = spans[following]
        if not _LIST_ITEM.match(reading[item_start:item_end]):
            break
        if item_end - start > MAX_LIST_CHARS:
            break
        last = following
    return max(last, index + 1)
