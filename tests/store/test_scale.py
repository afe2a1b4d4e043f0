"""What a question reads from a large library: counts without counting, chunks by position."""

from __future__ import annotations

import math

from reader.records import Chunk, Document
from reader.store import LibraryStore


def add_document(store: LibraryStore, number: int, paragraphs: int) -> str:
    """A document of one short chunk per paragraph: many rows from little text."""
    doc_id = f"doc{number}"
    pieces = [
        f"Paragraph {n} of document {number} keeps the harbour ledger{n % 7}."
        for n in range(paragraphs)
    ]
    text = "\n\n".join(pieces)
    chunks = []
    start = 0
    for seq, piece in enumerate(pieces):
        chunks.append(Chunk(f"{doc_id}-{seq}", doc_id, seq, start, start + len(piece), piece))
        start += len(piece) + 2
    document = Document(doc_id, f"Document {number}", f"/{doc_id}.txt", "text", text, [0], "t")
    store.add_document(document, chunks)
    return doc_id


def counted(store: LibraryStore) -> int:
    return int(store.db.execute("SELECT count(*) FROM chunks").fetchone()[0])


def test_indexed_chunks_is_the_count_through_adds_removals_and_rebuilds(tmp_path):
    with LibraryStore(tmp_path / "library.db") as store:
        assert store.indexed_chunks() == 0
        first = add_document(store, 1, 40)
        assert store.indexed_chunks() == counted(store) > 0
        for number in range(2, 8):
            add_document(store, number, 3000)  # past 16,383 rows: a three-byte varint
        assert store.indexed_chunks() == counted(store) > 16_383
        store.remove_document(first)
        assert store.indexed_chunks() == counted(store)
        store.rebuild_index()
        assert store.indexed_chunks() == counted(store)


def test_term_rarity_is_bm25_idf_over_all_chunks(tmp_path):
    with LibraryStore(tmp_path / "library.db") as store:
        add_document(store, 1, 300)
        total = counted(store)
        holding = int(
            store.db.execute("SELECT count(*) FROM chunks WHERE text LIKE '%ledger3.%'").fetchone()[
                0
            ]
        )
        rarity = store.term_rarity(["ledger3", "nowhere"])
        assert 0 < holding < total
        assert math.isclose(
            rarity["ledger3"], math.log(1 + (total - holding + 0.5) / (holding + 0.5))
        )
        assert math.isclose(rarity["nowhere"], math.log(1 + (total + 0.5) / 0.5))


def test_chunks_between_reads_a_window_by_position(tmp_path):
    with LibraryStore(tmp_path / "library.db") as store:
        doc_id = add_document(store, 1, 200)
        add_document(store, 2, 200)
        everything = store.chunks(doc_id)
        window = store.chunks_between(doc_id, 5, 9)
        assert window == everything[5:10]
        assert (
            store.chunks_between(doc_id, len(everything) - 2, len(everything) + 5)
            == (everything[-2:])
        )
        assert store.page_map(doc_id).starts == (0,)
