"""A model's claim sentence, cleaned before it is checked and shown.

Models wrap what they state in talk about the passages ("According to the
passage, ...", "The passage directly states that ..."). That wrapper is not a
statement of the document's, so it is stripped before the support check reads
the claim and before anyone sees it. And a model that finds no answer says so
in a claim ("The deadline is not specified in the passage."): that is not a
claim about the document either, but the model's verdict that the passages do
not answer, and the answer treats it as such.
"""

from __future__ import annotations

import re

_SOURCE = (
    r"(?:the|this|these|that|those|a|our)?\s*(?:given|provided|above|following|cited|quoted)?\s*"
    r"(?:passages?|texts?|documents?|sources?|quotes?|quotations?|contexts?|excerpts?|"
    r"sentences?|materials?|information|evidence)(?:\s*\[?c\d+\]?)?"
)
_VERB = (
    r"(?:directly\s+|clearly\s+|explicitly\s+|also\s+|further\s+|specifically\s+)?"
    r"(?:states?|says?|mentions?|notes?|explains?|indicates?|shows?|suggests?|describes?|"
    r"reports?|tells?\s+us|confirms?|specifies|specify|reveals?|highlights?|points?\s+out|"
    r"makes?\s+(?:it\s+)?clear)"
)
_META_PREFIXES = [
    re.compile(p, re.IGNORECASE)
    for p in (
        rf"^(?:according\s+to|based\s+on|as\s+(?:stated|mentioned|noted|described|"
        rf"explained|shown)\s+in|per|from|in)\s+{_SOURCE}\s*,\s*",
        rf"^{_SOURCE}\s+{_VERB}\s*(?:that\s+|:\s*)?",
        rf"^it\s+is\s+(?:stated|mentioned|noted|said|explained)\s+(?:in\s+{_SOURCE}\s+)?that\s+",
        rf"^as\s+{_SOURCE}\s+{_VERB}\s*,\s*",
    )
]

# A sentence after the claim about the quote itself: "... 'destroying water.' This
# quote directly answers the question by providing the literal definition."
_META_SUFFIX = re.compile(
    rf"(?<=[.!?])(['\"\u2019\u201d]?)\s+(?:{_SOURCE}\s+(?:directly\s+|clearly\s+)?"
    rf"(?:answers?|{_VERB})|this\s+(?:directly\s+|clearly\s+)?answers?)\b[^.!?]*[.!?]?\s*$",
    re.IGNORECASE,
)

# "is not specified in the passage", "the passages do not say", "no information
# about": the model's own finding that nothing given answers the question.
_NOT_ANSWERED = [
    re.compile(p, re.IGNORECASE)
    for p in (
        rf"\b(?:not|never)\s+(?:\w+\s+)?(?:specified|mentioned|stated|given|provided|"
        rf"discussed|addressed|described|indicated|answered|found|included|covered|"
        rf"available|clear|known)\s+(?:in|by|from|within)\s+{_SOURCE}",
        rf"\b{_SOURCE}\s+(?:does|do|did)\s*(?:not|n't)\s+(?:\w+\s+)?"
        rf"(?:say|state|mention|specify|provide|give|contain|include|answer|address|"
        rf"discuss|describe|indicate|tell|offer|reveal|cover)",
        rf"\b(?:no|not\s+enough|insufficient)\s+(?:\w+\s+)?(?:information|mention|details?|"
        rf"data|answer|indication|evidence)\b.*\b(?:in|from|within)\s+{_SOURCE}",
        r"\bcannot\s+be\s+(?:determined|answered|found)\s+(?:from|in|based\s+on)\b",
        r"^(?:unknown|not\s+specified|not\s+mentioned|not\s+stated|n/a|none)\.?$",
    )
]


_INVISIBLE = re.compile("[\u200b-\u200f\u2060\ufeff]")


def strip_meta(text: str) -> str:
    """The claim without the talk about the passages that wraps it.

    "According to the passage, the fee is due monthly." becomes "The fee is
    due monthly."; a claim that is nothing but such talk is left as it is.
    Invisible characters go too ("U.\u200dS."): a model may write them, and
    nobody reads them.
    """
    cleaned = _INVISIBLE.sub("", text).strip()
    suffix = _META_SUFFIX.search(cleaned)
    if suffix:
        cleaned = cleaned[: suffix.start()] + suffix.group(1)
    for _ in range(2):  # "According to the text, the passage states that ..."
        for pattern in _META_PREFIXES:
            match = pattern.match(cleaned)
            if match and match.end() < len(cleaned):
                rest = cleaned[match.end() :].lstrip(" ,:")
                if len(rest) >= 2 and any(char.isalnum() for char in rest):
                    cleaned = rest[0].upper() + rest[1:]
    return cleaned


def says_not_answered(text: str) -> bool:
    """Whether the sentence is the model saying the passages do not answer."""
    return any(pattern.search(text.strip()) for pattern in _NOT_ANSWERED)
