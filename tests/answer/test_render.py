"""Rendering answers: a claim from an answer over the whole library names its document."""

from __future__ import annotations

from reader.answer import Answerer
from reader.answer.render import render_markdown, render_text
from reader.records import answer_from_json

HARBOUR = (
    "Harbour records\n\nThe harbour froze in the winter of 1709 and the ships stayed in port "
    "for six weeks. The harbour master kept a log of every ship that waited."
)
ORCHARD = "Gluon notes\n\nQuantum chromodynamics describes quarks bound by gluons in hadrons."


def test_a_library_wide_answer_names_the_document_of_each_claim(library, make_file):
    library.ingest(make_file("harbour.txt", HARBOUR.encode()))
    library.ingest(make_file("orchard.txt", ORCHARD.encode()))
    answer = Answerer(library, None).ask("How long did the ships stay in port in 1709?")
    assert answer.library_wide and answer.claims
    # Only one document is cited, and still its name is given: the library has others.
    cited = sorted({claim.doc_id for claim in answer.claims if claim.doc_id})
    titles = library.store.titles(cited)
    (title,) = titles.values()
    text = render_text(answer, titles)
    assert f"[1] {title}, p.1:" in text
    assert f"{title}, page 1:" in render_markdown(answer, titles)
    # Kept in the history as such.
    assert answer_from_json(answer.to_json()).library_wide


def test_an_answer_about_one_chosen_document_gives_pages_only(library, make_file):
    harbour = library.ingest(make_file("harbour.txt", HARBOUR.encode()))
    library.ingest(make_file("orchard.txt", ORCHARD.encode()))
    answer = Answerer(library, None).ask(
        "How long did the ships stay in port in 1709?", [harbour.doc_id]
    )
    assert not answer.library_wide
    text = render_text(answer, library.store.titles(answer.doc_ids))
    assert "[1] p.1:" in text


def test_a_quote_copied_from_the_terminal_verifies(library, make_file):
    """A bracket before a digit in a quote ("[2019]13") is escaped so it cannot pass
    for a claim marker, and a copy of the quote as printed is still found."""
    text = "Decisions\n\nThe customs decision [2019]13 fined the importer for mislabelled goods."
    doc_id = library.ingest(make_file("decision.txt", text.encode())).doc_id
    answer = Answerer(library, None).ask("Which decision fined the importer?", [doc_id])
    printed = render_text(answer)
    assert "[2019]" not in printed.replace("\\[2019]", "")  # each one escaped
    line = next(line for line in printed.splitlines() if line.startswith("[1]"))
    copied = line.split('"')[1]
    assert "\\[2019]13" in copied
    verifier = library.verifier(doc_id)
    assert verifier.verify(copied).status == "exact"


def chosen_answer(library, make_file, chosen: str):
    """The 1709 question answered in constrained mode by a model that chose ``chosen``
    from the sentence about the ships."""
    from reader.answer import ScriptedBackend
    from tests.answer.test_pipeline import constrained_reply, evidence_alias

    doc_id = library.ingest(make_file("harbour.txt", HARBOUR.encode())).doc_id
    question = "How long did the ships stay in port in 1709?"
    sentence = "The harbour froze in the winter of 1709 and the ships stayed in port for six weeks."
    alias = evidence_alias(library, doc_id, question, sentence)
    backend = ScriptedBackend().enqueue(constrained_reply(alias, sentence, chosen))
    answer = Answerer(library, backend, mode="constrained").ask(question, [doc_id])
    return answer, library.store.titles([doc_id]), sentence


def test_the_answer_leads_with_the_words_chosen_from_the_source(library, make_file):
    answer, titles, sentence = chosen_answer(library, make_file, "six weeks")
    text = render_text(answer, titles)
    assert text.startswith("Answer: six weeks [1]\n\n")
    assert f'[1] p.1: "{sentence}"' in text
    markdown = render_markdown(answer, titles)
    assert "**Answer:** six weeks[^1]\n" in markdown
    assert markdown.index("**Answer:**") < markdown.index(sentence)


def test_words_that_are_no_direct_answer_are_not_led_with_and_say_why(library, make_file):
    answer, titles, sentence = chosen_answer(library, make_file, "ships stayed in port")
    text = render_text(answer, titles)
    assert not text.startswith("Answer:")
    assert "no direct answer: the words chosen say nothing the question does not" in text
    assert f"\u201c{sentence}\u201d" in text
    assert "**Answer:**" not in render_markdown(answer, titles)
