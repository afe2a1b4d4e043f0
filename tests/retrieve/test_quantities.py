"""What quantity a question asks for, and whether passages write one."""

from __future__ import annotations

import pytest

from reader.retrieve.quantities import (
    AskedQuantity,
    asked_quantity,
    holds_quantity,
)
from reader.text.words import stem


@pytest.mark.parametrize(
    ("question", "asked"),
    [
        (
            "How many GPU hours did it take to pre-train Qwen2-72B?",
            AskedQuantity("count", ("hours",)),
        ),
        (
            "How many 737 MAX airplanes registered outside the United States are affected?",
            AskedQuantity("count", ("airplanes",)),
        ),
        (
            "At most how many simultaneous connections should a client keep open?",
            AskedQuantity("count", ("simultaneous", "connections")),
        ),
        (
            "Which vaccine does WHO recommend, and how many doses are given?",
            AskedQuantity("count", ("doses",)),
        ),
        ("How old was Frederick Douglass when he escaped?", AskedQuantity("age")),
        (
            "How many registered voters turned out?",
            AskedQuantity("count", ("registered", "voters")),
        ),
        ("How much does a commercial MuPDF licence cost per year?", AskedQuantity("price")),
        ("In which year do the events of the novel take place?", AskedQuantity("year")),
        # Quantities reader cannot look for in a passage's words are not asked for.
        ("How long did protection last under the first statute?", None),
        ("How much faster did reflex testing make the diagnosis?", None),
        ("Why do transfer nodes sit behind a ScienceDMZ?", None),
        ("How many of the justices dissented?", AskedQuantity("count", ("justices",))),
    ],
)
def test_the_quantity_a_question_asks_for(question, asked):
    found = asked_quantity(question)
    if asked is None:
        assert found is None
    else:
        assert found is not None and (found.kind, found.counted) == (asked.kind, asked.counted)


def test_the_question_is_read_once_for_what_does_not_answer_it():
    """The numbers a question states and the event its age is at are worked out with
    the quantity, so checking passages never reads the question again."""
    airplanes = asked_quantity("How many 737 MAX airplanes, of the 1,200 built, are grounded?")
    assert airplanes is not None and airplanes.stated == {"737", "1200"}
    age = asked_quantity("How old was Frederick Douglass when he escaped from slavery?")
    assert age is not None and age.event == {stem("escaped"), stem("slavery")} and not age.stated
    assert asked_quantity("How old was the boy?") == AskedQuantity("age")


def test_a_count_is_a_number_beside_the_thing_counted():
    question = "How many GPU hours did it take to pre-train Qwen2-72B?"
    hours = asked_quantity(question)
    assert hours is not None
    assert not holds_quantity(
        hours, ["The Qwen2 series consists of models of 5 sizes, and Qwen2-72B leads."]
    )
    assert holds_quantity(hours, ["Pre-training took 1.2 million GPU hours."])
    assert holds_quantity(hours, ["The journey took less than twenty-four hours."])
    # The question's own number is not the count: "737" of "737 MAX airplanes".
    airplanes = asked_quantity("How many 737 MAX airplanes are affected worldwide?")
    assert airplanes is not None
    assert not holds_quantity(airplanes, ["AD 2018-23-51 applies to all 737 MAX airplanes."])
    assert holds_quantity(airplanes, ["This AD affects 73 airplanes of U.S. registry."])
    # A unit's symbol counts it.
    kilometers = AskedQuantity("count", ("kilometers",))
    assert holds_quantity(kilometers, ["a route shorter than 2000 km"])


def test_ages_prices_and_years_in_the_forms_passages_write_them():
    age, price, year = AskedQuantity("age"), AskedQuantity("price"), AskedQuantity("year")
    assert holds_quantity(age, ["and at the age of twenty-seven, without having"])
    assert holds_quantity(age, ["He was only nine years old when he went to school."])
    assert not holds_quantity(age, ["He completed the journey in less than twenty-four hours."])
    assert holds_quantity(price, ["Jordan paid $12,000 to make the suit go away."])
    assert holds_quantity(price, ["a living worth ten pounds a year"])
    assert holds_quantity(price, ["The harbour fee is 36 crowns, due monthly."])
    assert holds_quantity(price, ["Berth 3 pays a harbour fee of 12 guilders each tide."])
    assert not holds_quantity(price, ["Artifex offers a commercial license."])
    assert holds_quantity(year, ["The treaty was signed in 1648."])
    signed = asked_quantity("In which year was it signed, 1648?")
    assert signed is not None and signed.kind == "year"
    assert not holds_quantity(signed, ["The treaty was signed in 1648."])
    assert not holds_quantity(year, ["the event takes place, as she said"])


def test_counts_ages_and_years_as_other_passages_write_them():
    # Questions of XQuAD whose answers the first reading missed.
    assert holds_quantity(
        AskedQuantity("age"), ["the oldest quarterback to play in a Super Bowl at age 39"]
    )
    assert holds_quantity(
        AskedQuantity("age"),
        ["found as far back as the early Cambrian, about 515 million years ago"],
    )
    assert holds_quantity(AskedQuantity("year"), ["created in the 1950s"])
    counted = asked_quantity("How many Examination Boards exist in India?")
    assert counted is not None and "boards" in counted.counted
    assert holds_quantity(counted, ["this resulted in 30 different Examination Boards"])
    grammys = asked_quantity("How many Grammys has Lady Gaga won?")
    assert grammys is not None
    assert holds_quantity(grammys, ["Six-time Grammy winner Lady Gaga sang"])
    assert holds_quantity(AskedQuantity("count", ("times",)), ["and won the cup twice"])
    assert holds_quantity(
        AskedQuantity("count", ("people",)), ["Algiers lost 30 to 50 thousand inhabitants"]
    )
    assert holds_quantity(
        AskedQuantity("count", ("tons",)), ["the Amazon absorbs 1.5 gigatons of carbon"]
    )
    # After the thing counted, a number counts it only next to it.
    doses = AskedQuantity("count", ("doses",))
    assert not holds_quantity(doses, ["a fixed dose of sofosbuvir/daclatasvir 400 mg"])
    assert holds_quantity(doses, ["children receive two doses"])


def test_a_number_that_names_or_marks_counts_nothing():
    question = "How many 737 MAX airplanes are affected worldwide?"
    airplanes = asked_quantity(question)
    assert airplanes is not None
    # A model number joined to the question's own number, and a note's mark.
    assert not holds_quantity(airplanes, ["It applies to Model 737–8 and 737– 9 airplanes."])
    assert not holds_quantity(airplanes, ["2 The flight control system for 737 MAX airplanes."])
    assert not holds_quantity(airplanes, ["(14 CFR 25.173).  9 An alert on airplanes."])
    # A number after the thing counted that counts a thing of its own.
    assert not holds_quantity(airplanes, ["The airplanes include two flight control computers."])
    assert holds_quantity(airplanes, ["This AD affects 387 airplanes of U.S. registry."])
    assert holds_quantity(airplanes, ["Airplanes affected: 387 in all."])


def test_an_age_at_another_event_does_not_answer():
    question = "How old was Frederick Douglass when he escaped from slavery?"
    age = asked_quantity(question)
    assert age is not None
    other = "He was only nine years old when he went to boarding school with a Mr. Douglass."
    assert not holds_quantity(age, [other])
    assert holds_quantity(age, ["He was twenty years old when he made his escape."])
    assert holds_quantity(age, ["He was twenty years old, and a slave."])
    # Asked for an age at no event, any age answers.
    assert holds_quantity(AskedQuantity("age"), [other])
