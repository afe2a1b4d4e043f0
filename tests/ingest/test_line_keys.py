import re

from hypothesis import given
from hypothesis import strategies as st

from reader.ingest.line_keys import line_key, line_keys

# Letters, digits, and every kind of whitespace str.split() knows, line breaks
# included (a text holding one is keyed alone).
CHARACTERS = st.sampled_from(
    [*"aZß İĲ19xiv#", *" \t\r\x0b\x0c\x1c\x1f\x85\xa0\u2003\u2028\u3000\n"]
)
LINES = st.lists(st.text(CHARACTERS, max_size=12), max_size=8)


def mask_numbers(text: str) -> str:
    return re.sub(r"\d+", "#", text)


@given(LINES)
def test_keys_made_together_are_the_keys_made_alone(texts):
    assert line_keys(texts) == [line_key(text) for text in texts]


@given(LINES)
def test_a_mask_applies_as_it_would_to_each_folded_line(texts):
    expected = [" ".join(mask_numbers(text.casefold()).split()) for text in texts]
    assert line_keys(texts, mask_numbers) == expected


def test_a_running_head_keys_alike_on_every_page():
    assert line_keys(["CHAPTER  One\t", " chapter one", "Chapter\u00a0ONE"]) == ["chapter one"] * 3
