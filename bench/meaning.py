"""Sentence-model throughput: sentences embedded in batches of like length against
one batch of all of them (padded to the longest), same sentences, same run.

    python bench/meaning.py [--corpus ../shared/corpus] [--sentences 200]

The sentences are real evidence-sized sentences of a corpus book. Each side
starts with nothing remembered; the model is loaded once before timing.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from reader.ingest import read_document
from reader.retrieve import meaning
from reader.retrieve.meaning import SentenceEmbedder
from reader.text.sentences import sentence_spans

BOOK = "pdf/pdfjs-freeculture-352p.pdf"


def _sentences(corpus: Path, count: int) -> list[str]:
    document, _ = read_document(corpus / BOOK)
    text = document.text
    spans = sentence_spans(text)
    chosen = [text[a:b] for a, b in spans if 25 <= b - a <= 420]
    # Spread through the book, in reading order (as candidates arrive: mixed lengths).
    step = max(1, len(chosen) // count)
    return chosen[::step][:count]


def _seconds(embedder: SentenceEmbedder, sentences: list[str]) -> float:
    embedder._remembered.clear()
    started = time.perf_counter()
    embedder.embed(sentences)
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=Path("../shared/corpus"))
    parser.add_argument("--sentences", type=int, default=200)
    args = parser.parse_args()
    sentences = _sentences(args.corpus, args.sentences)
    embedder = SentenceEmbedder()
    embedder.embed(["load the model"])
    batch = meaning.BATCH
    for size in (12, 50, len(sentences)):
        part = sentences[:size]
        meaning.BATCH = len(part)  # one batch of all: the baseline
        whole = _seconds(embedder, part)
        meaning.BATCH = batch
        batched = _seconds(embedder, part)
        print(
            f"{size:4d} sentences: one batch {1000 * whole / size:6.2f} ms each, "
            f"batches of {batch} by length {1000 * batched / size:6.2f} ms each, "
            f"ratio {whole / batched:5.2f}x"
        )


if __name__ == "__main__":
    main()
