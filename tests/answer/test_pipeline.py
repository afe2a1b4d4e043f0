import json
import threading

import pytest

from reader.answer import Answerer, ScriptedBackend
from reader.errors import Cancelled, ModelError
from reader.library import reverify
from reader.records import Chunk, Document
from reader.records.events import ClaimChecked, Status, Token
from tests.answer.conftest import ReadsAhead, chunk_with, claims_json

QUESTION = "When was the Treaty of Westphalia signed?"


def model_claims(answer):
    """The model's claims, without the evidence sentences given beside them."""
    return [c for c in answer.claims if not c.from_evidence]


def alias_of(answerer: Answerer, question: str, doc_id: str, phrase: str) -> str:
    chunks = answerer.retrieve(question, [doc_id])
    index = next(i for i, chunk in enumerate(chunks) if phrase in chunk.text)
    return f"c{index + 1}"


def test_a_true_quote_verifies_with_a_span_into_the_document(treaty, backend):
    library, doc_id = treaty
    answerer = Answerer(library, backend, mode="free")
    source = alias_of(answerer, QUESTION, doc_id, "Westphalia")
    backend.enqueue(claims_json(("The treaty was signed in 1648.", source, "was signed in 1648")))
    answer = answerer.ask(QUESTION, [doc_id])
    [claim] = model_claims(answer)
    assert claim.verification.status == "exact"
    assert claim.grounded, claim.grounding
    text = library.document(doc_id).text
    assert text[claim.verification.start : claim.verification.end] == "was signed in 1648"
    assert claim.claim.source_id == chunk_with(library, doc_id, "Westphalia").id
    assert claim.doc_id == doc_id
    assert answer.metrics.verification_rate == 1.0
    # the model's claim comes first; the evidence it does not quote follows, verified
    assert answer.claims[0] is claim
    assert all(c.from_evidence and c.grounded for c in answer.claims[1:])
    # the request offered the model the retrieved passages under their aliases
    request = backend.requests[0]
    assert f"[{source}]" in request["messages"][-1]["content"]
    assert request["grammar"] and f'"\\"{source}\\""' in request["grammar"]


def test_fabricated_quote_unknown_source_and_wrong_chunk_are_misses(treaty, backend):
    library, doc_id = treaty
    answerer = Answerer(library, backend, mode="free")
    westphalia = alias_of(answerer, QUESTION, doc_id, "Westphalia")
    others = [f"c{i}" for i in range(1, 4) if f"c{i}" != westphalia]
    output = claims_json(
        ("It was signed in 1649.", westphalia, "was signed in 1649"),
        ("It was signed in Paris.", "c99", "signed in 1648"),
        ("Utrecht ended the war.", others[0], "It ended the Thirty Years' War"),
    )
    backend.enqueue(output, json.dumps({"claims": []}))  # the retry gives nothing better
    answer = answerer.ask(QUESTION, [doc_id])
    claims = model_claims(answer)
    statuses = [c.verification.status for c in claims]
    assert statuses == ["miss", "miss", "miss"]
    assert all(c.verification.start is None for c in claims)
    assert all(c.grounding is None and not c.grounded for c in claims)
    assert "not one of the passages" in claims[1].verification.reason
    assert claims[2].verification.found_in == (chunk_with(library, doc_id, "Westphalia").id,)
    evidence = [c for c in answer.claims if c.from_evidence]
    assert answer.metrics.claims == 3 + len(evidence)
    assert answer.metrics.miss == 3


def test_failed_claims_are_retried_once_with_the_failures_named(treaty, backend):
    library, doc_id = treaty
    answerer = Answerer(library, backend, mode="free")
    source = alias_of(answerer, QUESTION, doc_id, "Westphalia")
    backend.enqueue(
        claims_json(
            ("It was signed in 1648.", source, "The treaty was concluded in 1648"),
            ("It ended a war.", source, "It ended the Thirty Years' War"),
        ),
        json.dumps(
            {
                "claims": [
                    {
                        "text": "It was signed in 1648.",
                        "source_id": source,
                        "quote": "The Treaty of Westphalia was signed in 1648.",
                    }
                ]
            }
        ),
    )
    answer = answerer.ask(QUESTION, [doc_id])
    claims = model_claims(answer)
    assert [c.verification.status for c in claims] == ["exact", "exact"]
    assert claims[0].retried and not claims[1].retried
    assert answer.metrics.retried == 1
    assert len(backend.requests) == 2
    follow_up = backend.requests[1]["messages"][-1]["content"]
    assert "The treaty was concluded in 1648" in follow_up
    assert "claim 1" in follow_up and "claim 2" not in follow_up


