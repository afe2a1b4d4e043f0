"""Where a quote can be: the places words, tokens and numbers occur in a
document's matching key, so the matcher looks there and not everywhere.

Each index is built on first use (``prepare`` builds them all at once): a
question that verifies no quote never pays for them.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections import Counter
from collections.abc import Sequence

from reader.text.words import WORD_RUN

# Between the keys of two stretches of text that do not touch (see QuoteMatcher):
# a normalised quote never holds a line break, so no match runs across it.
SEPARATOR = "\n"
_DIGITS = re.compile(r"\d+")
# Words found in more places than this do not tell chunks apart.
_COMMON_WORD_PLACES = 400


class KeyIndex:
    """Postings of one matching key; ``chunk_key_starts`` are where its chunks begin
    in it, and ``separated`` whether it joins stretches with ``SEPARATOR``."""

    def __init__(self, key: str, chunk_key_starts: Sequence[int], separated: bool) -> None:
        self._key = key
        self._chunk_key_starts = list(chunk_key_starts)
        self._separated = separated
        self._words: dict[str, list[int]] | None = None
        self._tokens: dict[str, list[int]] | None = None
        self._numbers: set[str] | None = None

    def prepare(self) -> None:
        """Build the indexes now rather than on the first quote that needs them."""
        self.tokens()
        self.words()
        self.has_unknown_number("")

    def words(self) -> dict[str, list[int]]:
        """Key positions of every word (``\\w+``)."""
        if self._words is None:
            words: dict[str, list[int]] = {}
            for match in WORD_RUN.finditer(self._key):
                words.setdefault(match.group(), []).append(match.start())
            self._words = words
        return self._words

    def tokens(self) -> dict[str, list[int]]:
        """Key positions of every space-delimited token."""
        if self._tokens is None:
            tokens: dict[str, list[int]] = {}
            position = 0
            # A separator ends a token as a space does.
            key = self._key.replace(SEPARATOR, " ") if self._separated else self._key
            for token in key.split(" "):
                tokens.setdefault(token, []).append(position)
                position += len(token) + 1
            self._tokens = tokens
        return self._tokens

    def anchor(self, quote_key: str) -> tuple[list[int], int] | None:
        """Postings of a rare interior token of the quote, and its offset in the quote.

        In the key, spaces separate tokens exactly as in the document's key, so
        a token not touching either end of the quote is a whole token wherever
        the quote matches: its occurrences are the only places to look.
        """
        tokens = quote_key.split(" ")
        if len(tokens) < 3:
            return None
        offsets = [0]
        for token in tokens[:-1]:
            offsets.append(offsets[-1] + len(token) + 1)
        index = self.tokens()
        # Long tokens tend to be rare; the two longest are enough to try.
        interior = sorted(range(1, len(tokens) - 1), key=lambda i: len(tokens[i]), reverse=True)
        best: tuple[list[int], int] | None = None
        for position in interior[:2]:
            postings = index.get(tokens[position], [])
            if best is None or len(postings) < len(best[0]):
                best = (postings, offsets[position])
        return best

    def candidate_chunks(self, quote_key: str, limit: int) -> list[int]:
        """Chunks (by their order) sharing the most of the quote's rarer words, best first."""
        index = self.words()
        words = {word for word in WORD_RUN.findall(quote_key) if len(word) >= 3}
        if not words:
            return list(range(len(self._chunk_key_starts)))
        rarest = sorted(words, key=lambda word: len(index.get(word, ())))[:6]
        rarest = [
            word for word in rarest if len(index.get(word, ())) <= _COMMON_WORD_PLACES
        ] or rarest[:1]
        votes: Counter[int] = Counter()
        for word in rarest:
            seen = {
                bisect_right(self._chunk_key_starts, position) - 1
                for position in index.get(word, ())
            }
            votes.update(seen)
        needed = max(1, len(rarest) // 2)
        return [chunk for chunk, count in votes.most_common(limit) if count >= needed]

    def has_unknown_number(self, quote_key: str) -> bool:
        """Whether the quote holds a whole number the key never contains."""
        if self._numbers is None:
            self._numbers = set(_DIGITS.findall(self._key))
        return any(
            match.group() not in self._numbers
            for match in _DIGITS.finditer(quote_key)
            if match.start() > 0 and match.end() < len(quote_key)  # whole numbers only
        )
