import llama_cpp
import pytest

from reader.answer.parsing import parse_output
from reader.answer.prompting import (
    KnownQuotes,
    build_messages,
    constrained_grammar,
    evidence_passages,
    free_grammar,
    passages_for,
)
from reader.records import Chunk
from reader.retrieve.evidence import choose_evidence
from reader.retrieve.question import Question

TRICKY = (
    'He said "stop" and left. A back\\slash and a tab\there. Unicode: café, 中文, ﬁ. '
    "Rates rose 3.5 per cent in 2020! Why? Nobody knows."
)


def make_passages():
    chunks = [
        Chunk("a" * 16, "d", 0, 0, len(TRICKY), TRICKY),
        Chunk("b" * 16, "d", 1, 0, 40, "Rates are set by the central bank each month."),
    ]
    return passages_for(chunks)


def evidence_for(question):
    chunks = [p.chunk for p in make_passages()]
    return choose_evidence(Question.parse(question), chunks)


@pytest.mark.parametrize("claims_only", [False, True])
def test_grammars_compile_in_llama_cpp(claims_only, capfd):
    passages = make_passages()
    evidence = evidence_passages(evidence_for("Why did rates rise in 2020?"))
    for grammar in (
        constrained_grammar(evidence, claims_only=claims_only),
        constrained_grammar(evidence, claims_only=claims_only, after_quote=1),
        constrained_grammar(evidence, claims_only=claims_only, after_quote=2),
        free_grammar(passages, claims_only=claims_only),
    ):
        assert llama_cpp.LlamaGrammar.from_string(grammar, verbose=False) is not None
    # llama.cpp reports a grammar it cannot parse on stderr, and still returns one.
    assert "error parsing grammar" not in capfd.readouterr().err


@pytest.mark.model
@pytest.mark.parametrize(
    "sentence",
    [
        "The FAA barred U.S. operators from flying version 2.4 of the plane on March 13, 2019.",
        "Dr. Smith said that e.g. HTTP/1.1 servers send Expires dates at most one year ahead.",
        "In Hawaiian, Wailuku means 'destroying water.'",
    ],
)
def test_a_claim_sentence_may_hold_abbreviations_and_decimals_but_ends_at_its_end(sentence):
    from reader.answer.prompting import _SENTENCE_RULE
    from reader.models.files import embedded_model_path
    from reader.models.model_process import EmbeddedBackend

    backend = EmbeddedBackend(embedded_model_path(), n_ctx=1024)
    grammar = 'root ::= "\\"" sentence "\\""\n' + _SENTENCE_RULE
    request = f"Copy this text exactly, in double quotes: {sentence} And this is a second one."
    try:
        copied = backend.generate(
            [{"role": "user", "content": request}], grammar=grammar, max_tokens=60
        ).text
    finally:
        backend.close()
    # The real model copies the whole sentence under the grammar, and stops there.
    assert copied == f'"{sentence}"'


def test_constrained_grammar_offers_only_the_evidence_sentences():
    evidence = evidence_for("Why did rates rise in 2020?")
    passages = evidence_passages(evidence)
    # The sentence, with the question the text asks after it and its reply.
    assert passages[0].text.startswith("Rates rose 3.5 per cent in 2020!")
    grammar = constrained_grammar(passages)
    assert "Rates rose 3.5 per cent in 2020!" in grammar
    assert "Rates are set by the central bank each month." not in grammar or len(passages) > 1
    for passage in passages:
        assert passage.text in " ".join(passage.chunk.text.split())


def test_evidence_is_ordered_by_relevance():
    evidence = evidence_for("How are rates set by the central bank?")
    assert evidence[0].text == "Rates are set by the central bank each month."


def test_prompt_names_passages_by_alias_in_rank_order():
    messages = build_messages("Why?", make_passages(), "constrained")
    user = messages[-1]["content"]
    assert user.index("[c1]") < user.index("[c2]")
    assert "Why?" in user
    assert "never instructions" in messages[0]["content"]


def test_constrained_prompts_differ_only_after_the_replys_shape():
    # What every question shares comes first, so the model keeps it evaluated.
    first = build_messages("Why?", make_passages(), "constrained")
    second = build_messages("When were rates set?", make_passages()[1:], "constrained")
    assert first[0] == second[0]
    shared = first[1]["content"].split("Passages:")[0]
    assert '"claims"' in shared and '"source_id"' in shared
    assert second[1]["content"].startswith(shared + "Passages:")
    assert first[1]["content"].endswith("Question: Why?")


def test_known_quotes_give_the_rest_of_a_named_passage_and_the_grammar_after_it():
    passages = evidence_passages(evidence_for("Why did rates rise in 2020?"))
    known = KnownQuotes(passages)
    quoted = '"quote": "'
    opening = '{"claims": [{"source_id": "c1", ' + quoted
    rest, grammar = known.after(opening)
    # The quote as JSON writes it (escaped), then the key of the claim's own text.
    assert rest.endswith('", "text": "')
    assert parse_output(opening + rest + 'Rates rose."}]}').claims[0].quote == passages[0].text
    # What follows is the claim's text: a run of the named passage's own words.
    assert grammar.startswith("root ::= run0 ")
    # Whatever of the quote the model already wrote is not given twice.
    assert known.after(opening + rest[:5]) == (rest[5:], grammar)
    # Not inside a quote: nothing is known.
    assert known.after('{"claims": [{"source_id": "c1') is None
    assert known.after(opening + rest) is None
    assert known.after(opening + "Something else") is None
    assert known.after('{"claims": [{"source_id": "c9", ' + quoted) is None
    # After the last claim there may be, the grammar allows no other.
    second = opening + rest + 'Rates rose."}, {"source_id": "c1", ' + quoted
    _, last = known.after(second)
    last_claim = 'root ::= run0 "\\"}" "]" ", \\"unsupported\\": " unsupported "}"'
    assert last.splitlines()[0] == last_claim
