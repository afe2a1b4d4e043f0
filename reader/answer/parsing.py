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
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return json.loads(_TRAILING_COMMA.sub(r"\1", text))


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
    """Finds claims as soon as they are complete in output that is still growing."""

    def __init__(self) -> None:
        self.text = ""
        self._seen = 0

    def feed(self, piece: str) -> list[Claim]:
        self.text += piece
        if "}" not in piece:
            return []
        found = [c for c in (claim_from(o) for o in _objects_after_claims(_clean(self.text))) if c]
        new = found[self._seen :]
        self._seen = len(found)
        return new


MAX_CLAIM_TEXT_CHARS = 240
_REPEATED_NGRAM = 4
_REPEATS_ALLOWED = 3
_WORDS = re.compile(r"\w+")
_COUNTING = re.compile(r"(?:\d+[\s,.]+){12}\d*$")
_OPEN_FIELD = re.compile(r'"(text|answer)"\s*:\s*"|"unsupported"\s*:\s*\[')


class RepetitionGuard:
    """Watches a model's output as it streams and says when to stop it.

    Small models loop: a claim said again, a phrase repeated ("the National
    Institute of Standard and Tech and the National..."), a string that never
    closes. Each is a reason to stop generating at once, rather than at the
    token cap: what completed before the loop is kept by the parser.
    """

    def __init__(self, max_claims: int) -> None:
        self.max_claims = max_claims
        self.text = ""
        self.claims = ClaimStream()
        self._keys: set[tuple[str, str]] = set()
        self._complete = 0
        self._claims_end = 0
        self._field_end = 0  # where the text of the newest opened field starts
        self._field_closer = '"'
        self._field_open = False

    def feed(self, piece: str) -> tuple[list[Claim], str | None]:
        """New complete claims, and the reason to stop now (None: go on)."""
        self.text += piece
        new = self.claims.feed(piece)
        for claim in new:
            key = claim_key(claim)
            if key in self._keys:
                return [], "the model repeated a claim"
            self._keys.add(key)
        self._complete += len(new)
        if new:
            self._claims_end = self.text.rfind("}") + 1
        if self._complete >= self.max_claims and self._another_claim_starts():
            return new, "the model gave the claims the question needs"
        return new, self._looping(piece)

    def _another_claim_starts(self) -> bool:
        """After the last complete claim, a new one opens before the list closes."""
        tail = self.text[self._claims_end :]
        opening, closing = tail.find("{"), tail.find("]")
        return opening >= 0 and (closing < 0 or opening < closing)

    def _looping(self, piece: str) -> str | None:
        # Only the newest text is looked at, so a long output costs linear time.
        recent = len(self.text) - len(piece) - 40
        for opened in _OPEN_FIELD.finditer(self.text, max(0, recent)):
            if opened.end() > self._field_end:
                self._field_end = opened.end()
                self._field_closer = "]" if opened.group(0).endswith("[") else '"'
                self._field_open = True
        if self._field_open:
            tail = self.text[self._field_end :]
            self._field_open = self._field_closer not in tail.replace('\\"', "")
            if self._field_open and len(tail) > MAX_CLAIM_TEXT_CHARS:
                return "the model's sentence ran on without end"
            if self._field_open and _COUNTING.search(tail):
                return "the model is counting"
        if not any(char.isspace() for char in piece):
            return None  # no new word has ended
        words = _WORDS.findall(self.text[-1200:].lower())
        if len(words) >= _REPEATED_NGRAM * (_REPEATS_ALLOWED + 1):
            last_words = tuple(words[-_REPEATED_NGRAM:])
            seen = sum(
                1
                for i in range(len(words) - _REPEATED_NGRAM + 1)
                if tuple(words[i : i + _REPEATED_NGRAM]) == last_words
            )
            if seen > _REPEATS_ALLOWED:
                return "the model repeated a phrase"
        return None