def test_garbage_output_is_an_answer_with_zero_claims_and_a_reason(treaty, backend):
    library, doc_id = treaty
    backend.enqueue("I cannot answer that {{{ ]]", "still not json")
    answer = Answerer(library, backend, mode="free").ask(QUESTION, [doc_id])
    assert model_claims(answer) == []
    # the evidence still answers, verified, with the model's failure noted
    assert answer.claims and all(c.from_evidence and c.verified for c in answer.claims)
    assert "1648" in answer.claims[0].shown_text
    assert "not valid JSON" in answer.problem


def test_claims_stream_as_they_complete_and_verify(treaty, backend):
    library, doc_id = treaty
    answerer = Answerer(library, backend, mode="free")
    source = alias_of(answerer, QUESTION, doc_id, "Westphalia")
    output = claims_json(("Signed in 1648.", source, "was signed in 1648"))
    backend.enqueue(output)
    events = []
    answerer.ask(QUESTION, [doc_id], on_event=events.append)
    kinds = [type(event).__name__ for event in events]
    assert kinds[0] == "Status" and "Token" in kinds
    checked = [e.claim for e in events if isinstance(e, ClaimChecked)]
    # the evidence is reported, verified, before the model starts
    generating = next(
        i for i, e in enumerate(events) if isinstance(e, Status) and e.stage == "generating"
    )
    assert kinds.index("ClaimChecked") < generating
    assert checked[0].from_evidence and "1648" in checked[0].claim.quote
    [streamed] = [c for c in checked if not c.from_evidence]
    assert streamed.verification.status == "exact"
    # the model's claim arrived before the last token
    position = next(
        i for i, e in enumerate(events) if isinstance(e, ClaimChecked) and e.claim is streamed
    )
    assert position < len(kinds) - 1 - kinds[::-1].index("Token")
    assert "".join(e.text for e in events if isinstance(e, Token)) == output
    assert any(isinstance(e, Status) and e.stage == "verifying" for e in events)


def test_cancel_stops_generation(treaty):
    library, doc_id = treaty
    cancel = threading.Event()
    backend = ScriptedBackend(piece_size=1)
    backend.enqueue(claims_json(("Signed in 1648.", "c1", "was signed in 1648")) * 20)
    seen = []

    def on_event(event):
        if isinstance(event, Token):
            seen.append(event.text)
            if len(seen) == 10:
                cancel.set()

    with pytest.raises(Cancelled):
        Answerer(library, backend, mode="free").ask(QUESTION, [doc_id], on_event, cancel)
    assert len(seen) == 10
    assert library.store.answers() == []


def test_answers_are_recorded_and_reverified_after_reextraction(treaty, backend):
    library, doc_id = treaty
    answerer = Answerer(library, backend, mode="free")
    source = alias_of(answerer, QUESTION, doc_id, "Westphalia")
    backend.enqueue(
        claims_json(
            ("Signed in 1648.", source, "was signed in 1648"),
            (
                "Vienna met.",
                alias_of(answerer, QUESTION, doc_id, "Vienna"),
                "The Congress of Vienna met in 1814 and 1815",
            ),
        )
    )
    answer = answerer.ask(QUESTION, [doc_id])
    [stored] = library.store.answers(doc_id)
    assert stored.id == answer.id
    assert [c.verification.status for c in model_claims(stored)] == ["exact", "exact"]
    assert [c.grounded for c in stored.claims] == [c.grounded for c in answer.claims]

    # The document is re-extracted: new text, so new chunks and ids; one quote
    # survives elsewhere, the other is gone.
    old = library.document(doc_id)
    new_text = "Preface added by a new extractor.\n\n" + old.text.replace(
        "The Congress of Vienna met in 1814 and 1815.", "The Congress met."
    )
    from reader.ingest.chunking import chunk_text

    changed = Document(
        id=doc_id,
        title=old.title,
        path=old.path,
        kind=old.kind,
        text=new_text,
        page_starts=[0],
        extractor="newer-extractor",
    )
    library.store.add_document(changed, chunk_text(doc_id, new_text, [0], []))
    library._verifiers.clear()

    again = reverify(library, stored)
    first, second = model_claims(again)
    assert first.verification.status == "exact"
    assert new_text[first.verification.start : first.verification.end] == "was signed in 1648"
    assert "re-anchored" in first.verification.reason
    assert second.verification.status == "miss"
    assert second.verification.start is None
    assert "no longer verified" in second.verification.reason


