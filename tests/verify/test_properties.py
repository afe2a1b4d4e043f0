"""Property tests: damage by whitespace, case and quote style never moves a span."""

from __future__ import annotations

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from reader.ingest.chunking import chunk_text
from reader.records import Document
from reader.text.normalize import normalize_key
from reader.verify import DocumentVerifier

WORD_CHARS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789éüñçÅ"
QUOTE_STYLES = {
    "'": "\u2018\u2019'",
    "\u2018": "'\u2019",
    "\u2019": "'\u2018",
    '"': '\u201c\u201d"',
    "\u201c": '"\u201d',
    "\u201d": '"\u201c',
}
WHITESPACE = [" ", "  ", "\n", " \n ", "\t", "\u00a0", "\n\n"]

words = st.text(alphabet=WORD_CHARS, min_size=1, max_size=9)
punctuation = st.sampled_from(
    [".", ",", ";", ":", "!", "?", "'", '"', "\u2019", "\u201c", "\u201d", "(", ")"]
)
tokens = st.one_of(words, words.map(lambda w: w + "."), punctuation)
separators = st.sampled_from([*WHITESPACE, "", ""])


@st.composite
def documents(draw: st.DrawFn) -> str:
    parts = draw(st.lists(st.tuples(tokens, separators), min_size=5, max_size=250))
    return "".join(token + sep for token, sep in parts)


def damage(quote: str, rng: random.Random) -> str:
    out = []
    index = 0
    while index < len(quote):
        char = quote[index]
        if char.isspace():
            end = index
            while end < len(quote) and quote[end].isspace():
                end += 1
            out.append(rng.choice(WHITESPACE))
            index = end
            continue
        if char in QUOTE_STYLES and rng.random() < 0.7:
            char = rng.choice(QUOTE_STYLES[char])
        elif char.isalpha() and rng.random() < 0.3:
            char = char.swapcase()
        out.append(char)
        index += 1
    text = "".join(out)
    return rng.choice(["", " ", "\n"]) + text + rng.choice(["", " ", "\n"])


def verifier_for(text: str) -> DocumentVerifier:
    document = Document("d", "t", "/t", "text", text, [0], "test")
    return DocumentVerifier(document, chunk_text("d", text, [0], []))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(documents(), st.data(), st.randoms(use_true_random=False))
def test_damaged_substring_is_found_at_its_true_position(text, data, rng):
    start = data.draw(st.integers(0, len(text) - 1))
    end = data.draw(st.integers(start + 1, len(text)))
    original = text[start:end]
    if not normalize_key(original):
        return
    # The true span of the quote: the substring without surrounding whitespace.
    true_start = start + (len(original) - len(original.lstrip()))
    true_end = start + len(original.rstrip())
    quote = damage(original, rng)

    verifier = verifier_for(text)
    spans = verifier.find_all(quote)
    assert (true_start, true_end) in spans, (original, quote, spans)

    result = verifier.verify(quote)
    assert result.status == "exact"
    assert (result.start, result.end) == spans[0]
    assert result.occurrences == len(spans)
    # Any returned span matches the quote up to normalisation.
    assert normalize_key(text[result.start : result.end]) == normalize_key(quote)
