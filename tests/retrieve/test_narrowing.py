"""Search in a large library: narrowed with exact scores, and within one document by rowid."""

from __future__ import annotations

import importlib
import random
from collections.abc import Iterator
from pathlib import Path

import pytest

from reader.records import Chunk, Document
from reader.retrieve import search
from reader.retrieve.word_counts import chunks_holding
from reader.store import LibraryStore

search_module = importlib.import_module("reader.retrieve.search")

# The test library's words: accents, apostrophes, digits and CJK among them.
WORDS = [
    word
    for line in (
        "harbour lamp keeper storm ledger tide mooring crown spring beacon rope anchor island",
        "channel pilot cargo vessel quay winter signal café naïve résumé crème don't O'Brien",
        "keeper's 304 2024 v2 http status modified the of and a to in was",
    )
    for word in line.split()
]
CJK = ["孫悟空", "傍聞講", "喜得他", "抓耳撓腮"]
HEADINGS = [
    ("Chapter 1", "The harbour"),
    ("Chapitre 2", "Café society"),
    ("Status 304",),
    ("第一章", "孫悟空"),
    ("Keeper's log",),
]


def paragraph(rng: random.Random) -> str:
    # Zipf's law: the n-th word is used 1/n as often as the first.
    words = rng.choices(WORDS, weights=[1 / rank for rank in range(1, len(WORDS) + 1)], k=10)
    words += rng.sample(WORDS, 4)
    if rng.random() < 0.2:
        words.insert(rng.randrange(len(words)), rng.choice(CJK))
    rng.shuffle(words)
    return " ".join(words) + "."


PARAGRAPHS = [paragraph(random.Random(n)) for n in range(24)]


def build_library(path: Path, documents: int = 30) -> LibraryStore:
    """Each paragraph in about 15 chunks, as a large library repeats a passage
    (bench/library.py's does: every source paragraph is in many documents)."""
    store = LibraryStore(path)
    rng = random.Random(7)
    for number in range(documents):
        doc_id = f"doc{number}"
        chosen = rng.sample(PARAGRAPHS, 12)
        chunks, start = [], 0
        for seq, text in enumerate(chosen):
            heading = rng.choice(HEADINGS) if rng.random() < 0.5 else ()
            chunks.append(
                Chunk(f"{doc_id}-{seq}", doc_id, seq, start, start + len(text), text, heading)
            )
            start += len(text) + 2
        text = "\n\n".join(chosen)
        store.add_document(
            Document(doc_id, doc_id, f"/{doc_id}.txt", "text", text, [0], "t"), chunks
        )
    return store


