"""How a claim asserts: how strongly it obliges, and what it ties a fact to."""

import pytest

from reader.text.words import words
from reader.verify.assertion import swapped_clause, unsaid_obligation
from reader.verify.grounding import check_grounding

ENCRYPTION = "Such data encryption at the file system level protects data from unauthorized access."
ENCRYPTION_QUESTION = (
    "Which encryption algorithm does the publication mandate for data at rest on HPC storage?"
)


def test_an_obligation_the_question_asks_about_is_the_quotes_to_state():
    # The question's "mandate" may not lend the claim an obligation the quote never states.
    claim = "The publication mandates data encryption at the file system level."
    result = check_grounding(claim, ENCRYPTION, ENCRYPTION_QUESTION)
    assert not result.grounded
    assert "mandates" in result.missing
    plain = "Data encryption at the file system level protects data from unauthorized access."
    assert check_grounding(plain, ENCRYPTION, ENCRYPTION_QUESTION).grounded


def test_must_is_not_said_by_should():
    quote = "A single-user client SHOULD NOT maintain more than 2 connections with any server."
    question = "How many connections may a single-user client keep open to one server?"
    weak = "A single-user client should not maintain more than 2 connections with any server."
    strong = "A single-user client must not maintain more than 2 connections with any server."
    assert check_grounding(weak, quote, question).grounded
    refused = check_grounding(strong, quote, question)
    assert not refused.grounded and "must" in refused.missing


@pytest.mark.parametrize(
    ("token", "quote", "unsaid"),
    [
        ("should", "Servers MUST report a 400 error.", False),  # a stronger word says it
        ("must", "Servers SHOULD report a 400 error.", True),
        ("required", "Servers shall report a 400 error.", False),
        ("recommends", "Servers report a 400 error.", True),
        ("reports", "Servers report a 400 error.", False),  # obliges nothing
    ],
)
def test_obligation_strength(token, quote, unsaid):
    assert unsaid_obligation(token, words(quote)) is unsaid


DOUGLASS = (
    "He was only nine years old when he went to boarding school with a Mr. Douglass, "
    "and here he began to study Latin, Greek and French."
)


def test_a_clause_of_the_questions_words_does_not_replace_the_quotes_own():
    question = "How old was Frederick Douglass when he escaped from slavery?"
    claim = "Frederick Douglass was nine years old when he escaped from slavery."
    result = check_grounding(claim, DOUGLASS, question)
    assert not result.grounded
    assert "'when'" in result.reason
    own = "He was nine years old when he went to boarding school."
    assert check_grounding(own, DOUGLASS, question).grounded


def test_a_clause_the_quote_ties_the_same_way_is_kept():
    quote = (
        "These burst buffers can pre-fetch data from the PFS before a computing job begins "
        "and stage data out to a parallel file system after a computing job has completed."
    )
    question = "What do burst buffers do with data before a job starts and after it finishes?"
    # One word of the question ("finishes" for "has completed") is a paraphrase, not a swap.
    claim = (
        "Burst buffers pre-fetch data from the PFS before a job starts and stage data out "
        "to a parallel file system after it finishes."
    )
    assert check_grounding(claim, quote, question).grounded


def test_swapped_clause_needs_the_quote_to_link_a_clause_the_same_way():
    claim = words("He was nine years old when he escaped from slavery.")
    no_when = words("At nine years old he was already a free man.")
    quote = set(no_when)
    asked = set(words("How old was he when he escaped from slavery?"))
    assert swapped_clause(claim, no_when, quote.__contains__, asked.__contains__) is None


def test_a_compound_of_the_questions_words_is_the_question():
    # "request-header" is one word ("requestheader") made of the question's two.
    question = "Which request header does HTTP/1.1 define for sending cookies back to the server?"
    quote = (
        "Both clients and servers MUST support the Host request-header. A client that sends "
        "an HTTP/1.1 request MUST send a Host header."
    )
    claim = "HTTP/1.1 defines the Cookie request-header for sending cookies back to the server."
    result = check_grounding(claim, quote, question)
    assert not result.grounded
    assert "restates the question" in result.reason
    assert check_grounding("HTTP/1.1 defines the Host request-header.", quote, question).grounded


def test_a_claim_that_points_at_the_answer_does_not_give_it():
    question = (
        "Which status code should a server return when a client has sent too many requests "
        "in a given time (rate limiting)?"
    )
    quote = (
        "The client cannot be guaranteed that the operation has been carried out, even if the "
        "status code returned from the origin server indicates that the action has been "
        "completed successfully. However, the server SHOULD NOT indicate success unless, at "
        "the time the response is given, it intends to delete the resource."
    )
    claim = (
        "A server SHOULD return a response with this status code if a client has sent too "
        "many requests in a given time (rate limiting)."
    )
    pointing = check_grounding(claim, quote, question)
    assert not pointing.grounded
    assert "'this status'" in pointing.reason
    x25 = "The X.25 protocol suite uses a packet-switched network type."
    asked = "X.25 uses what type network type"
    assert not check_grounding(
        "The X.25 protocol suite uses this network type.", x25, asked
    ).grounded
    assert check_grounding(
        "The X.25 protocol suite uses a packet-switched network type.", x25, asked
    ).grounded
    # "this" of something else than the thing asked for is a claim like any other.
    gone = "The 410 (Gone) status code SHOULD be used if the resource is permanently unavailable."
    assert check_grounding(
        "This status code, 410 (Gone), SHOULD be used if the resource is permanently unavailable.",
        gone,
        "What should be used if a resource is permanently unavailable?",
    ).grounded
