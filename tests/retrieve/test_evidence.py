"""Evidence never says the same sentence twice."""

from __future__ import annotations

from collections import Counter

from reader.answer import Answerer
from reader.ingest.chunking import sentence_spans
from reader.readingtext import readable
from reader.retrieve.evidence import choose_evidence
from reader.textnorm import normalize_key

FILLER = " ".join(
    f"Ledger entry {n} notes the tides, the cargo and the weather of the week." for n in range(14)
)
# Two sentences about the question, each a good candidate alone and as a pair
# with its neighbour.
ABOUT = (
    "A permission culture is one where creators need the permission of the powerful. "
    "In a permission culture, every new work needs a lawyer's call first. "
    "A free culture leaves creators free to build on the past without asking."
)
BOOK = f"{ABOUT}\n\n{FILLER}\n\n{ABOUT}\n\n{FILLER}\n\nThe end of the permission essay."

QUESTION = "What is a permission culture?"


def sentence_keys(text: str) -> list[str]:
    return [normalize_key(text[start:end]) for start, end in sentence_spans(text)]


def test_no_sentence_is_shown_twice_across_chunks_and_copies(library, make_file):
    # The paragraph is in two chunks of one document, and in a second copy of it.
    first = library.ingest(make_file("essay.txt", BOOK.encode()))
    library.ingest(make_file("essay-copy.txt", (BOOK + "\n\nA copy.").encode()))
    assert first.chunks >= 3
    chunks = [hit.chunk for hit in library.search(QUESTION, limit=10)]
    assert len({chunk.doc_id for chunk in chunks}) == 2

    evidence = choose_evidence(QUESTION, chunks, library.store.term_rarity, limit=10)
    assert len(evidence) >= 2
    said = Counter(key for item in evidence for key in sentence_keys(item.text))
    assert said and max(said.values()) == 1, said
    # The pairs and single sentences chosen are each what their keys say.
    for item in evidence:
        assert list(item.sentences) == sentence_keys(item.text)


def test_passages_answer_repeats_no_sentence(library, make_file):
    library.ingest(make_file("essay.txt", BOOK.encode()))
    library.ingest(make_file("essay-copy.txt", (BOOK + "\n\nA copy.").encode()))
    answer = Answerer(library, None).ask(QUESTION)
    assert answer.claims
    said = Counter(key for claim in answer.claims for key in sentence_keys(claim.claim.quote))
    assert max(said.values()) == 1, said
    assert all(claim.verified for claim in answer.claims)
    assert any("permission" in readable(claim.claim.quote) for claim in answer.claims)
