"""BM25 search over chunks that accepts any text a user types.

User text never reaches FTS5's query syntax: it is split into words, each word
becomes a quoted string, and the words are joined with OR so that BM25 ranks
chunks by how many and how rare the matched words are. ``AND``, ``*``, quotes
and brackets are therefore plain words or nothing at all, and never a syntax
error.

The index holds every CJK character as a word of its own (see
``reader.text.words.search_form``), and a question's run of CJK characters is a
whole clause ("公司负责人是谁"), which as one phrase would be found only where
the document says exactly that. So a run is searched as its overlapping pairs
of characters, each a phrase ("公 司" OR "司 负" OR ...): a chunk holding more
of the run's words, and rarer ones, ranks higher, as with spaced words.

In a large library a question of everyday words matches a large share of the
chunks, and FTS5's bm25() costs about 2 µs for every row it scores. So a library
of LARGE_LIBRARY_CHUNKS or more is searched in two ways that score fewer rows:

- a word most chunks hold is left out (COMMON_SHARE);
- when the words left still hold more than SCORING_BUDGET rows between them, the
  search first scores only the chunks that hold the rarest word and a word of
  each further group: ``"a" AND ("b" OR "c") AND ("d" OR "e" OR "f")``, the
  other words taken rarest first into groups that each weigh (by idf) at least
  as much as the rarest word. A chunk left out lacks that much weight at least,
  and the best chunks hold most of the weight of a query (bench/library.py
  measures how often the top 10 is the same). FTS5's bm25() of a row depends on
  the expression's phrases, not on how AND and OR join them, and the phrases
  come in the same order as in the OR query, so each score is exactly the row's
  score under the OR query: narrowing changes only which rows are looked at.
  Should the narrowed search find fewer than ``limit`` chunks, it widens, its
  two commonest groups joined, until it finds enough or is the OR query itself.
"""

from __future__ import annotations

import math
import re
import unicodedata
from dataclasses import dataclass

from reader.records import SearchHit
from reader.retrieve.word_counts import chunks_holding
from reader.store.database import LibraryStore
from reader.text.normalize import CJK_LETTERS
from reader.text.words import SEARCH_WORD

_CJK_CLASS = re.compile(f"[{CJK_LETTERS}]")
MAX_QUERY_TERMS = 64
# A word held by more than this share of a large library's chunks is left out
# of the query: its weight (idf) is near zero, so the best chunks stay the same
# (measured on bench/library.py's questions: the same top 10 at 340,000 chunks,
# in 0.4x the time). A small library, where scoring everything is quick anyway,
# is searched with every word.
COMMON_SHARE = 0.25
LARGE_LIBRARY_CHUNKS = 20_000
# Rows the plain OR query may score before the search is narrowed: about 30 ms.
SCORING_BUDGET = 15_000


@dataclass(frozen=True)
class SearchPlan:
    """The FTS5 expressions one search may run.

    ``narrowed`` are tried first, narrowest first, until one finds enough
    chunks; ``exact`` is the OR of every word searched for, whose best rows
    are the exact BM25 ranking. An empty ``exact`` means there is nothing
    to search for.
    """

    exact: str
    narrowed: tuple[str, ...] = ()


def build_fts_query(text: str) -> str:
    """An FTS5 MATCH expression for free text; empty if it holds no words."""
    return _any_of(_words(text)[:MAX_QUERY_TERMS])


def plan_search(
    store: LibraryStore, text: str, scoring_budget: int | None = SCORING_BUDGET
) -> SearchPlan:
    """What ``search`` runs for ``text``; ``scoring_budget=None`` never narrows."""
    words = _words(text)
    total = store.indexed_chunks()
    if total < LARGE_LIBRARY_CHUNKS or len(words) < 2:
        return SearchPlan(build_fts_query(text))
    held = chunks_holding(store, (word for word in words if not _is_cjk(word[0])))
    kept = [word for word in words if held.get(word, 0) <= COMMON_SHARE * total]
    if not kept:  # every word is common: the rarest one still finds something
        kept = [min(words, key=lambda word: held.get(word, 0))]
    kept = kept[:MAX_QUERY_TERMS]
    # Rarest first, in the OR query as in the narrowed ones, so that bm25() adds
    # the same weights in the same order. A word with no count (a CJK run, a
    # word the index spells otherwise, a misspelling) goes last, where it
    # cannot narrow the search to nothing.
    kept.sort(key=lambda word: held.get(word, 0) or total)
    exact = _any_of(kept)
    rows = sum(held.get(word, 0) for word in kept)
    if scoring_budget is None or len(kept) < 2 or rows <= scoring_budget:
        return SearchPlan(exact)
    groups = _required_groups(kept, {word: _weight(held.get(word, 0), total) for word in kept})
    narrowed = []
    while len(groups) > 1:
        narrowed.append(" AND ".join(_group(group) for group in groups))
        groups[-2:] = [groups[-2] + groups[-1]]
    return SearchPlan(exact, tuple(narrowed))


