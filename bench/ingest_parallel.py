"""Folder ingest throughput (pages per second) with several workers against one.

    python bench/ingest_parallel.py [--corpus ../shared/corpus/pdf] [--workers 2] [--repeat 2]
        [--ocr never]

Each run is ``reader ingest FOLDER`` as the command does it (walk, hash, extract,
store, index) into a fresh library; with one worker files are read in this
process, with more in worker processes (their start-up is timed too). Runs
alternate between the two settings so machine noise hits both alike; each takes
the best of ``--repeat``. Prints pages/s for each and their ratio.

Scanned pages are read by OCR as ``reader ingest`` reads them (``--ocr auto``),
each worker running its share of the cores' Tesseracts; ``--ocr never`` measures
text layers alone.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from reader.ingest.ocr import OcrSettings
from reader.library import Library
from reader.library.batch import ingest_paths


def run_once(corpus: Path, workers: int, ocr: OcrSettings) -> tuple[float, int, int]:
    """Seconds, pages and documents of one ingest of ``corpus`` into a new library."""
    with tempfile.TemporaryDirectory() as tmp, Library(Path(tmp) / "bench.db") as library:
        start = time.perf_counter()
        report = ingest_paths(library, [corpus], workers=workers, ocr=ocr)
        seconds = time.perf_counter() - start
    return seconds, report.pages, report.count("added")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    default_corpus = Path(__file__).resolve().parents[1].parent / "shared" / "corpus" / "pdf"
    parser.add_argument("--corpus", type=Path, default=default_corpus)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--ocr", choices=("auto", "never"), default="auto")
    args = parser.parse_args()
    ocr = OcrSettings(mode=args.ocr)

    best: dict[int, float] = {}
    pages = documents = 0
    for _ in range(args.repeat):
        for workers in (1, args.workers):
            seconds, pages, documents = run_once(args.corpus, workers, ocr)
            best[workers] = min(best.get(workers, float("inf")), seconds)
            print(f"workers {workers}: {seconds:.2f} s, {pages / seconds:.1f} pages/s")
    serial, parallel = pages / best[1], pages / best[args.workers]
    print(f"\n{documents} documents, {pages} pages from {args.corpus}")
    print(f"1 worker:  {serial:.1f} pages/s (best of {args.repeat})")
    print(f"{args.workers} workers: {parallel:.1f} pages/s (best of {args.repeat})")
    print(f"ratio: {parallel / serial:.2f}x")


if __name__ == "__main__":
    main()
