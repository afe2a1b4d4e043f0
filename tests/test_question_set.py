"""The long-document question set in bench/qa is well formed and its evidence is real."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from reader.library import Library
from reader.library.evaluate import evaluate, load_items
from reader.text.normalize import normalize_key
from tests.conftest import corpus_dir

QUESTIONS = Path(__file__).resolve().parents[1] / "bench" / "qa" / "long-documents.json"


def test_the_question_set_has_what_the_figures_need():
    items = load_items(QUESTIONS)
    answerable = [i for i in items if i.answerable]
    unanswerable = [i for i in items if not i.answerable]
    assert len(items) >= 40 and len(unanswerable) >= 6
    assert len({i.document for i in items}) >= 5
    assert len({i.id for i in items}) == len(items)
    for item in answerable:
        assert item.evidence and item.answers, item.id
        # every short answer stands inside one of its evidence phrases
        for answer in item.answers:
            assert any(normalize_key(answer) in normalize_key(e) for e in item.evidence), item.id
    assert Counter(i.kind for i in unanswerable).keys() == {"near-miss", "off-topic"}
    raw = json.loads(QUESTIONS.read_text(encoding="utf-8"))
    assert raw["corpus"] == "../../../shared/corpus"


@pytest.mark.corpus
@pytest.mark.slow
def test_every_evidence_phrase_is_in_its_document_once(tmp_path):
    corpus_dir()
    items = [i for i in load_items(QUESTIONS) if i.answerable]
    with Library(tmp_path / "library.db") as library:
        ids: dict[Path, str] = {}
        for item in items:
            assert item.document is not None
            if item.document not in ids:
                ids[item.document] = library.ingest(item.document).doc_id
            verifier = library.verifier(ids[item.document])
            for phrase in item.evidence:
                found = verifier.verify(phrase)
                assert found.status == "exact" and found.occurrences == 1, (item.id, phrase)


@pytest.mark.corpus
@pytest.mark.slow
def test_the_evidence_answers_and_declines_as_measured_on_the_long_documents():
    """The figures bench/qa/README.md reports for the evidence alone, as floors."""
    corpus_dir()
    figures = evaluate(QUESTIONS, None, "passages")
    # Measured 0.810 and 0.825 (2026-12-07): 0.857 and 0.889 before evidence was
    # ranked by meaning and rules written from this set were removed (0.841 and
    # 0.857 after the first of them), which held or raised the sealed set's
    # figures (0.743 and 0.770 to 0.811 and 0.784, unchanged by the last seven).
    assert figures["evidence_hit"] >= 0.80, figures
    assert figures["answer_stated"] >= 0.82, figures
    assert figures["false_not_found"] <= 0.05, figures
    declined = {
        kind: int(share.split("/")[0]) for kind, share in figures["abstained_by_kind"].items()
    }
    # Measured: 7 of 11 near misses (each asks for a count, an age, a price or a
    # year the passages do not give), 6 of 6 off-topic questions.
    assert declined["near-miss"] >= 7 and declined["off-topic"] == 6, figures
