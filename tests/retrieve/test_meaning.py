"""Evidence ranked by meaning as well as words: the real sentence model, no stand-in."""

from __future__ import annotations

import logging
from dataclasses import replace

import pytest

from reader.records import Chunk
from reader.retrieve import evidence as evidence_module
from reader.retrieve.evidence import Evidence, answers_question
from reader.retrieve.meaning import MeaningUnavailable, SentenceEmbedder, similarities

QUESTION = "How much money did they want before they would drop the lawsuit?"
PARAPHRASE = "They demanded $12,000 to dismiss the case."
SAME_WORDS = "The lawsuit was one of many the industry brought that spring."


def candidate(text: str, score: float, chunk: Chunk | None = None) -> Evidence:
    chunk = chunk or Chunk("c" * 16, "d", 0, 0, len(text), text)
    return Evidence(chunk, 0, len(text), text, score, 0.5, 2, 4, (text,))


def test_a_paraphrase_is_closer_in_meaning_than_a_sentence_sharing_the_words():
    paraphrase, same_words = similarities(QUESTION, [PARAPHRASE, SAME_WORDS])
    assert paraphrase > same_words + 0.1


def test_vectors_are_unit_length_and_the_same_when_remembered():
    embedder = SentenceEmbedder()
    first = embedder.embed([PARAPHRASE, SAME_WORDS])
    again = embedder.embed([SAME_WORDS, PARAPHRASE])
    assert first.shape == (2, 384)
    assert abs(float((first[0] ** 2).sum()) - 1.0) < 1e-4
    assert (again[1] == first[0]).all() and (again[0] == first[1]).all()


def test_a_sentence_has_the_same_vector_alone_and_among_others_of_any_length():
    """Sentences are embedded in batches sorted by length: each vector must still be
    its own sentence's, whatever the batch pads it to."""
    texts = [
        SAME_WORDS,
        "Yes.",
        PARAPHRASE + " " + SAME_WORDS + " " + QUESTION,
        PARAPHRASE,
        "The court dismissed it.",
        QUESTION,
        "A much longer sentence about the fees, the lawyers and the settlement talks.",
        "Nine.",
        "The student paid.",
        "It went to trial in the spring of that year, after the talks had failed.",
    ]
    embedder = SentenceEmbedder()
    embedder.embed([texts[3]])  # one of them remembered already
    asked = [*texts, texts[0]]  # and one asked for twice
    together = embedder.embed(asked)
    assert together.shape == (len(asked), 384)
    for text, vector in zip(asked, together, strict=True):
        alone = SentenceEmbedder().embed([text])[0]
        assert float(alone @ vector) > 0.999, text


def test_of_two_candidates_equal_by_words_the_one_that_means_the_answer_comes_first():
    for order in ([SAME_WORDS, PARAPHRASE], [PARAPHRASE, SAME_WORDS]):
        ranked = [candidate(text, 1.0) for text in order]
        assert evidence_module._with_meaning(QUESTION, ranked)[0].text == PARAPHRASE


def test_meaning_breaks_near_ties_but_does_not_overturn_a_clear_lead_by_words():
    ranked = [candidate(SAME_WORDS, 2.0), candidate(PARAPHRASE, 1.0)]
    assert evidence_module._with_meaning(QUESTION, ranked)[0].text == SAME_WORDS


def test_only_the_best_candidates_by_words_are_reordered(monkeypatch):
    monkeypatch.setattr(evidence_module, "MEANING_CANDIDATES", 1)
    ranked = [candidate(SAME_WORDS, 1.0), candidate(PARAPHRASE, 1.0)]
    assert [e.text for e in evidence_module._with_meaning(QUESTION, ranked)] == [
        SAME_WORDS,
        PARAPHRASE,
    ]


def test_whether_the_documents_answer_is_still_judged_by_words():
    # Meaning may put first a sentence holding fewer of the question's words; the
    # judgement that the documents answer at all reads the best by words.
    weak = replace(candidate(PARAPHRASE, 0.4), matched=0)
    strong = candidate(SAME_WORDS, 1.0)
    assert answers_question([weak, strong])
    assert not answers_question([weak])


def test_a_broken_sentence_model_leaves_the_order_by_words(tmp_path, monkeypatch, caplog):
    broken = tmp_path / "model.onnx"
    broken.write_bytes(b"not an onnx file")
    with pytest.raises(MeaningUnavailable, match="would not load"):
        SentenceEmbedder(broken).embed(["anything"])
    monkeypatch.setattr("reader.retrieve.meaning._shared", SentenceEmbedder(broken), raising=True)
    ranked = [candidate(SAME_WORDS, 1.0), candidate(PARAPHRASE, 1.0)]
    with caplog.at_level(logging.WARNING):
        kept = evidence_module._with_meaning(QUESTION, ranked)
    assert [e.text for e in kept] == [SAME_WORDS, PARAPHRASE]
    assert "evidence chosen by words alone" in caplog.text


def test_a_question_not_in_the_latin_alphabet_keeps_the_order_by_words():
    # The sentence model learned English; on Chinese its cosines mean little.
    first, second = "罚款人民币45000元。", "当事人应当在15日内履行处罚决定。"
    ranked = [candidate(first, 1.0), candidate(second, 1.0)]
    kept = evidence_module._with_meaning("对当事人科处的罚款是多少？", ranked)
    assert [e.text for e in kept] == [first, second]
    assert [e.text for e in evidence_module._with_meaning("罚款是多少？", ranked[::-1])] == [
        second,
        first,
    ]
