"""Stopping a model that loops, while its output streams.

Small models loop: a claim said again, a phrase repeated, a string that never
closes, a count that never ends. The guard reads each piece as it arrives and
says when to stop, so generation ends at once rather than at the token cap;
what completed before the loop is kept by the parser (``reader.answer.parsing``).
"""

from __future__ import annotations

import re
from collections import deque
from enum import StrEnum

from reader.answer.parsing import ClaimStream, ParsedOutput, claim_key
from reader.records import Claim
from reader.text.words import WORD_RUN

MAX_CLAIM_TEXT_CHARS = 240
_REPEATED_NGRAM = 4
_REPEATS_ALLOWED = 3
# The repeated-phrase check looks at the words of this many newest characters.
_PHRASE_WINDOW_CHARS = 1200
# Characters kept beyond the newest piece: more than a field may run on (and the 40
# before a piece where a field may have opened).
_RECENT_CHARS = 1024
_LONGEST_WORD = 64
_COUNTING = re.compile(r"(?:\d+[\s,.]+){12}\d*$")
_OPEN_FIELD = re.compile(r'"(text|answer)"\s*:\s*"|"unsupported"\s*:\s*\[')


class _PhraseCounter:
    """How often each 4-word phrase ends among the newest words, kept word by word."""

    def __init__(self) -> None:
        # Each word of the window: where it starts, and the phrase it ends (if 4 words).
        self.ends: deque[tuple[int, tuple[str, ...] | None]] = deque()
        self.counts: dict[tuple[str, ...], int] = {}
        self._previous: tuple[str, ...] = ()  # the 3 words before the next one
        self._newest: tuple[str, ...] | None = None
        self._partial = ""  # a word the newest piece may not have finished

    def feed(self, piece: str, start: int) -> None:
        """Take the next piece, which starts at offset ``start`` of the output."""
        text = self._partial + piece.lower()
        offset = start - len(self._partial)
        self._partial = ""
        for match in WORD_RUN.finditer(text):
            if match.end() == len(text):
                self._partial = match.group()[:_LONGEST_WORD]
                break
            self._add(match.group()[:_LONGEST_WORD], offset + match.start())
        window_start = start + len(piece) - _PHRASE_WINDOW_CHARS
        ends, counts = self.ends, self.counts
        while ends and ends[0][0] < window_start:
            phrase = ends.popleft()[1]
            if phrase is not None:
                left = counts[phrase] - 1
                if left:
                    counts[phrase] = left
                else:
                    del counts[phrase]

    def newest_repeats(self) -> int:
        """How often the newest 4 words (the last perhaps unfinished) occur in the window.

        0 while the window holds too few words to tell.
        """
        words = len(self.ends) + bool(self._partial)
        if words < _REPEATED_NGRAM * (_REPEATS_ALLOWED + 1):
            return 0
        if self._partial:
            return self.counts.get((*self._previous, self._partial), 0) + 1
        return self.counts.get(self._newest, 0) if self._newest else 0

    def _add(self, word: str, start: int) -> None:
        words = (*self._previous, word)
        if len(words) < _REPEATED_NGRAM:
            self._previous = words
            self.ends.append((start, None))
            return
        self._previous = words[1:]
        self.counts[words] = self.counts.get(words, 0) + 1
        self._newest = words
        self.ends.append((start, words))


class Stop(StrEnum):
    """Why the repetition guard stopped a generation early."""

    ENOUGH_CLAIMS = "the model gave the claims the question needs"
    REPEATED_CLAIM = "the model repeated a claim"
    RAN_ON = "the model's sentence ran on without end"
    COUNTING = "the model is counting"
    REPEATED_PHRASE = "the model repeated a phrase"


