"""The library's word rarity: BM25's idf, as the store counts it, remembered between questions."""

import math

from reader.retrieve.word_counts import forget_counts

TEXT = (
    "Harbour records\n\nThe harbour froze in the winter of 1709. The harbour master kept a "
    "ledger of every ship.\n\nThe orchard was planted in 1712. Apples grew there for decades."
)


def test_the_library_rarity_is_the_stores_and_is_counted_once(library, make_file, monkeypatch):
    library.ingest(make_file("harbour.txt", TEXT.encode()))
    forget_counts()
    words = ["harbour", "orchard", "nowhere"]
    expected = library.store.term_rarity(words)
    asked: list[set[str]] = []
    counted = library.store.chunks_holding

    def counting(wanted):
        asked.append(set(wanted))
        return counted(wanted)

    monkeypatch.setattr(library.store, "chunks_holding", counting)
    first = library.term_rarity(words)
    second = library.term_rarity(words)
    assert first.keys() == second.keys() == expected.keys()
    assert all(math.isclose(first[w], expected[w]) and first[w] == second[w] for w in words)
    assert asked == [set(words)]  # the second question's words were remembered