def test_passages_mode_needs_no_model(treaty):
    library, doc_id = treaty
    answer = Answerer(library, None).ask("Where was the Peace of Utrecht signed?", [doc_id])
    assert answer.mode == "passages"
    assert answer.claims and all(c.verification.status == "exact" for c in answer.claims)
    assert "Utrecht" in answer.claims[0].claim.quote
    text = library.document(doc_id).text
    for claim in answer.claims:
        span = text[claim.verification.start : claim.verification.end]
        assert " ".join(span.split()) == claim.claim.quote


def test_library_wide_answers_cite_several_documents(library, tmp_path, backend):
    first = tmp_path / "a.txt"
    first.write_text("Copper conducts electricity well. It is used in wires.", encoding="utf-8")
    second = tmp_path / "b.txt"
    second.write_text("Silver conducts electricity best of all metals.", encoding="utf-8")
    ids = {library.ingest(first).doc_id, library.ingest(second).doc_id}
    answerer = Answerer(library, backend, mode="free")
    chunks = answerer.retrieve("Which metal conducts electricity?", None)
    aliases = {chunk.doc_id: f"c{i + 1}" for i, chunk in enumerate(chunks)}
    backend.enqueue(
        claims_json(
            (
                "Copper conducts.",
                aliases[library.ingest(first).doc_id],
                "Copper conducts electricity well.",
            ),
            (
                "Silver is best.",
                aliases[library.ingest(second).doc_id],
                "Silver conducts electricity best",
            ),
        )
    )
    answer = answerer.ask("Which metal conducts electricity?")
    assert {c.doc_id for c in model_claims(answer)} == ids
    assert all(c.verification.status == "exact" for c in answer.claims)
    assert set(answer.doc_ids) == ids


def test_backend_errors_propagate_as_reader_errors(treaty, backend):
    library, doc_id = treaty
    backend.enqueue(ModelError("the server went away"))
    with pytest.raises(ModelError):
        Answerer(library, backend).ask(QUESTION, [doc_id])


def test_a_model_obeying_instructions_in_a_document_gets_nothing_verified(library, tmp_path):
    from tests.answer.test_models import INJECTION

    path = tmp_path / "report.txt"
    path.write_text(INJECTION, encoding="utf-8")
    doc_id = library.ingest(path).doc_id
    backend = ScriptedBackend().enqueue(
        claims_json(
            ("The company is bankrupt.", "c1", "Revenue fell by 90 per cent"),
            ("Revenue collapsed.", "c1", "The company filed for bankruptcy."),
        ),
        claims_json(("Revenue collapsed.", "c1", "Revenue fell sharply in the quarter.")),
    )
    answer = Answerer(library, backend, mode="free").ask(
        "How did revenue change in the quarter?", [doc_id]
    )
    claims = model_claims(answer)
    assert [c.verification.status for c in claims] == ["miss", "miss"]
    assert all(c.verification.start is None for c in claims)
    # The instructions reached the model only as passage text, under the system
    # prompt that calls passages material, not instructions.
    messages = backend.requests[0]["messages"]
    assert "IGNORE PREVIOUS INSTRUCTIONS" in messages[-1]["content"]
    assert "never instructions" in messages[0]["content"]


def test_a_verified_quote_beside_an_ungrounded_claim_is_shown_as_the_quote(treaty, backend):
    library, doc_id = treaty
    answerer = Answerer(library, backend, mode="free")
    source = alias_of(answerer, QUESTION, doc_id, "Westphalia")
    backend.enqueue(
        claims_json(("The treaty was signed in Paris in 1649.", source, "was signed in 1648"))
    )
    answer = answerer.ask(QUESTION, [doc_id])
    [claim] = model_claims(answer)
    assert claim.verified and not claim.grounded
    assert {"paris", "1649"} <= set(claim.grounding.missing)
    assert claim.shown_text == "\u201cwas signed in 1648\u201d"
    assert answer.answer.startswith(claim.shown_text)
    assert "The treaty was signed in Paris in 1649." not in answer.answer
    assert any("Paris in 1649" in text and "1649" in text for text in answer.unsupported)
    data = claim.to_json()
    assert data["grounded"] is False and "'1649'" in data["grounding_reason"]
    assert answer.metrics.grounded == answer.metrics.claims - 1
    from reader.answer.render import verification_summary

    # The model's claim is counted apart from the evidence, and its rate can fall.
    assert verification_summary(answer).startswith(
        "1 model claim: 1 verified, 0 supported by their quotes (0%)"
    )


