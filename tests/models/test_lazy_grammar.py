"""Greedy sampling that asks the grammar about the best token only, on the embedded model."""

from __future__ import annotations

import re

import pytest

from reader.answer.parsing import parse_output
from reader.answer.prompting import (
    CONSTRAINED,
    Passage,
    build_messages,
    constrained_grammar,
    run_rules,
)
from reader.answer.spans import NOT_ANSWERED_TEXT, find_run
from reader.models.backends import REPEAT_PENALTY
from reader.models.files import embedded_model_path
from reader.models.in_process import InProcessBackend
from reader.models.lazy_grammar import LazyGrammarSampler
from reader.records import Chunk

SENTENCES = [
    "The Treaty of Westphalia was signed in 1648 and ended the Thirty Years' War.",
    "The Congress of Vienna met in 1814 and 1815 and redrew the map of Europe.",
    "Dr. Ames measured 2.4 litres of rain in the U.S. station that spring.",
]
PASSAGES = [
    Passage(f"c{n}", Chunk(f"{n:016x}", "d", n, 0, len(text), text))
    for n, text in enumerate(SENTENCES, start=1)
]
QUESTIONS = [
    "When was the Treaty of Westphalia signed?",
    "What did the Congress of Vienna do?",
    "How much rain did Dr. Ames measure?",
]


@pytest.fixture(scope="module")
def llm():
    backend = InProcessBackend(embedded_model_path(), n_ctx=2048)
    backend.load()
    yield backend._llm
    backend.close()


def generate(llm, messages, grammar: str, lazy: bool) -> str:
    import llama_cpp

    lazily = llm._init_sampler
    # Both sides start cold: llama-cpp-python (0.3.36) re-evaluates the last token of a
    # prompt it holds already, and greedy choices can differ by that alone.
    llm.reset()
    if not lazy:  # llama-cpp-python's own chain: penalties, grammar over every token, greedy
        llm._init_sampler = type(llm)._init_sampler.__get__(llm)
    try:
        reply = llm.create_chat_completion(
            messages=messages,
            grammar=llama_cpp.LlamaGrammar.from_string(grammar, verbose=False),
            max_tokens=160,
            temperature=0.0,
            repeat_penalty=REPEAT_PENALTY,
        )
    finally:
        llm._init_sampler = lazily
    return reply["choices"][0]["message"]["content"]


@pytest.mark.parametrize("question", QUESTIONS)
def test_it_chooses_what_llama_cpp_s_own_chain_chooses(llm, question):
    messages = build_messages(question, PASSAGES, CONSTRAINED)
    grammar = constrained_grammar(PASSAGES)
    assert generate(llm, messages, grammar, lazy=True) == generate(
        llm, messages, grammar, lazy=False
    )


def test_the_grammar_is_asked_about_all_tokens_only_when_it_refuses_the_best(llm, monkeypatch):
    sizes: list[int] = []
    apply = LazyGrammarSampler._apply

    def counting(self, candidates):
        sizes.append(len(candidates))
        return apply(self, candidates)

    monkeypatch.setattr(LazyGrammarSampler, "_apply", counting)
    # A reply the model would not write by itself: the grammar must overrule it.
    grammar = 'root ::= "zebra-" [0-9] [0-9] [0-9]'
    messages = [{"role": "user", "content": "Say hello."}]
    text = generate(llm, messages, grammar, lazy=True)
    assert re.fullmatch(r"zebra-[0-9]{3}", text)
    assert llm.n_vocab() in sizes  # refused at least once, then all checked

    sizes.clear()
    messages = build_messages(QUESTIONS[0], PASSAGES, CONSTRAINED)
    generate(llm, messages, constrained_grammar(PASSAGES), lazy=True)
    single = sizes.count(1)
    assert single > 0 and sizes.count(llm.n_vocab()) < single / 2


def _is_run_or_decline(text: str, quote: str) -> bool:
    return text == NOT_ANSWERED_TEXT or find_run(text, quote) is not None


@pytest.mark.parametrize("question", QUESTIONS)
def test_a_claims_text_under_the_grammar_is_its_quotes_own_words(llm, question):
    messages = build_messages(question, PASSAGES, CONSTRAINED)
    reply = parse_output(generate(llm, messages, constrained_grammar(PASSAGES), lazy=True))
    assert reply.claims
    for claim in reply.claims:
        assert claim.quote in SENTENCES
        assert _is_run_or_decline(claim.text, claim.quote), claim


def test_words_the_model_is_told_to_write_get_through_only_as_the_quotes(llm):
    # Told to write a sentence of its own, the model can still only choose words of
    # the quote it named, in the quote's order, or decline.
    quote = SENTENCES[0]
    grammar = 'root ::= "\\"" run0 "\\""\n' + "\n".join(run_rules("run0", quote))
    for request in [
        "Write: The Treaty of Westphalia was never signed by anyone.",
        "Write: 1648 was the year the Congress of Vienna met.",
        f"Copy the words 'signed in 1648' from this sentence: {quote}",
    ]:
        text = generate(llm, [{"role": "user", "content": request}], grammar, lazy=True)
        assert text.startswith('"') and text.endswith('"')
        assert _is_run_or_decline(text[1:-1], quote), text
