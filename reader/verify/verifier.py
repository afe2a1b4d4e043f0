"""The span verifier: is this quote in that source, and exactly where?

Three outcomes (see DESIGN.md):
- exact: the normalised quote occurs in the normalised source; the span covers
  exactly the quoted characters of the canonical text;
- fuzzy: the quote is there but damaged by extraction (a dropped ligature, a
  word split or run together, a garbled character); the best-aligned span is
  returned and flagged;
- miss: not in the cited source, with the reason, including when the quote is
  in another chunk than the one cited.

Fuzzy matching tolerates extraction damage, never rewriting: a changed number,
an added or dropped negation, a swapped, added or dropped word is a different
statement and is a miss however similar the strings are.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections import Counter
from collections.abc import Collection, Sequence
from difflib import SequenceMatcher
from unicodedata import combining

from rapidfuzz import fuzz
from rapidfuzz.distance import Levenshtein

from reader.records import Chunk, Document, Verification
from reader.textnorm import NormalizedText, normalize, normalize_key

FUZZY_MIN_SCORE = 85.0
_CANDIDATE_CUTOFF = 75.0  # rough alignment score worth refining
_WORD = re.compile(r"\w+")
_DIGITS = re.compile(r"\d+")
_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
_NEGATION = re.compile(
    r"\b(?:not|no|never|none|nor|neither|nobody|nothing|nowhere|cannot|without|"
    r"nicht|kein\w*|nie|pas|non|jamais|nunca|nada)\b|n't\b"
)
# Glyph look-alikes that extraction confuses, as (source, quote).
_LOOKALIKES = {("l", "i"), ("i", "l"), ("rn", "m"), ("m", "rn"), ("cl", "d")}
# What a Latin ligature glyph stands for, when extraction lost it.
_LIGATURE_LETTERS = {"ff", "fi", "fl", "ffi", "ffl", "ft", "st"}


class DocumentVerifier:
    """Verifies quotes against one document and its chunks.

    Build one per document and reuse it: normalising a long document is the
    expensive part, matching a quote afterwards is cheap.
    """

    def __init__(self, document: Document, chunks: Sequence[Chunk]) -> None:
        self.document = document
        self.chunks = sorted(chunks, key=lambda chunk: chunk.start)
        self._by_id = {chunk.id: chunk for chunk in self.chunks}
        self._norm: NormalizedText = normalize(document.text)
        origin = self._norm.origin
        self._chunk_starts = [chunk.start for chunk in self.chunks]
        self._key_ranges = {
            chunk.id: (bisect_left(origin, chunk.start), bisect_left(origin, chunk.end))
            for chunk in self.chunks
        }
        self._chunk_key_starts = [self._key_ranges[chunk.id][0] for chunk in self.chunks]
        self._words: dict[str, list[int]] | None = None
        self._tokens: dict[str, list[int]] | None = None
        self._numbers: set[str] | None = None

    # -- public ------------------------------------------------------------------

    def prepare(self) -> None:
        """Build the lookup indexes now rather than on the first quote that needs them."""
        self._token_index()
        self._word_index()
        self._has_unknown_number("")

    def verify(
        self,
        quote: str,
        source: str | None = None,
        retrieved: Collection[str] | None = None,
    ) -> Verification:
        """Check ``quote`` against chunk ``source`` (or the whole document if None).

        ``retrieved`` names the chunks the model was shown; citing any other
        chunk is a miss even if the quote is there.
        """
        quote_key = normalize_key(quote)
        if not quote_key:
            return Verification("miss", "the quote is empty", chunk_id=source)
        positions = self._find_all(quote_key)
        occurrences = len(positions)

        if source is None:
            return self._verify_in_document(quote_key, positions)

        chunk = self._by_id.get(source)
        if chunk is None:
            return Verification(
                "miss",
                f"source {source} is not a chunk of this document",
                chunk_id=source,
                occurrences=occurrences,
            )
        if retrieved is not None and source not in retrieved:
            return Verification(
                "miss",
                f"source {source} was not among the passages retrieved for this question",
                chunk_id=source,
                occurrences=occurrences,
            )
        low, high = self._key_ranges[source]
        length = len(quote_key)
        for position in positions:
            if position < high and position + length > low:
                return self._exact(source, position, length, occurrences)
        if positions:
            elsewhere = tuple(dict.fromkeys(self._chunk_at_key(p) for p in positions))
            return Verification(
                "miss",
                f"the quote is in chunk {', '.join(elsewhere)}, not in the cited chunk {source}",
                chunk_id=source,
                occurrences=occurrences,
                found_in=elsewhere,
            )
        aligned = (
            None
            if self._has_unknown_number(quote_key)
            else self._fuzzy_in_range(quote_key, low, high)
        )
        if aligned is not None:
            return self._fuzzy(source, aligned)
        other = self._fuzzy_anywhere(quote_key, exclude=source)
        if other is not None:
            other_chunk = self._chunk_at_key(other[0])
            return Verification(
                "miss",
                f"a damaged copy of the quote is in chunk {other_chunk}, "
                f"not in the cited chunk {source}",
                chunk_id=source,
                score=other[2],
                found_in=(other_chunk,),
            )
        return Verification(
            "miss",
            "the quote was not found in the cited chunk or anywhere in the document",
            chunk_id=source,
        )

    def find_all(self, quote: str) -> list[tuple[int, int]]:
        """Every ``[start, end)`` span of the canonical text matching ``quote`` exactly."""
        quote_key = normalize_key(quote)
        if not quote_key:
            return []
        return [
            self._span(position, position + len(quote_key))
            for position in self._find_all(quote_key)
        ]

    # -- outcomes ------------------------------------------------------------------

    def _span(self, key_start: int, key_end: int) -> tuple[int, int]:
        start, end = self._norm.span(key_start, key_end)
        if self._norm.key[key_end - 1] == "-":
            # A run of dashes ("--") is one key character: take the whole run.
            text = self.document.text
            while end < len(text) and normalize_key(text[end]) == "-":
                end += 1
        return start, end

    def _exact(self, chunk_id: str, position: int, length: int, occurrences: int) -> Verification:
        start, end = self._span(position, position + length)
        reason = "the quote occurs in the cited source"
        if occurrences > 1:
            reason += f" (and {occurrences - 1} more time{'s' if occurrences > 2 else ''} "
            reason += "in the document)"
        return Verification(
            "exact",
            reason,
            chunk_id=chunk_id,
            start=start,
            end=end,
            page=self.document.page_of(start),
            score=100.0,
            occurrences=occurrences,
        )

    def _fuzzy(self, chunk_id: str, aligned: tuple[int, int, float]) -> Verification:
        key_start, key_end, score = aligned
        start, end = self._span(key_start, key_end)
        return Verification(
            "fuzzy",
            f"the quote matches the source up to extraction damage (similarity {score:.0f}%)",
            chunk_id=chunk_id,
            start=start,
            end=end,
            page=self.document.page_of(start),
            score=score,
            occurrences=0,
        )

    def _verify_in_document(self, quote_key: str, positions: list[int]) -> Verification:
        if positions:
            return self._exact(
                self._chunk_at_key(positions[0]), positions[0], len(quote_key), len(positions)
            )
        aligned = self._fuzzy_anywhere(quote_key, exclude=None)
        if aligned is not None:
            return self._fuzzy(self._chunk_at_key(aligned[0]), aligned)
        return Verification("miss", "the quote was not found anywhere in the document")

    # -- matching ------------------------------------------------------------------

    def _find_all(self, quote_key: str) -> list[int]:
        key = self._norm.key
        length = len(quote_key)
        anchor = self._anchor(quote_key)
        if anchor is None:
            candidates = []
            position = key.find(quote_key)
            while position >= 0:
                candidates.append(position)
                position = key.find(quote_key, position + 1)
        else:
            # Only where the quote's rarest whole word occurs can the quote occur.
            postings, offset = anchor
            candidates = [
                start
                for start in (p - offset for p in postings)
                if start >= 0 and key.startswith(quote_key, start)
            ]
        # The key holds accented letters decomposed; a match must not cut one
        # apart ("e" is not found in "é").
        return [
            position
            for position in candidates
            if not (
                combining(key[position])
                or (position + length < len(key) and combining(key[position + length]))
            )
        ]

    def _word_index(self) -> dict[str, list[int]]:
        """Key positions of every word (``\\w+``), built on first use."""
        if self._words is None:
            words: dict[str, list[int]] = {}
            for match in _WORD.finditer(self._norm.key):
                words.setdefault(match.group(), []).append(match.start())
            self._words = words
        return self._words

    def _token_index(self) -> dict[str, list[int]]:
        """Key positions of every space-delimited token, built on first use."""
        if self._tokens is None:
            tokens: dict[str, list[int]] = {}
            position = 0
            for token in self._norm.key.split(" "):
                tokens.setdefault(token, []).append(position)
                position += len(token) + 1
            self._tokens = tokens
        return self._tokens

    def _anchor(self, quote_key: str) -> tuple[list[int], int] | None:
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
        index = self._token_index()
        # Long tokens tend to be rare; the two longest are enough to try.
        interior = sorted(range(1, len(tokens) - 1), key=lambda i: len(tokens[i]), reverse=True)
        best: tuple[list[int], int] | None = None
        for position in interior[:2]:
            postings = index.get(tokens[position], [])
            if best is None or len(postings) < len(best[0]):
                best = (postings, offsets[position])
        return best

    def _candidate_chunks(self, quote_key: str, limit: int) -> list[int]:
        """Chunks sharing the most of the quote's rarer words, best first."""
        index = self._word_index()
        words = {word for word in _WORD.findall(quote_key) if len(word) >= 3}
        if not words:
            return list(range(len(self.chunks)))
        # Words found in hundreds of places do not tell chunks apart.
        rarest = sorted(words, key=lambda word: len(index.get(word, ())))[:6]
        rarest = [word for word in rarest if len(index.get(word, ())) <= 400] or rarest[:1]
        votes: Counter[int] = Counter()
        for word in rarest:
            seen = {
                bisect_right(self._chunk_key_starts, position) - 1
                for position in index.get(word, ())
            }
            votes.update(seen)
        needed = max(1, len(rarest) // 2)
        return [chunk for chunk, count in votes.most_common(limit) if count >= needed]

    def _chunk_at_key(self, key_position: int) -> str:
        offset = self._norm.origin[key_position]
        index = bisect_right(self._chunk_starts, offset) - 1
        chunk = self.chunks[max(0, index)]
        return chunk.id

    def _has_unknown_number(self, quote_key: str) -> bool:
        """Whether the quote holds a number the document never contains.

        Such a quote cannot match even fuzzily (damage never changes digits),
        so the costly alignment is skipped.
        """
        if self._numbers is None:
            self._numbers = set(_DIGITS.findall(self._norm.key))
        return any(
            match.group() not in self._numbers
            for match in _DIGITS.finditer(quote_key)
            if match.start() > 0 and match.end() < len(quote_key)  # whole numbers only
        )

    def _fuzzy_anywhere(self, quote_key: str, exclude: str | None) -> tuple[int, int, float] | None:
        """The best fuzzy alignment in any chunk (but ``exclude``)."""
        if self._has_unknown_number(quote_key):
            return None
        best: tuple[int, int, float] | None = None
        for index in self._candidate_chunks(quote_key, limit=6):
            chunk = self.chunks[index]
            if chunk.id == exclude or index < 0:
                continue
            low, high = self._key_ranges[chunk.id]
            aligned = self._fuzzy_in_range(quote_key, low, high)
            if aligned is not None and (best is None or aligned[2] > best[2]):
                best = aligned
        return best

    def _fuzzy_in_range(self, quote_key: str, low: int, high: int) -> tuple[int, int, float] | None:
        """Align a damaged quote with key range ``[low, high)``.

        The window reaches one quote length past the range on each side, so a
        quote running across a chunk boundary is found, but the match must
        overlap the range itself.
        """
        key = self._norm.key
        window_low = max(0, low - len(quote_key))
        window_high = min(len(key), high + len(quote_key))
        window = key[window_low:window_high]
        rough = fuzz.partial_ratio_alignment(quote_key, window, score_cutoff=_CANDIDATE_CUTOFF)
        if rough is None:
            return None
        margin = max(8, len(quote_key) // 4)
        area_low = max(0, rough.dest_start - margin)
        area_high = min(len(window), rough.dest_end + margin)
        aligned = align_damaged(quote_key, window[area_low:area_high])
        if aligned is None:
            return None
        start = window_low + area_low + aligned[0]
        end = window_low + area_low + aligned[1]
        if not (start < high and end > low):
            return None
        return start, end, aligned[2]


def align_damaged(quote: str, text: str) -> tuple[int, int, float] | None:
    """Find the stretch of ``text`` that ``quote`` is a damaged copy of.

    Both arguments are normalisation keys. Returns ``(start, end, score)`` in
    ``text`` or None when the only alignment found changes what is said.
    """
    quote_words = [(m.group(0), m.start(), m.end()) for m in _WORD.finditer(quote)]
    text_words = [(m.group(0), m.start(), m.end()) for m in _WORD.finditer(text)]
    if not quote_words or not text_words:
        return None
    matcher = SequenceMatcher(
        None, [w[0] for w in quote_words], [w[0] for w in text_words], autojunk=False
    )
    opcodes: list[tuple[str, int, int, int, int]] = list(matcher.get_opcodes())
    # Text words before the quote's first word or after its last are context.
    while opcodes and opcodes[0][0] == "insert":
        opcodes.pop(0)
    while opcodes and opcodes[-1][0] == "insert":
        opcodes.pop()
    if not opcodes or all(op[0] != "equal" for op in opcodes):
        return None
    opcodes = _trim_edge(opcodes, quote_words, text_words, first=True)
    opcodes = _trim_edge(opcodes, quote_words, text_words, first=False)

    for tag, q1, q2, t1, t2 in opcodes:
        if tag == "equal":
            continue
        if tag in ("delete", "insert"):
            return None  # a word added or dropped
        damaged = "".join(w[0] for w in text_words[t1:t2])
        intended = "".join(w[0] for w in quote_words[q1:q2])
        if not _is_extraction_damage(intended, damaged):
            return None

    first, last = opcodes[0], opcodes[-1]
    start = text_words[first[3]][1]
    end = text_words[last[4] - 1][2]
    matched = text[start:end]
    core_quote = quote[quote_words[first[1]][1] : quote_words[last[2] - 1][2]]
    if _NUMBER.findall(core_quote) != _NUMBER.findall(matched):
        return None
    if len(_NEGATION.findall(core_quote)) != len(_NEGATION.findall(matched)):
        return None
    score = fuzz.ratio(quote, matched)
    if score < FUZZY_MIN_SCORE:
        return None
    return start, end, score


def _trim_edge(
    opcodes: list[tuple[str, int, int, int, int]],
    quote_words: list[tuple[str, int, int]],
    text_words: list[tuple[str, int, int]],
    first: bool,
) -> list[tuple[str, int, int, int, int]]:
    """Drop context words folded into a replacement at the quote's edge."""
    index = 0 if first else -1
    tag, q1, q2, t1, t2 = opcodes[index]
    if tag != "replace" or t2 - t1 <= 1:
        return opcodes
    intended = "".join(w[0] for w in quote_words[q1:q2])
    best_range, best_score = (t1, t2), -1.0
    for cut in range(t1, t2):
        candidate = (cut, t2) if first else (t1, cut + 1)
        damaged = "".join(w[0] for w in text_words[candidate[0] : candidate[1]])
        score = Levenshtein.normalized_similarity(intended, damaged)
        if score > best_score:
            best_range, best_score = candidate, score
    trimmed = list(opcodes)
    trimmed[index] = (tag, q1, q2, best_range[0], best_range[1])
    return trimmed


def _is_extraction_damage(intended: str, damaged: str) -> bool:
    """Whether ``damaged`` (source) could be ``intended`` (quote) mangled by extraction.

    Both are words run together without spaces, so split and merged words
    compare equal. Allowed: letters lost where a ligature glyph had no
    Unicode mapping ("nd" for "find"), garbage characters in the source in
    place of letters or between them, and look-alike glyphs. Not allowed: any
    other letter added, dropped or replaced, which is how one word becomes
    another ("likely" and "unlikely", "increase" and "decrease").
    """
    if intended == damaged:
        return True
    if re.sub(r"\D", "", intended) != re.sub(r"\D", "", damaged):
        return False
    changed = 0
    for opcode in Levenshtein.opcodes(damaged, intended):
        if opcode.tag == "equal":
            continue
        source_part = damaged[opcode.src_start : opcode.src_end]
        quote_part = intended[opcode.dest_start : opcode.dest_end]
        changed += max(len(source_part), len(quote_part))
        if not source_part and _is_garbage(quote_part):
            continue  # punctuation the source lacks
        if (
            source_part
            and _is_garbage(source_part)
            and (_is_garbage(quote_part) or quote_part in _LIGATURE_LETTERS or len(quote_part) == 1)
        ):
            continue  # a glyph with no Unicode mapping, or stray marks
        if not source_part and quote_part in _LIGATURE_LETTERS:
            continue  # a ligature that extraction dropped altogether
        if (source_part, quote_part) in _LOOKALIKES:
            continue
        return False
    return changed <= max(3, len(intended) // 5)


def _is_garbage(text: str) -> bool:
    return not any(char.isalnum() for char in text)