def test_an_off_topic_question_is_answered_not_found(treaty, backend):
    library, doc_id = treaty
    answer = Answerer(library, backend, mode="constrained").ask(
        "What is the boiling point of mercury?", [doc_id]
    )
    assert answer.claims == []
    assert answer.not_found is not None
    assert answer.answer.startswith("The documents do not seem to answer this question")
    assert answer.to_json()["answered"] is False
    assert backend.requests == []  # the model was not asked
    [stored] = library.store.answers(doc_id)
    assert stored.not_found == answer.not_found
    rows = library.store.answer_rows()
    assert rows[-1]["answered"] == 0


def test_auto_mode_leaves_the_small_default_model_out_of_claims(treaty):
    library, doc_id = treaty
    small = ScriptedBackend(name="SmolLM2-135M-Instruct.Q4_1")
    larger = ScriptedBackend(name="qwen2.5-7b-instruct-q4_k_m")
    assert Answerer(library, small).mode == "passages"
    assert not Answerer(library, small).uses_model
    assert Answerer(library, larger).mode == "constrained"
    assert Answerer(library, small, mode="constrained").mode == "constrained"
    answer = Answerer(library, small).ask(QUESTION, [doc_id])
    assert small.requests == []
    assert answer.claims and all(c.from_evidence and c.grounded for c in answer.claims)
    assert answer.model == "evidence only (SmolLM2-135M-Instruct.Q4_1 is not asked for claims)"


def test_a_looping_model_is_stopped_and_its_complete_claims_kept(treaty):
    library, doc_id = treaty
    backend = ScriptedBackend(piece_size=3)
    answerer = Answerer(library, backend, mode="free")
    source = alias_of(answerer, QUESTION, doc_id, "Westphalia")
    claim = {"source_id": source, "quote": "was signed in 1648", "text": "It was signed in 1648."}
    looping = '{"claims": [' + ", ".join(json.dumps(claim) for _ in range(30))
    backend.enqueue(looping)
    answer = answerer.ask(QUESTION, [doc_id])
    assert len(model_claims(answer)) == 1
    assert "generation stopped early: the model repeated a" in answer.problem
    # it stopped soon after the repeat, not at the end of the output
    assert answer.metrics.completion_tokens * 3 < len(looping) / 3


def test_a_question_naming_what_no_passage_mentions_is_answered_not_found(treaty, backend):
    library, doc_id = treaty
    answerer = Answerer(library, backend, mode="constrained")
    # "treaty", "Napoleon" and "Congress" match; no passage mentions Berlin.
    answer = answerer.ask("Which treaty did Napoleon sign at the Congress of Berlin?", [doc_id])
    assert answer.claims == [] and backend.requests == []
    assert answer.not_found == "no passage of the documents mentions 'Berlin'"
    assert answer.to_json()["answered"] is False
    # Naming what the documents hold, the same question is answered.
    answer = Answerer(library, None, mode="passages").ask(
        "Which treaty did Napoleon sign at the Congress of Vienna?", [doc_id]
    )
    assert answer.not_found is None and answer.claims


def evidence_alias(library, doc_id: str, question: str, sentence: str) -> str:
    """The alias constrained quoting gives ``sentence`` among the evidence offered."""
    probe = ScriptedBackend().enqueue('{"claims": [], "unsupported": []}')
    Answerer(library, probe, mode="constrained", record=False).ask(question, [doc_id])
    offered = probe.requests[0]["messages"][-1]["content"]
    return next(
        line.split("]")[0].lstrip("[")
        for line in offered.splitlines()
        if line.startswith("[c") and line.endswith(sentence)
    )


def constrained_reply(alias: str, quote: str, text: str) -> str:
    claim = {"source_id": alias, "quote": quote, "text": text}
    return json.dumps({"claims": [claim], "unsupported": []})


SIGNED = "The Treaty of Westphalia was signed in 1648."


def test_constrained_words_chosen_from_the_quote_are_the_direct_answer_inside_it(treaty, backend):
    library, doc_id = treaty
    alias = evidence_alias(library, doc_id, QUESTION, SIGNED)
    backend.enqueue(constrained_reply(alias, SIGNED, "1648"))
    answer = Answerer(library, backend, mode="constrained").ask(QUESTION, [doc_id])
    [claim] = model_claims(answer)
    assert claim.verified and claim.grounded
    # What carries the marker is the source's sentence; the chosen words are in it.
    assert claim.shown_text == SIGNED and claim.direct_answer == "1648"
    span = claim.answer_span
    text = library.document(doc_id).text
    assert span is not None and SIGNED[span.in_quote[0] : span.in_quote[1]] == "1648"
    assert text[span.start : span.end] == "1648"
    assert claim.verification.start <= span.start < span.end <= claim.verification.end
    # Neither judged nor moved: the words are the quote's own.
    assert claim.grounding.judged is None and not claim.reanchored
    data = answer.to_json()["claims"][0]
    assert data["direct_answer"] == "1648"
    at = SIGNED.index("1648")
    assert data["answer_span"] == {"text": "1648", "in_quote": [at, at + 4], **_at(span)}
    # The answer read back from the history keeps its direct answer.
    [stored] = library.store.answers(doc_id)
    assert model_claims(stored)[0].answer_span == span