class RepetitionGuard:
    """Watches a model's output as it streams and says when to stop it.

    Small models loop: a claim said again, a phrase repeated ("the National
    Institute of Standard and Tech and the National..."), a string that never
    closes. Each is a reason to stop generating at once, rather than at the
    token cap: what completed before the loop is kept by the parser.

    Each piece costs time in proportion to its own length (and a bounded
    window before it), never to the output so far, so a long output costs
    linear time.
    """

    def __init__(self, max_claims: int) -> None:
        self.max_claims = max_claims
        self.claims = ClaimStream()
        self._keys: set[tuple[str, str]] = set()
        self._complete = 0
        self._length = 0  # characters fed so far
        self._recent = ""  # the newest piece and up to _RECENT_CHARS before it
        # After the newest complete claim: where the first "{" and the first "]" are.
        self._claims_end: int | None = None
        self._next_open = self._next_close = -1
        self._field_end = 0  # where the text of the newest opened field starts
        self._field_closer = '"'
        self._field_open = False
        self._phrases = _PhraseCounter()

    def feed(self, piece: str) -> tuple[list[Claim], Stop | None]:
        """New complete claims, and the reason to stop now (None: go on)."""
        start = self._length
        self._length += len(piece)
        self._recent = (self._recent + piece)[-(len(piece) + _RECENT_CHARS) :]
        new = self.claims.feed(piece)
        for claim in new:
            key = claim_key(claim)
            if key in self._keys:
                return [], Stop.REPEATED_CLAIM
            self._keys.add(key)
        self._complete += len(new)
        self._follow_claims_end(piece, start, bool(new))
        if self._complete >= self.max_claims and self._another_claim_starts():
            return new, Stop.ENOUGH_CLAIMS
        return new, self._looping(piece, start)

    def _follow_claims_end(self, piece: str, start: int, claims_completed: bool) -> None:
        if claims_completed:
            # The claim just completed closed in this piece, at or before its last "}".
            self._claims_end = start + piece.rfind("}") + 1
            self._next_open = self._next_close = -1
        if self._claims_end is None:
            return
        after = max(0, self._claims_end - start)
        if self._next_open < 0 and (found := piece.find("{", after)) >= 0:
            self._next_open = start + found
        if self._next_close < 0 and (found := piece.find("]", after)) >= 0:
            self._next_close = start + found

    def _another_claim_starts(self) -> bool:
        """After the last complete claim, a new one opens before the list closes."""
        opening, closing = self._next_open, self._next_close
        return opening >= 0 and (closing < 0 or opening < closing)

    def _looping(self, piece: str, start: int) -> Stop | None:
        window_start = self._length - len(self._recent)
        self._phrases.feed(piece, start)
        # Only the newest text is looked at, so a long output costs linear time.
        recent = max(0, start - 40) - window_start
        for opened in _OPEN_FIELD.finditer(self._recent, max(0, recent)):
            if window_start + opened.end() > self._field_end:
                self._field_end = window_start + opened.end()
                self._field_closer = "]" if opened.group(0).endswith("[") else '"'
                self._field_open = True
        if self._field_open:
            if self._field_end < window_start:
                return Stop.RAN_ON  # longer than the window
            tail = self._recent[self._field_end - window_start :]
            self._field_open = self._field_closer not in tail.replace('\\"', "")
            if self._field_open and len(tail) > MAX_CLAIM_TEXT_CHARS:
                return Stop.RAN_ON
            if self._field_open and _COUNTING.search(tail):
                return Stop.COUNTING
        if not any(char.isspace() for char in piece):
            return None  # no new word has ended
        if self._phrases.newest_repeats() > _REPEATS_ALLOWED:
            return Stop.REPEATED_PHRASE
        return None


def output_problem(parsed: ParsedOutput, text: str, stopped: Stop | None) -> str | None:
    """What went wrong with a generation, in words for the answer's problem line."""
    notes = []
    if stopped is not None and stopped is not Stop.ENOUGH_CLAIMS:
        notes.append(f"generation stopped early: {stopped}")
    if not parsed.claims:
        if not text.strip():
            notes.append("the model returned nothing")
        elif not parsed.problems:
            notes.append("the model gave no claims")
    if parsed.problems and not (stopped and parsed.claims):
        notes.extend(parsed.problems)
    return "; ".join(notes) or None