def search(
    store: LibraryStore,
    query: str,
    doc_id: str | None = None,
    limit: int = 10,
    scoring_budget: int | None = SCORING_BUDGET,
) -> list[SearchHit]:
    """The best-matching chunks for ``query``, best first, with BM25 scores.

    Scores are positive; higher is better. ``doc_id`` restricts the search to
    one document, whose part of the index alone is read (never narrowed). A
    large library's search is narrowed past ``scoring_budget`` rows (see the
    module's docstring); ``None`` ranks every chunk holding a word of the query.
    """
    if limit <= 0:
        return []
    plan = plan_search(store, query, scoring_budget if doc_id is None else None)
    if not plan.exact:
        return []
    rows: list[tuple[int, float]] = []
    for expression in (*plan.narrowed, plan.exact):
        rows = _best_rows(store, expression, doc_id, limit)
        if len(rows) >= limit:
            break
    chunks = store.chunks_by_rowid(row[0] for row in rows)
    return [SearchHit(chunks[rowid], score) for rowid, score in rows if rowid in chunks]


def _best_rows(
    store: LibraryStore, expression: str, doc_id: str | None, limit: int
) -> list[tuple[int, float]]:
    sql = "SELECT chunks_fts.rowid, -bm25(chunks_fts, 1.0, 0.5) AS score FROM chunks_fts "
    parameters: list[object] = []
    if doc_id is not None:
        rowids = store.chunk_rowid_range(doc_id)
        if rowids is None:
            return []
        # FTS5 reads only the rowid range's part of each word's postings; without
        # it, every chunk of the library that matches is looked up in ``chunks``
        # for its document (0.3 s for a document of 119 chunks at a million).
        sql += (
            "JOIN chunks ON chunks.rowid = chunks_fts.rowid WHERE chunks.doc_id = ? "
            "AND chunks_fts.rowid BETWEEN ? AND ? AND "
        )
        parameters += [doc_id, *rowids]
    else:
        sql += "WHERE "
    # Equal scores are common (one paragraph in many chunks); the rowid makes the
    # order, and so the narrowed and the OR query's answers, the same every time.
    sql += "chunks_fts MATCH ? ORDER BY score DESC, chunks_fts.rowid LIMIT ?"
    parameters += [expression, limit]
    return [(int(rowid), float(score)) for rowid, score in store.execute(sql, parameters)]


def _required_groups(words: list[str], weight: dict[str, float]) -> list[list[str]]:
    """``words`` (rarest first) in groups a narrowed search needs a word of each.

    The rarest word is a group alone; the others, in order, make groups that
    weigh at least as much as it does, the last taking any words left over.
    Every chunk the narrowed search leaves out therefore lacks at least the
    weight of the rarest word: one lacking a group of common words (the "what"
    and "does" of a question, which the passage answering it seldom holds)
    is kept, and so is one lacking one word of a pair of rarer ones.
    """
    groups = [words[:1]]
    group: list[str] = []
    for word in words[1:]:
        group.append(word)
        if sum(weight[member] for member in group) >= weight[words[0]]:
            groups.append(group)
            group = []
    if group and len(groups) > 1:
        groups[-1] += group
    elif group:
        groups.append(group)
    return groups


def _weight(held: int, total: int) -> float:
    """A word's weight in FTS5's bm25(): its idf, ``held`` of ``total`` chunks holding it."""
    return max(math.log((total - held + 0.5) / (held + 0.5)), 1e-6)


def _words(text: str) -> list[str]:
    """The words of ``text`` as the index splits them, each once, in order; a run of
    CJK characters as its overlapping pairs (a run of one character as itself)."""
    found: list[str] = []
    for token in SEARCH_WORD.findall(unicodedata.normalize("NFKC", text)):
        if _is_cjk(token[0]) and len(token) > 1:
            found.extend(token[index : index + 2] for index in range(len(token) - 1))
        else:
            found.append(token)
    return list(dict.fromkeys(found))


def _phrase(word: str) -> str:
    return '"' + " ".join(word) + '"' if _is_cjk(word[0]) else f'"{word}"'


def _any_of(words: list[str]) -> str:
    return " OR ".join(_phrase(word) for word in words)


def _group(words: list[str]) -> str:
    return _phrase(words[0]) if len(words) == 1 else f"({_any_of(words)})"


def _is_cjk(char: str) -> bool:
    return _CJK_CLASS.match(char) is not None
