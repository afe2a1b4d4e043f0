"""The answer path's checks on a model's claims: re-anchoring, hygiene, "not answered"."""

import json

from reader.answer import Answerer
from reader.answer.render import render_text, verification_summary
from reader.records.events import ClaimChecked
from tests.answer.conftest import claims_json
from tests.answer.test_pipeline import QUESTION, alias_of, model_claims


def test_a_claim_on_the_neighbouring_sentence_is_linked_to_the_sentence_that_says_it(
    treaty, backend
):
    library, doc_id = treaty
    answerer = Answerer(library, backend, mode="free")
    source = alias_of(answerer, QUESTION, doc_id, "Westphalia")
    neighbour = "It ended the Thirty Years' War in the Holy Roman Empire."
    backend.enqueue(
        claims_json(("The Treaty of Westphalia was signed in 1648.", source, neighbour))
    )
    answer = answerer.ask(QUESTION, [doc_id])
    [claim] = model_claims(answer)
    assert claim.grounded and claim.reanchored
    assert claim.cited_quote == neighbour
    assert claim.claim.quote == "The Treaty of Westphalia was signed in 1648."
    text = library.document(doc_id).text
    assert text[claim.verification.start : claim.verification.end] == claim.claim.quote
    assert claim.verification.reason.startswith("linked to the sentence that says it")
    # The model's words are shown, linked; nothing is listed as unsupported.
    assert answer.answer.startswith("The Treaty of Westphalia was signed in 1648.")
    assert answer.unsupported == []
    assert answer.metrics.reanchored == 1 and answer.metrics.model_supported == 1
    assert "linked to the sentence that says it" in verification_summary(answer)
    assert "linked to the sentence that says it" in render_text(answer)
    assert claim.to_json()["reanchored"] is True


def test_a_claim_no_sentence_supports_stays_unlinked_in_its_own_words(treaty, backend):
    library, doc_id = treaty
    answerer = Answerer(library, backend, mode="free")
    source = alias_of(answerer, QUESTION, doc_id, "Westphalia")
    neighbour = "It ended the Thirty Years' War in the Holy Roman Empire."
    backend.enqueue(claims_json(("The treaty was signed in Paris in 1649.", source, neighbour)))
    answer = answerer.ask(QUESTION, [doc_id])
    [claim] = model_claims(answer)
    assert claim.verified and not claim.grounded and not claim.reanchored
    assert claim.shown_text == f"\u201c{neighbour}\u201d"
    assert answer.metrics.model_supported == 0 and answer.metrics.model_claims == 1


def test_a_quote_that_is_not_there_is_never_moved(treaty, backend):
    library, doc_id = treaty
    answerer = Answerer(library, backend, mode="free")
    source = alias_of(answerer, QUESTION, doc_id, "Westphalia")
    output = claims_json(("The Treaty of Westphalia was signed in 1648.", source, "signed 1648"))
    backend.enqueue(output, json.dumps({"claims": []}))
    answer = answerer.ask(QUESTION, [doc_id])
    [claim] = model_claims(answer)
    assert claim.verification.status == "miss" and not claim.reanchored


def test_meta_phrases_are_stripped_before_the_claim_is_checked_and_shown(treaty, backend):
    library, doc_id = treaty
    answerer = Answerer(library, backend, mode="free")
    source = alias_of(answerer, QUESTION, doc_id, "Westphalia")
    quote = "The Treaty of Westphalia was signed in 1648."
    backend.enqueue(
        claims_json(("According to the passage, the treaty was signed in 1648.", source, quote))
    )
    answer = answerer.ask(QUESTION, [doc_id])
    [claim] = model_claims(answer)
    assert claim.claim.text == "The treaty was signed in 1648."
    assert claim.grounded
    assert "According to" not in answer.answer