@pytest.fixture
def large(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[LibraryStore]:
    """360 chunks, searched as a large library is (the threshold lowered to 1)."""
    monkeypatch.setattr(search_module, "LARGE_LIBRARY_CHUNKS", 1)
    store = build_library(tmp_path / "library.db")
    yield store
    store.close()


def phrase_queries(count: int, seed: int) -> list[str]:
    """Runs of 2 to 6 words from the library's paragraphs, as bench/library.py asks."""
    rng = random.Random(seed)
    queries = []
    for _ in range(count):
        words = rng.choice(PARAGRAPHS).rstrip(".").split()
        start = rng.randrange(len(words) - 6)
        queries.append(" ".join(words[start : start + rng.randint(2, 6)]))
    return queries


def scores(store: LibraryStore, expression: str) -> dict[int, float]:
    rows = store.execute(
        "SELECT rowid, bm25(chunks_fts, 1.0, 0.5) FROM chunks_fts WHERE chunks_fts MATCH ?",
        [expression],
    )
    return dict(rows)


def test_a_narrowed_expression_scores_every_row_exactly_as_the_or_query(large):
    # What narrowing rests on: FTS5's bm25() of a row depends on the query's
    # phrases, not on how AND and OR join them. Headings, accents, apostrophes,
    # digits and CJK phrases are all in the rows compared.
    rng = random.Random(3)
    queries = phrase_queries(150, seed=1) + [
        " ".join(rng.sample(WORDS + CJK, rng.randint(2, 7))) for _ in range(150)
    ]
    compared = 0
    narrowed: list[str] = []
    for query in queries:
        plan = search_module.plan_search(large, query, scoring_budget=0)
        exact = scores(large, plan.exact)
        for expression in plan.narrowed:
            narrowed.append(expression)
            for rowid, score in scores(large, expression).items():
                assert score == exact[rowid], (query, expression, rowid)
                compared += 1
    assert len(narrowed) >= 150
    assert compared >= 3_000
    assert any('"孫 悟"' in expression for expression in narrowed)  # a pair of a CJK run
    assert any('"café"' in expression for expression in narrowed)


def test_narrowed_search_finds_the_same_best_chunks_as_the_exact_search(large):
    answered_narrowed = 0
    for query in phrase_queries(80, seed=2):
        # Each paragraph is in 15 chunks: the best 10 hold every word of the query.
        narrowed = search(large, query, limit=10, scoring_budget=0)
        exact = search(large, query, limit=10, scoring_budget=None)
        assert [(hit.chunk.id, hit.score) for hit in narrowed] == [
            (hit.chunk.id, hit.score) for hit in exact
        ], query
        plan = search_module.plan_search(large, query, scoring_budget=0)
        if plan.narrowed and len(scores(large, plan.narrowed[0])) >= 10:
            answered_narrowed += 1  # the narrowest expression alone gave the answer
    assert answered_narrowed >= 40


def uncommon_words(store: LibraryStore, count: int) -> list[str]:
    """``count`` words held by some chunks but fewer than COMMON_SHARE of them,
    each by a different number of chunks."""
    held = chunks_holding(store, WORDS)
    limit = search_module.COMMON_SHARE * store.indexed_chunks()
    by_count = {held[word]: word for word in WORDS if 0 < held[word] <= limit}
    assert len(by_count) >= count
    return list(by_count.values())[:count]


def test_a_narrowed_search_that_finds_too_few_widens_until_it_has_enough(large):
    rare = "lighthouse"  # in two chunks only, one with each of two further words
    first, second, third = uncommon_words(large, 3)
    large.add_document(
        Document("rare", "rare", "/rare.txt", "text", "x", [0], "t"),
        [
            Chunk("rare-0", "rare", 0, 0, 1, f"{rare} {first}"),
            Chunk("rare-1", "rare", 1, 0, 1, f"{rare} {third}"),
        ],
    )
    query = f"{rare} {first} {second} {third}"
    plan = search_module.plan_search(large, query, scoring_budget=0)
    assert plan.narrowed[0].startswith(f'"{rare}" AND ')
    assert len(scores(large, plan.narrowed[0])) < 10
    narrowed = search(large, query, limit=10, scoring_budget=0)
    exact = search(large, query, limit=10, scoring_budget=None)
    assert len(narrowed) == 10
    assert [hit.chunk.id for hit in narrowed] == [hit.chunk.id for hit in exact]


def test_the_plan_groups_words_rarest_first_and_widens_from_the_commonest(large):
    # Words of similar weight: the rarest alone, then pairs (each pair weighs
    # more than the rarest word), the odd one out with the last pair.
    words = uncommon_words(large, 6)
    held = chunks_holding(large, words)
    a, b, c, d, e, f = (f'"{word}"' for word in sorted(words, key=held.__getitem__))
    plan = search_module.plan_search(large, " ".join(words), scoring_budget=0)
    assert plan.exact == " OR ".join([a, b, c, d, e, f])
    assert plan.narrowed == (
        f"{a} AND ({b} OR {c}) AND ({d} OR {e} OR {f})",
        f"{a} AND ({b} OR {c} OR {d} OR {e} OR {f})",
    )
    # A word the index does not hold cannot narrow the search to nothing.
    plan = search_module.plan_search(large, f"zzzq {words[0]} {words[1]}", scoring_budget=0)
    assert plan.exact.endswith('"zzzq"')


def test_common_words_that_weigh_less_than_the_rarest_share_one_group(large):
    # As in a question: the passage that answers "what does lighthouse mean"
    # may hold none of "what", "does" and "mean", and still be the best.
    words = uncommon_words(large, 4)
    large.add_document(
        Document("rare", "rare", "/rare.txt", "text", "x", [0], "t"),
        [Chunk("rare-0", "rare", 0, 0, 1, "lighthouse")],
    )
    held = chunks_holding(large, words)
    a, b, c, d = (f'"{word}"' for word in sorted(words, key=held.__getitem__))
    plan = search_module.plan_search(large, " ".join(["lighthouse", *words]), scoring_budget=0)
    assert plan.narrowed == (f'"lighthouse" AND ({a} OR {b} OR {c} OR {d})',)


def test_narrowing_waits_for_a_large_library_and_a_query_past_the_budget(large, monkeypatch):
    words = uncommon_words(large, 3)
    query = " ".join(words)
    held = sum(chunks_holding(large, words).values())
    assert search_module.plan_search(large, query, scoring_budget=held - 1).narrowed
    assert not search_module.plan_search(large, query, scoring_budget=held).narrowed
    assert not search_module.plan_search(large, query, scoring_budget=None).narrowed
    monkeypatch.setattr(search_module, "LARGE_LIBRARY_CHUNKS", 100_000)
    plan = search_module.plan_search(large, query, scoring_budget=0)
    assert plan == search_module.SearchPlan(" OR ".join(f'"{word}"' for word in words))


def test_word_counts_are_remembered_until_the_index_changes(large, monkeypatch):
    counted: list[list[str]] = []
    count = large.chunks_holding

    def counting(words):
        words = list(words)
        counted.append(words)
        return count(words)

    monkeypatch.setattr(large, "chunks_holding", counting)
    first = chunks_holding(large, ["Harbour", "tide"])
    assert chunks_holding(large, ["harbour", "Tide"]) == {
        "harbour": first["Harbour"],
        "Tide": first["tide"],
    }
    assert len(counted) == 1
    text = "harbour harbour"
    large.add_document(
        Document("more", "more", "/more.txt", "text", text, [0], "t"),
        [Chunk("more-0", "more", 0, 0, len(text), text)],
    )
    assert chunks_holding(large, ["harbour"]) == {"harbour": first["Harbour"] + 1}
    assert len(counted) == 2


def test_a_search_in_one_document_ranks_as_the_library_wide_search(large):
    replaced = "doc3"  # written again: its chunks come after every other document's
    chunks = large.chunks(replaced)
    large.add_document(large.get_document(replaced), chunks)
    for doc_id in ("doc0", "doc17", replaced, "doc29"):
        for query in phrase_queries(10, seed=4):
            everywhere = search(large, query, limit=400, scoring_budget=None)
            expected = [
                (hit.chunk.id, hit.score) for hit in everywhere if hit.chunk.doc_id == doc_id
            ]
            found = search(large, query, doc_id=doc_id, limit=400)
            assert [(hit.chunk.id, hit.score) for hit in found] == expected
    assert search(large, "harbour", doc_id="no-such-document") == []
