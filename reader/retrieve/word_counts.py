"""How many chunks hold each word, remembered while a library's index is unchanged.

FTS5 keeps no count of the chunks holding a word: ``chunks_vocab`` walks the
word's whole list of postings, about 0.09 µs for every chunk that holds it, so
"the" costs 90 ms in a library of a million chunks, and questions ask about
the same common words again and again. The counts are kept per library file,
not per connection, because the window opens a connection for each question,
and forgotten as soon as a chunk is indexed or removed.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Iterable
from pathlib import Path

from reader.store.database import LibraryStore
from reader.store.search_index import rarity

# Enough for a long session's questions; a library past it starts afresh.
MAX_WORDS_PER_LIBRARY = 50_000
MAX_LIBRARIES = 4

_lock = threading.Lock()
# library file -> (index signature when counted, lower-case word -> chunks holding it)
_counts: OrderedDict[Path, tuple[tuple[bytes, int], dict[str, int]]] = OrderedDict()


def chunks_holding(store: LibraryStore, words: Iterable[str]) -> dict[str, int]:
    """How many chunks hold each word (by the index's Porter stem, as
    ``LibraryStore.chunks_holding``), counting only words not counted before."""
    wanted = {word: word.lower() for word in words}
    signature = store.index_signature()
    with _lock:
        remembered = _counts.get(store.path)
        if remembered is None or remembered[0] != signature:
            remembered = (signature, {})
            _counts[store.path] = remembered
        _counts.move_to_end(store.path)
        while len(_counts) > MAX_LIBRARIES:
            _counts.popitem(last=False)
        known = remembered[1]
        missing = {key for key in wanted.values() if key not in known}
        found = {key: known[key] for key in wanted.values() if key in known}
    if missing:
        counted = store.chunks_holding(missing)
        found.update(counted)
        with _lock:
            if len(known) + len(counted) > MAX_WORDS_PER_LIBRARY:
                known.clear()
            known.update(counted)
    return {word: found[key] for word, key in wanted.items()}


def term_rarity(store: LibraryStore, words: Iterable[str]) -> dict[str, float]:
    """How rare each word is over all chunks (BM25's idf, as ``LibraryStore.term_rarity``),
    from the remembered counts."""
    total = store.indexed_chunks()
    return {word: rarity(found, total) for word, found in chunks_holding(store, words).items()}


def forget_counts() -> None:
    """Forget every library's counts."""
    with _lock:
        _counts.clear()
