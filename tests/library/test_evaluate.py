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


def test_every_document_is_in_the_library_before_the_first_question(tmp_path, monkeypatch):
    """A word's rarity is the whole set's for every question, so figures do not
    depend on the order of the questions."""
    import json

    from reader.answer import Answerer
    from reader.library.evaluate import evaluate

    contexts = [
        "The harbour master logs the tides each morning before the ferries leave.",
        "The lighthouse keeper trims the wick at dusk and logs the ships that pass.",
    ]
    squad = {
        "data": [
            {
                "paragraphs": [
                    {
                        "context": context,
                        "qas": [{"id": str(n), "question": "Who logs the tides?", "answers": []}],
                    }
                    for n, context in enumerate(contexts)
                ]
            }
        ]
    }
    path = tmp_path / "two.json"
    path.write_text(json.dumps(squad), encoding="utf-8")
    held: list[int] = []
    ask = Answerer.ask

    def counting_ask(self, *args, **kwargs):
        held.append(len(self.library.documents()))
        return ask(self, *args, **kwargs)

    monkeypatch.setattr(Answerer, "ask", counting_ask)
    evaluate(path, None, "passages")
    assert held == [2, 2]
