import itertools

from hypothesis import given, settings
from hypothesis import strategies as st

from reader.retrieve import build_fts_query


def test_bm25_ranks_the_most_relevant_chunk_first(library, make_file):
    text = "\n\n".join(
        [
            "Apples are grown in orchards. " * 10,
            "The tax code describes deductions for orchards and farms. " * 10,
            "Refunds are paid within thirty days of the request. Refunds need receipts. " * 6,
        ]
    )
    result = library.ingest(make_file("mixed.txt", text.encode()))
    hits = library.search("how long do refunds take", doc_id=result.doc_id, limit=3)
    assert hits
    assert "Refunds are paid" in hits[0].chunk.text
    assert all(a.score >= b.score for a, b in itertools.pairwise(hits))
    assert all(hit.score > 0 for hit in hits)


def test_search_can_be_limited_to_one_document(library, make_file):
    first = library.ingest(make_file("a.txt", b"The lighthouse keeper logs every ship."))
    second = library.ingest(make_file("b.txt", b"A lighthouse guides ships at night."))
    everywhere = {hit.chunk.doc_id for hit in library.search("lighthouse")}
    assert everywhere == {first.doc_id, second.doc_id}
    only = {hit.chunk.doc_id for hit in library.search("lighthouse", doc_id=second.doc_id)}
    assert only == {second.doc_id}


def test_ligatures_diacritics_and_cjk_are_searchable(library, make_file):
    library.ingest(make_file("l.txt", "The \ufb01nancial report. Caf\u00e9 society.".encode()))
    library.ingest(make_file("c.txt", "孫悟空在傍聞講，喜得他抓耳撓腮。".encode()))
    assert library.search("financial")
    assert library.search("cafe")
    hits = library.search("悟空")
    assert hits and "孫悟空" in hits[0].chunk.text


HOSTILE = [
    '"',
    "*",
    "AND",
    "OR NOT",
    "a AND",
    "NEAR(a b)",
    "col:term",
    "^x",
    "(((",
    "'; DROP",
    "-",
    "",
]


def test_any_user_text_is_a_valid_query(library, make_file):
    library.ingest(make_file("a.txt", b"AND OR NOT are words here; so is NEAR."))
    for query in HOSTILE:
        library.search(query)  # must not raise
    assert library.search("AND")
    assert library.search("*") == []


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=60))
def test_random_text_never_raises(query):
    from reader.library import Library

    expression = build_fts_query(query)
    assert expression.count('"') % 2 == 0
    with Library() as library:
        library.search(query)


def test_running_heads_are_not_searched_and_prompts_leave_them_out(library, tmp_path):
    from reader.answer import Answerer, ScriptedBackend
    from tests.books import make_book

    path = tmp_path / "book.pdf"
    make_book(path, seed=3)
    doc_id = library.ingest(path).doc_id
    assert "CHAPTER ONE" in library.document(doc_id).text  # printed, so kept in the text
    assert library.search("chapter") == []  # but only the running head says it
    assert library.search("harbour lamp")
    backend = ScriptedBackend().enqueue('{"claims": []}', '{"claims": []}')
    Answerer(library, backend, mode="free").ask(
        "What do the records say about the harbour lamp?", [doc_id]
    )
    prompt = " ".join(m["content"] for m in backend.requests[0]["messages"])
    assert "HARBOUR BOOK" not in prompt and "CHAPTER ONE" not in prompt
    assert "harbour" in prompt


def test_a_large_library_leaves_words_most_chunks_hold_out_of_the_query(
    library, make_file, monkeypatch
):
    import importlib

    search_module = importlib.import_module("reader.retrieve.search")
    text = "\n\n".join(
        f"Note {n}: the keeper of the light wrote the log of the "
        f"{'lighthouse' if n == 7 else 'harbour'}."
        for n in range(60)
    )
    library.ingest(make_file("log.txt", text.encode()))
    everything = [hit.chunk.id for hit in library.search("the lighthouse keeper")]
    # Past the size where pruning starts, "the" and "keeper" (in every chunk) are left out...
    monkeypatch.setattr(search_module, "LARGE_LIBRARY_CHUNKS", 1)
    assert search_module.plan_search(library.store, "the lighthouse keeper").exact == (
        '"lighthouse"'
    )
    pruned = [hit.chunk.id for hit in library.search("the lighthouse keeper")]
    # ...and the best chunk is the same one.
    assert pruned[0] == everything[0]
    assert "lighthouse" in library.store.chunk(pruned[0]).text
    # A query of common words only still finds something.
    assert library.search("the keeper")
