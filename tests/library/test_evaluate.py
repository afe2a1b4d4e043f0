"""``reader eval``'s reading of whether a sentence states a gold answer."""

import pytest

from reader.library.evaluate import _contains_answer


@pytest.mark.parametrize(
    ("text", "answers"),
    [
        ("The first statute gave fourteen years.", ["fourteen years"]),
        ("MuPDF swallows errors during interpretation.", ["swallow errors during interpretation"]),
        ("MuPDF evicts objects from the Store.", ["evicted from the Store"]),
        (
            "It sorts nodes into three groups: external, internal, and backend.",
            ["external nodes, internal nodes, and backend nodes"],
        ),
        ("Scanners are not fast enough.", ["not efficient or fast enough", "not fast enough"]),
    ],
)
def test_an_answer_in_other_inflections_or_order_is_stated(text, answers):
    assert _contains_answer(text, answers)


@pytest.mark.parametrize(
    ("text", "answers"),
    [
        ("The first statute gave fifteen years.", ["fourteen years"]),
        ("Scanners are fast enough.", ["not fast enough"]),
        ("It sorts nodes into external and internal ones.", ["external, internal and backend"]),
        ("The death toll was 158.", ["157"]),
    ],
)
def test_a_missing_word_number_or_negation_is_not_stated(text, answers):
    assert not _contains_answer(text, answers)