def test_claims_are_checked_once_while_streaming(treaty, backend, monkeypatch):
    library, doc_id = treaty
    answerer = Answerer(library, backend, mode="free")
    source = alias_of(answerer, QUESTION, doc_id, "Westphalia")
    quote = "The Treaty of Westphalia was signed in 1648."
    backend.enqueue(claims_json(("The treaty was signed in 1648.", source, quote)))
    checks = []
    from reader.answer import checking

    real = checking.ClaimChecker._check_model_claim

    def counted(self, claim, by_alias):
        checks.append(claim.text)
        return real(self, claim, by_alias)

    monkeypatch.setattr(checking.ClaimChecker, "_check_model_claim", counted)
    events = []
    answer = answerer.ask(QUESTION, [doc_id], on_event=events.append)
    streamed = [
        e.claim for e in events if isinstance(e, ClaimChecked) and not e.claim.from_evidence
    ]
    assert checks == ["The treaty was signed in 1648."]
    assert streamed == model_claims(answer)


def test_the_models_not_answered_is_an_answer_that_says_so(treaty, backend):
    library, doc_id = treaty
    answerer = Answerer(library, backend, mode="free")
    question = "When was the Treaty of Westphalia ratified by the Holy Roman Empire?"
    source = alias_of(answerer, question, doc_id, "Westphalia")
    backend.enqueue(
        claims_json(
            (
                "The date of ratification is not specified in the passages.",
                source,
                "The Treaty of Westphalia was signed in 1648.",
            )
        )
    )
    answer = answerer.ask(question, [doc_id])
    assert answer.claims == []
    assert answer.not_found is not None and "the model found no answer" in answer.not_found
    assert answer.answer.startswith("The documents do not seem to answer this question")
    # The closest passages are shown as passages, verified, never as claims.
    assert answer.closest and all(c.verified and c.from_evidence for c in answer.closest)
    data = answer.to_json()
    assert data["answered"] is False and "no answer" in data["not_found_reason"]
    assert data["declined_by_model"] is True and answer.declined_by_model
    assert data["closest"] and data["claims"] == []
    shown = render_text(answer)
    assert "Closest passages (they do not answer it):" in shown
    assert "[1]" not in shown
    assert verification_summary(answer) == "not answered by the documents"


def test_evidence_alone_gets_no_rate_that_could_only_read_100_percent(treaty):
    library, doc_id = treaty
    answer = Answerer(library, None).ask(QUESTION, [doc_id])
    assert answer.metrics.model_claims == 0 and answer.metrics.evidence_shown >= 1
    assert answer.metrics.model_supported_rate is None
    summary = verification_summary(answer)
    assert "%" not in summary and "evidence sentence" in summary


def test_a_claim_is_not_moved_to_a_sentence_about_someone_else(library, tmp_path, backend):
    # The 1.5B model's claim on a children's book: its cited sentence does not say
    # the age, and the sentence that does is about another boy.
    path = tmp_path / "lives.txt"
    path.write_text(
        "Frederick Douglass escaped from slavery in September 1838. He reached New York "
        "in less than twenty-four hours.\n\nOliver lived there till he was a pale boy nine "
        "years old, and then he was taken to the workhouse to work all day.\n",
        encoding="utf-8",
    )
    doc_id = library.ingest(path).doc_id
    question = "How old was Frederick Douglass when he escaped from slavery?"
    answerer = Answerer(library, backend, mode="free")
    cited = "Frederick Douglass escaped from slavery in September 1838."
    source = alias_of(answerer, question, doc_id, "September 1838")
    claim_text = "Frederick Douglass was nine years old when he escaped from slavery."
    backend.enqueue(claims_json((claim_text, source, cited)))
    answer = answerer.ask(question, [doc_id])
    [claim] = model_claims(answer)
    assert claim.verified and not claim.grounded and not claim.reanchored
    # The same words of a boy the question names are moved to his sentence.
    question = "How old was Oliver when he was taken to the workhouse?"
    backend.enqueue(
        claims_json(
            ("Oliver was nine years old when he was taken to the workhouse.", source, cited)
        )
    )
    [claim] = model_claims(answerer.ask(question, [doc_id]))
    assert claim.grounded and claim.reanchored and "Oliver lived there" in claim.claim.quote
