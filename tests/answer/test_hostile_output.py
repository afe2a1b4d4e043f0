"""Hostile model output never yields a linked claim that is not in the source."""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from reader.answer import Answerer, ScriptedBackend
from reader.library import Library
from reader.text.normalize import normalize_key
from tests.answer.conftest import TREATY

QUESTION = "When was the Treaty of Westphalia signed?"
SOURCE_WORDS = TREATY.split()

aliases = st.sampled_from(["c1", "c2", "c3", "c4", "c0", "c99", "", "0123456789abcdef"])
true_quotes = st.builds(
    lambda start, length: " ".join(SOURCE_WORDS[start : start + length]),
    st.integers(0, len(SOURCE_WORDS) - 1),
    st.integers(1, 12),
)
quotes = st.one_of(true_quotes, st.text(max_size=80), true_quotes.map(str.upper))
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3)
    ),
    max_leaves=8,
)
claims = st.fixed_dictionaries(
    {
        "text": st.one_of(st.text(max_size=40), json_values),
        "source_id": st.one_of(aliases, json_values),
        "quote": st.one_of(quotes, json_values),
    }
)
documents = st.fixed_dictionaries(
    {
        "answer": st.one_of(st.text(max_size=60), json_values),
        "claims": st.one_of(st.lists(claims, max_size=6), json_values),
        "unsupported": st.one_of(st.lists(st.text(max_size=20), max_size=3), json_values),
    }
)
outputs = st.one_of(
    documents.map(json.dumps),
    documents.map(lambda d: "```json\n" + json.dumps(d) + "\n```"),
    documents.map(lambda d: json.dumps(d)[: len(json.dumps(d)) // 2]),  # cut off
    st.text(max_size=200),
    st.just("x" * 300_000),
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(first=outputs, second=outputs)
def test_only_quotes_found_in_the_cited_retrieved_source_are_linked(
    tmp_path_factory, first, second
):
    folder = tmp_path_factory.mktemp("hostile")
    path = folder / "treaties.txt"
    path.write_text(TREATY, encoding="utf-8")
    with Library(folder / "library.db") as library:
        doc_id = library.ingest(path).doc_id
        text = library.document(doc_id).text
        answerer = Answerer(library, ScriptedBackend().enqueue(first, second), mode="free")
        retrieved = {chunk.id for chunk in answerer.retrieve(QUESTION, [doc_id])}
        answer = answerer.ask(QUESTION, [doc_id])
        chunks = {chunk.id: chunk for chunk in library.chunks(doc_id)}
        for item in answer.claims:
            check = item.verification
            if not item.verified:
                assert check.start is None and check.end is None
                assert item.to_json()["start"] is None
                continue
            # A linked claim cites a retrieved chunk, and its span overlaps that
            # chunk and holds the quote.
            assert item.claim.source_id in retrieved
            chunk = chunks[item.claim.source_id]
            assert check.start < chunk.end and check.end > chunk.start
            span = text[check.start : check.end]
            if check.status == "exact":
                assert normalize_key(span) == normalize_key(item.claim.quote)
            else:
                assert check.status == "fuzzy" and 0 < len(span) <= 2 * len(item.claim.quote) + 10


other_words = st.sampled_from(
    [
        "Napoleon",
        "1649",
        "never",
        "Paris",
        "the",
        "treaty",
        "signed",
        "not",
        "war",
        "ended",
        "was",
        "in",
        "1648",
        "Utrecht",
        "bread",
        "price",
        "Congress",
        "modern",
        "state",
    ]
)
grounding_claims = st.lists(
    st.fixed_dictionaries(
        {
            "text": st.lists(other_words, min_size=1, max_size=8).map(" ".join),
            "source_id": st.sampled_from(["c1", "c2", "c3"]),
            "quote": true_quotes,
        }
    ),
    min_size=1,
    max_size=4,
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(claims=grounding_claims)
def test_no_marker_ever_stands_beside_words_the_quote_does_not_say(tmp_path_factory, claims):
    """Terminal, Markdown and window HTML: a marker follows grounded words or the quote."""
    import html as html_module
    import re

    from reader.answer.render import render_markdown, render_text
    from reader.ui.answer_view import answer_html
    from reader.verify.grounding import check_grounding

    folder = tmp_path_factory.mktemp("grounding")
    path = folder / "treaties.txt"
    path.write_text(TREATY, encoding="utf-8")
    output = json.dumps({"answer": "", "claims": claims, "unsupported": []})
    with Library(folder / "library.db") as library:
        doc_id = library.ingest(path).doc_id
        backend = ScriptedBackend().enqueue(output, json.dumps({"claims": []}))
        answer = Answerer(library, backend, mode="free").ask(QUESTION, [doc_id])

    def allowed(index: int, marked: str) -> None:
        item = answer.claims[index]
        assert item.verified
        quote_shown = "\u201c" + " ".join(item.claim.quote.split()) + "\u201d"
        if marked == quote_shown:
            return
        assert marked == item.claim.text
        assert check_grounding(item.claim.text, item.claim.quote, QUESTION).grounded

    linked = [i for i, item in enumerate(answer.claims) if item.verified]
    page = answer_html(answer)
    # Each verified claim's words, set off, then its marker: the only link it has.
    marked = re.findall(
        r'<span style="background-color: [^"]*">([^<]*)</span><sup><a href="claim:(\d+)"', page
    )
    assert sorted(int(i) for _, i in marked) == linked
    for text, index in marked:
        allowed(int(index), html_module.unescape(text))

    for rendered, marker in ((render_text(answer), " [{}]"), (render_markdown(answer), "[^{}]")):
        prose = rendered.split("\n")[2 if rendered.startswith("## ") else 0]
        for number, index in enumerate(linked, start=1):
            mark = marker.format(number)
            assert mark in prose
            before = prose[: prose.index(mark)]
            shown = answer.claims[index].shown_text
            assert before.endswith(shown)
            allowed(index, shown)
    for item in answer.claims:
        if item.verified and not item.grounded:
            assert any(item.claim.text in text for text in answer.unsupported)
