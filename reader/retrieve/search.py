"""BM25 search over chunks that accepts any text a user types.

User text never reaches FTS5's query syntax: it is split into words, each word
becomes a quoted string (a run of CJK characters becomes a quoted phrase of
single characters, matching how the index stores them), and the words are
joined with OR so that BM25 ranks chunks by how many and how rare the matched
words are. ``AND``, ``*``, quotes and brackets are therefore plain words or
nothing at all, and never a syntax error.
"""

from __future__ import annotations

import re
import unicodedata

from reader.records import SearchHit
from reader.store.database import LibraryStore

_CJK_LETTERS = "\u1100-\u11ff\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff"
_TOKEN = re.compile(rf"[{_CJK_LETTERS}]+|[^\W{_CJK_LETTERS}]+")
MAX_QUERY_TERMS = 64
# In a large library, BM25 scores every chunk that holds any word of the query,
# and "what", "is", "the" are in most of them: a word held by more than this
# share of the chunks is left out of the query. Its weight (idf) is near zero,
# so the best chunks stay the same (measured on bench/library.py's questions:
# the same top 10 at 340,000 chunks, in 0.4x the time), and a small library,
# where scoring everything is quick anyway, is searched with every word.
COMMON_SHARE = 0.25
LARGE_LIBRARY_CHUNKS = 20_000


def build_fts_query(text: str) -> str:
    """An FTS5 MATCH expression for free text; empty if it holds no words."""
    terms: list[str] = []
    for token in _TOKEN.findall(unicodedata.normalize("NFKC", text)):
        term = '"' + " ".join(token) + '"' if _is_cjk(token[0]) else f'"{token}"'
        if term not in terms:
            terms.append(term)
    return " OR ".join(terms[:MAX_QUERY_TERMS])


_CJK_CLASS = re.compile(f"[{_CJK_LETTERS}]")


def _without_common_words(store: LibraryStore, query: str) -> str:
    """``query`` without the words most chunks of a large library hold (see COMMON_SHARE)."""
    total = store.indexed_chunks()
    words = _TOKEN.findall(unicodedata.normalize("NFKC", query))
    if total < LARGE_LIBRARY_CHUNKS or len(words) < 2:
        return query
    held = store.chunks_holding(word for word in words if not _is_cjk(word[0]))
    kept = [word for word in words if held.get(word, 0) <= COMMON_SHARE * total]
    if not kept:  # every word is common: the rarest one still finds something
        kept = [min(words, key=lambda word: held.get(word, 0))]
    return " ".join(kept)


def _is_cjk(char: str) -> bool:
    return _CJK_CLASS.match(char) is not None


def search(
    store: LibraryStore, query: str, doc_id: str | None = None, limit: int = 10
) -> list[SearchHit]:
    """The best-matching chunks for ``query``, best first, with BM25 scores.

    Scores are positive; higher is better. ``doc_id`` restricts the search to
    one document.
    """
    expression = build_fts_query(_without_common_words(store, query))
    if not expression or limit <= 0:
        return []
    sql = "SELECT chunks_fts.rowid, -bm25(chunks_fts, 1.0, 0.5) AS score FROM chunks_fts "
    parameters: list[object] = []
    if doc_id is not None:
        sql += "JOIN chunks ON chunks.rowid = chunks_fts.rowid WHERE chunks.doc_id = ? AND "
        parameters.append(doc_id)
    else:
        sql += "WHERE "
    sql += "chunks_fts MATCH ?"
    parameters.append(expression)
    sql += " ORDER BY score DESC LIMIT ?"
    parameters.append(limit)
    rows = list(store.execute(sql, parameters))
    chunks = store.chunks_by_rowid(row[0] for row in rows)
    return [SearchHit(chunks[rowid], float(score)) for rowid, score in rows if rowid in chunks]