def _at(span) -> dict[str, int]:
    return {"start": span.start, "end": span.end}


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("signed in 1649", "not a run of the quote's own words"),  # a word it does not say
        ("Treaty of Westphalia", "nothing the question does not"),  # the question's words
    ],
)
def test_chosen_words_that_are_no_answer_leave_the_sentence_linked_without_one(
    treaty, backend, text, reason
):
    # A server that takes no grammar may write anything: the same check, after the fact.
    library, doc_id = treaty
    alias = evidence_alias(library, doc_id, QUESTION, SIGNED)
    backend.enqueue(constrained_reply(alias, SIGNED, text))
    answer = Answerer(library, backend, mode="constrained").ask(QUESTION, [doc_id])
    [claim] = model_claims(answer)
    assert claim.verified and not claim.grounded and reason in claim.grounding.reason
    assert claim.direct_answer is None
    # Shown is the quote, as a quote, never the model's words beside a marker.
    assert claim.shown_text == f"\u201c{SIGNED}\u201d"
    assert text not in answer.answer.replace(SIGNED, "")


def test_a_whole_sentence_and_the_evidence_beside_it_are_no_direct_answer(treaty, backend):
    # Only words a model chose, shorter than their sentence, lead an answer: the
    # whole sentence is the prose already, and an evidence sentence was chosen by
    # no model (before, both were "direct answers" and `reader eval` counted them).
    library, doc_id = treaty
    alias = evidence_alias(library, doc_id, QUESTION, SIGNED)
    backend.enqueue(constrained_reply(alias, SIGNED, SIGNED))
    answer = Answerer(library, backend, mode="constrained").ask(QUESTION, [doc_id])
    [claim] = model_claims(answer)
    assert claim.verified and claim.grounded and claim.answer_span is not None
    assert claim.direct_answer is None and not answer.answer.startswith("Answer:")
    evidence = [c for c in answer.claims if c.from_evidence]
    assert evidence and all(c.verified and c.direct_answer is None for c in evidence)
    assert all(c["direct_answer"] is None for c in answer.to_json()["claims"])


def test_the_library_builds_what_answers_its_questions(treaty, backend):
    # The command line, the window and the self-test ask through the library.
    library, doc_id = treaty
    quiet = library.answerer(None, record=False)
    assert quiet.mode == "passages" and quiet.library is library
    assert quiet.ask(QUESTION, [doc_id]).claims and library.answers(doc_id) == []
    alias = evidence_alias(library, doc_id, QUESTION, SIGNED)
    backend.enqueue(constrained_reply(alias, SIGNED, "1648"))
    answer = library.answerer(backend, mode="constrained").ask(QUESTION, [doc_id])
    assert answer.mode == "constrained" and model_claims(answer)[0].direct_answer == "1648"
    assert [kept.question for kept in library.answers(doc_id)] == [QUESTION]


def test_prepare_loads_the_model_and_reads_the_start_every_question_shares(library):
    from reader.answer.prompting import CONSTRAINED, build_messages, evidence_passages
    from reader.retrieve.evidence import Evidence

    backend = ReadsAhead()
    assert library.answerer(backend, mode="constrained").prepare() == 42
    assert backend.loaded == 1
    [shared_start] = backend.read
    # A real question's prompt starts with it, up to its passages.
    chunk = Chunk("c" * 16, "d", 0, 0, 30, "The bridge opened in May 1932.")
    passages = evidence_passages([Evidence(chunk, 0, 30, chunk.text, 1.0, 1.0, 2, 2)])
    asked = build_messages("When did the bridge open?", passages, CONSTRAINED)
    assert asked[0] == shared_start[0]
    shape = shared_start[1]["content"].split("Passages:")[0]
    assert shape and asked[1]["content"].startswith(shape + "Passages:")
    # Answering from the evidence alone asks nothing of the model: nothing to prepare.
    assert library.answerer(backend, mode="passages").prepare() == 0
    assert library.answerer(None).prepare() == 0
    assert backend.loaded == 1 and len(backend.read) == 1
