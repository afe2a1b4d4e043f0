"""Answering reads the retrieved passages and their neighbours, never a whole document."""

from __future__ import annotations

import json

import pytest

import reader.library.library
from reader.answer import Answerer
from reader.records import Document
from reader.store import LibraryStore
from tests.answer.conftest import TREATY, chunk_with, claims_json

QUESTION = "When was the Treaty of Westphalia signed?"


@pytest.fixture
def no_whole_documents(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every way of reading a whole document fails the test (and is recorded)."""
    reads: list[str] = []

    def refuse(what: str):
        def refused(*args: object, **kwargs: object) -> object:
            reads.append(what)
            raise AssertionError(f"the answer path read a whole document ({what})")

        return refused

    monkeypatch.setattr(reader.library.library, "DocumentVerifier", refuse("DocumentVerifier"))
    monkeypatch.setattr(LibraryStore, "get_document", refuse("get_document"))
    monkeypatch.setattr(LibraryStore, "chunks", refuse("chunks"))
    return reads


def test_model_claims_are_checked_without_reading_the_document(treaty, backend, make_file, request):
    library, doc_id = treaty
    other = library.ingest(make_file("copy.txt", ("Preface.\n\n" + TREATY).encode())).doc_id
    holder = chunk_with(library, doc_id, "Westphalia").id
    no_whole_documents = request.getfixturevalue("no_whole_documents")
    answerer = Answerer(library, backend, mode="free")
    chunks = answerer.retrieve(QUESTION, [doc_id])
    westphalia = f"c{next(i for i, c in enumerate(chunks) if 'Westphalia' in c.text) + 1}"
    elsewhere = next(f"c{i + 1}" for i, c in enumerate(chunks) if "Westphalia" not in c.text)
    not_retrieved = next(c for c in library.store.chunks_between(other, 0, 99))
    backend.enqueue(
        claims_json(
            ("It was signed in 1648.", westphalia, "was signed in 1648"),
            ("It ended a war.", elsewhere, "It ended the Thirty Years' War"),
            ("Something.", not_retrieved.id, not_retrieved.text[:40]),
            ("Made up.", westphalia, "was signed in 1649"),
        ),
        json.dumps({"claims": []}),  # the retry gives nothing better
    )
    answer = answerer.ask(QUESTION, [doc_id])
    assert no_whole_documents == []
    statuses = [c.verification.status for c in answer.claims if not c.from_evidence]
    assert statuses[:4] == ["exact", "miss", "miss", "miss"]
    second = answer.claims[1].verification
    assert second.found_in == (holder,)
    assert "not among the passages retrieved" in answer.claims[2].verification.reason
    assert all(c.verified for c in answer.claims if c.from_evidence)


def test_library_wide_passages_read_no_whole_document(treaty, no_whole_documents, make_file):
    library, _ = treaty
    library.ingest(make_file("copy.txt", ("Preface.\n\n" + TREATY).encode()))
    answer = Answerer(library, None).ask(QUESTION)
    assert no_whole_documents == []
    assert answer.claims and all(c.verified for c in answer.claims)
    assert len(answer.doc_ids) == 2


def test_a_claim_links_to_the_same_span_as_the_whole_document_check(treaty, backend):
    library, doc_id = treaty
    answerer = Answerer(library, backend, mode="free")
    chunks = answerer.retrieve(QUESTION, [doc_id])
    index = next(i for i, c in enumerate(chunks) if "Westphalia" in c.text)
    quote = "Holy Roman Empire. Historians see it"
    backend.enqueue(claims_json(("It was in the Empire.", f"c{index + 1}", quote)))
    [claim] = [c for c in answerer.ask(QUESTION, [doc_id]).claims if not c.from_evidence]
    whole = library.verifier(doc_id).verify(quote, source=chunks[index].id)
    document: Document = library.document(doc_id)
    assert (claim.verification.start, claim.verification.end) == (whole.start, whole.end)
    assert document.text[whole.start : whole.end] == quote
