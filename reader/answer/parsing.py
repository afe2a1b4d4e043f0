"""Reading a model's JSON forgivingly, then validating it strictly.

Forgiving: think blocks, code fences, prose around the object, trailing
commas and output cut off mid-way (complete claims are still recovered).
Strict: only string fields of the expected names become claims; anything else
is dropped and said so. Garbage never raises: it yields no claims and a
readable ``problem``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Hashable, Iterable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from reader.records import Claim

T = TypeVar("T")

MAX_OUTPUT_CHARS = 200_000
MAX_CLAIMS = 20
MAX_FIELD_CHARS = 4_000

_THINK = re.compile(r"<think>.*?(?:</think>|$)", re.DOTALL | re.IGNORECASE)
_FENCE = re.compile(r"```(?:json|JSON)?\s*(.*?)(?:```|$)", re.DOTALL)
_TRAILING_COMMA = re.compile(r",(\s*[}\]])")


@dataclass
class ParsedOutput:
    answer: str = ""
    claims: list[Claim] = field(default_factory=list)
    unsupported: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


def _clean(raw: str) -> str:
    text = _THINK.sub("", raw[:MAX_OUTPUT_CHARS])
    fenced = _FENCE.search(text)
    if fenced and "{" in fenced.group(1):
        text = fenced.group(1)
    return text


def _balanced_objects(text: str, start: int = 0) -> list[tuple[int, int]]:
    """``[start, end)`` of each top-level ``{...}`` from ``start``, strings respected."""
    spans = []
    depth = 0
    in_string = escaped = False
    opening = -1
    for index in range(start, len(text)):
        char = text[index]
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char == "{":
            if depth == 0:
                opening = index
            depth += 1
        elif char == "}" and depth > 0:
            depth -= 1
            if depth == 0:
                spans.append((opening, index + 1))
    return spans


def _loads(text: str) -> Any:
    """Decoded JSON; a JSONDecodeError for anything that is not (nesting too deep too)."""
    try:
        try:
            return json.loads(text)
        except json.JSONDecodeError:
            return json.loads(_TRAILING_COMMA.sub(r"\1", text))
    except RecursionError:
        raise json.JSONDecodeError("nested too deeply", text, 0) from None


def _text(value: Any) -> str | None:
    if isinstance(value, str):
        return value[:MAX_FIELD_CHARS]
    return None


def claim_from(value: Any) -> Claim | None:
    """A claim from a decoded JSON object, or None if it is not one."""
    if not isinstance(value, dict):
        return None
    text = _text(value.get("text"))
    source = value.get("source_id", value.get("source"))
    if isinstance(source, int):
        source = f"c{source}"
    quote = _text(value.get("quote"))
    if text is None or quote is None or not isinstance(source, str):
        return None
    return Claim(text=text.strip(), source_id=source.strip()[:200], quote=quote)


def parse_output(raw: str) -> ParsedOutput:
    """Claims, answer and unsupported list from whatever the model wrote."""
    parsed = ParsedOutput()
    text = _clean(raw)
    document: Any = None
    for start, end in _balanced_objects(text):
        try:
            document = _loads(text[start:end])
        except json.JSONDecodeError:
            continue
        if isinstance(document, dict):
            break
        document = None
    if document is None:
        # Cut off or broken: recover the claims that did complete.
        recovered = [c for c in (claim_from(o) for o in _objects_after_claims(text)) if c]
        unique = unique_by(recovered, claim_key)
        parsed.claims = unique[:MAX_CLAIMS]
        parsed.problems.append(
            "the model's output was not valid JSON"
            + (f"; {_count_claims(len(parsed.claims))} recovered" if recovered else "")
            + _repeats_note(len(recovered) - len(unique))
        )
        return parsed

    answer = document.get("answer")
    if isinstance(answer, str):
        parsed.answer = answer[: MAX_FIELD_CHARS * 4]
    elif answer is not None:
        parsed.problems.append("the answer was not text")
    claims = document.get("claims", [])
    if not isinstance(claims, list):
        parsed.problems.append("the claims were not a list")
        claims = []
    dropped = 0
    for value in claims[:MAX_CLAIMS]:
        claim = claim_from(value)
        if claim is None:
            dropped += 1
        else:
            parsed.claims.append(claim)
    if dropped:
        parsed.problems.append(f"{dropped} claims lacked a text, source_id or quote")
    unique = unique_by(parsed.claims, claim_key)
    if len(unique) < len(parsed.claims):
        repeats = len(parsed.claims) - len(unique)
        parsed.claims = unique
        parsed.problems.append(_repeats_note(repeats).removeprefix("; "))
    if len(claims) > MAX_CLAIMS:
        parsed.problems.append(f"only the first {MAX_CLAIMS} claims were kept")
    unsupported = document.get("unsupported", [])
    if isinstance(unsupported, list):
        parsed.unsupported = [u[:MAX_FIELD_CHARS] for u in unsupported if isinstance(u, str)][:20]
    elif isinstance(unsupported, str) and unsupported.strip():
        parsed.unsupported = [unsupported[:MAX_FIELD_CHARS]]
    return parsed


def claim_key(claim: Claim) -> tuple[str, str]:
    """Two claims with this key are the same claim said twice (small models loop)."""
    return (claim.text.casefold(), claim.quote.casefold())


def unique_by(items: Iterable[T], key: Callable[[T], Hashable]) -> list[T]:
    """The items in order, each key kept once (the first)."""
    seen: set[Hashable] = set()
    unique = []
    for item in items:
        if key(item) not in seen:
            seen.add(key(item))
            unique.append(item)
    return unique


def _count_claims(count: int) -> str:
    return f"{count} complete claim was" if count == 1 else f"{count} complete claims were"


def _repeats_note(repeats: int) -> str:
    if not repeats:
        return ""
    return f"; {repeats} repeated claim{'s' if repeats > 1 else ''} dropped"


_CLAIMS_KEY = re.compile(r'"claims"\s*:\s*\[')


def _objects_after_claims(text: str) -> list[Any]:
    match = _CLAIMS_KEY.search(text)
    if match is None:
        return []
    objects = []
    for start, end in _balanced_objects(text, match.end()):
        try:
            objects.append(_loads(text[start:end]))
        except json.JSONDecodeError:
            continue
    return objects


class ClaimStream:
    """Finds claims as soon as they are complete in output that is still growing.

    It reads each character once, so a long output costs linear time: the
    same reading as ``parse_output``'s recovery of a cut-off output (think
    blocks skipped, the objects after ``"claims": [``), except that code
    fences are not looked for and a ``"claims"`` key padded with more than a
    few hundred spaces is missed (the parse of the whole output still finds
    it).
    """

    def __init__(self) -> None:
        self._read = 0  # characters read; only the first MAX_OUTPUT_CHARS count
        self._held = ""  # the end of the last piece, when it may begin a think tag
        self._in_think = False
        self._in_claims = False
        self._key_tail = ""  # the end of the output before the key, when it may begin it
        self._in_string = self._escaped = False
        self._depth = 0
        self._object_parts: list[str] = []  # the open claim object, across pieces

    def feed(self, piece: str) -> list[Claim]:
        piece = piece[: max(0, MAX_OUTPUT_CHARS - self._read)]
        self._read += len(piece)
        text, self._held = self._held + piece, ""
        claims: list[Claim] = []
        position = 0
        while position < len(text):
            if self._in_think:
                closing = _THINK_CLOSE.search(text, position)
                if closing is None:
                    self._held = text[len(text) - _cut_tag(text, "</think>") :]
                    break
                self._in_think = False
                position = closing.end()
                continue
            opening = _THINK_OPEN.search(text, position)
            end = opening.start() if opening else len(text) - _cut_tag(text, "<think>")
            self._read_json(text, position, end, claims)
            if opening is None:
                self._held = text[end:]
                break
            self._in_think = True
            position = opening.end()
        return claims

    def _read_json(self, text: str, start: int, end: int, claims: list[Claim]) -> None:
        """Read ``text[start:end]`` (no think block in it) for the key, then claim objects."""
        if not self._in_claims:
            seen = self._key_tail + text[start:end]
            key = _CLAIMS_KEY.search(seen)
            if key is None:
                cut = _CUT_CLAIMS_KEY.search(seen[-_KEY_TAIL_CHARS:])
                self._key_tail = cut.group() if cut else ""
                return
            self._in_claims = True
            start += key.end() - len(self._key_tail)
            self._key_tail = ""
        position = start
        object_start = start
        while position < end:
            if self._in_string:
                if self._escaped:
                    self._escaped = False
                    position += 1
                    continue
                special = _STRING_SPECIAL.search(text, position, end)
                if special is None:
                    break
                position = special.end()
                if special.group() == "\\":
                    self._escaped = True
                else:
                    self._in_string = False
                continue
            structure = _STRUCTURE.search(text, position, end)
            if structure is None:
                break
            char, position = structure.group(), structure.end()
            if char == '"':
                self._in_string = True
            elif char == "{":
                if self._depth == 0:
                    object_start = structure.start()
                    self._object_parts = []
                self._depth += 1
            elif self._depth > 0:
                self._depth -= 1
                if self._depth == 0:
                    self._object_parts.append(text[object_start:position])
                    claim = _claim_in("".join(self._object_parts))
                    self._object_parts = []
                    if claim is not None:
                        claims.append(claim)
        if self._depth > 0:
            self._object_parts.append(text[object_start:end])


_THINK_OPEN = re.compile(r"<think>", re.IGNORECASE)
_THINK_CLOSE = re.compile(r"</think>", re.IGNORECASE)
_STRING_SPECIAL = re.compile(r'["\\]')
_STRUCTURE = re.compile(r'["{}]')
_KEY_TAIL_CHARS = 256
_CUT_CLAIMS_KEY = re.compile(r'"(?:c(?:l(?:a(?:i(?:m(?:s(?:"\s*(?::\s*)?)?)?)?)?)?)?)?\Z')


def _cut_tag(text: str, tag: str) -> int:
    """How many of ``text``'s last characters begin ``tag`` (case-insensitive)."""
    if "<" not in text[-len(tag) :]:
        return 0
    for size in range(min(len(tag) - 1, len(text)), 0, -1):
        if text[-size:].lower() == tag[:size]:
            return size
    return 0


def _claim_in(text: str) -> Claim | None:
    try:
        return claim_from(_loads(text))
    except json.JSONDecodeError:
        return None
