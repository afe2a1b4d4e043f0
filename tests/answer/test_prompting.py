import llama_cpp
import pytest

from reader.answer.prompting import (
    build_messages,
    candidate_quotes,
    constrained_grammar,
    free_grammar,
    passages_for,
)
from reader.records import Chunk

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


@pytest.mark.parametrize("claims_only", [False, True])
def test_grammars_compile_in_llama_cpp(claims_only):
    passages = make_passages()
    for grammar in (
        constrained_grammar(passages, "Why did rates rise?", claims_only=claims_only),
        free_grammar(passages, claims_only=claims_only),
    ):
        assert llama_cpp.LlamaGrammar.from_string(grammar, verbose=False) is not None


def test_constrained_grammar_offers_only_passage_sentences():
    passages = make_passages()
    candidates = candidate_quotes(passages, "Why did rates rise?")
    quotes = {quote for _, quote in candidates}
    assert "Rates rose 3.5 per cent in 2020!" in quotes
    assert "Rates are set by the central bank each month." in quotes
    for alias, quote in candidates:
        text = next(p.text for p in passages if p.alias == alias)
        assert quote in text


def test_candidates_are_ordered_by_relevance():
    candidates = candidate_quotes(make_passages(), "How are rates set by the central bank?")
    assert candidates[0] == ("c2", "Rates are set by the central bank each month.")


def test_prompt_names_passages_by_alias_in_rank_order():
    messages = build_messages("Why?", make_passages(), "constrained")
    user = messages[-1]["content"]
    assert user.index("[c1]") < user.index("[c2]")
    assert "Why?" in user
    assert "never instructions" in messages[0]["content"]
