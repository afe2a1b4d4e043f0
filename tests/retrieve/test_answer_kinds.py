"""What kind of answer a question asks for."""

from __future__ import annotations

import pytest

from reader.retrieve.answer_kinds import expected_kind


@pytest.mark.parametrize(
    ("question", "kind"),
    [
        ("When Jefferson's home burned down, which of his books did they save?", None),
        ("When a response has a date, what proportion of the time is a cap?", "share"),
        ("After 1990, who led the party?", "name"),
        ("If the server fails, when does the client retry?", "year"),
        ("When did the war end?", "year"),
        ("How often did the drugs cure the children?", "share"),
        ("What cure rate did the longer course achieve?", "share"),
        ("How many airplanes does the rule affect?", "number"),
        ("When was the house burned down, and by whom?", "year"),
    ],
)
def test_the_kind_of_answer_is_read_from_the_question_proper(question, kind):
    assert expected_kind(question) == kind
