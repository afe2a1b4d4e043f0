"""A large synthetic library against a one-document library, same run.

    python bench/library.py [--chunks 300000] [--corpus ../shared/corpus] [--fts-sample 0]
                            [--search-only]

The large library is built from the corpus texts (the plain-text files and the
canonical text of a few long PDFs), varied so that no two documents are alike:
each document takes a source's paragraphs in its own shuffled order, with its
own reference token in every paragraph. About a fifth of the chunks form one
very large document (as a library holding one huge text file does). Documents
go straight into the store, chunked by reader's chunker; no PDF is extracted
for the bulk. The library is built once per size and per version of the code
that decides what is stored, and kept under ``~/.cache/reader-bench/``; how long
the build took is kept beside it.

Printed, each against the one-document library measured in the same run:
ingest rate (chunks/s, MB/s), full-text index size (and per MB of text),
search p50/p99 in-process, ``reader ask --library --no-model`` time and peak
memory (max RSS of the child process), and the same question answered
in-process (the window's "Whole library" scope). Then, on the large library,
search as it runs (narrowed past reader's scoring budget) against the exact
search (every chunk holding a word of the query ranked): p50/p99 of each, and
how often the top 10 is the same. ``--search-only`` measures that comparison
alone. ``--fts-sample N`` also compares FTS5 settings on the first N chunks
(size, build time, search p50).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import re
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

from reader.answer import Answerer
from reader.ingest import read_document
from reader.ingest.chunking import chunk_text
from reader.library import Library
from reader.records import Document
from reader.retrieve import build_fts_query, search
from reader.retrieve.search import SCORING_BUDGET
from reader.retrieve.word_counts import forget_counts
from reader.store import LibraryStore

ROOT = Path(__file__).resolve().parents[1]
CACHE = Path.home() / ".cache" / "reader-bench"
PDFS = [
    "pdfjs-freeculture-352p.pdf",
    "pymupdf-mupdf_explored-285p.pdf",
    "pymupdf-test-3820-who-hcv-155p.pdf",
    "gitenberg-pride-and-prejudice-pandp12p-latex-273p.pdf",
]
# What the stored chunks and their search form are made by: a change here (or to
# the generator, GENERATOR) means a new cached library. Schema changes do not: the
# cached library is migrated on open, as a user's would be.
STORED_FORM = [
    "reader/ingest/chunking.py",
    "reader/text/normalize.py",
    "reader/text/reading_view.py",
    "reader/text/words.py",
]
GENERATOR = "1"
QUESTIONS = [
    "What is a permission culture?",
    "How did Mr. Darcy propose to Elizabeth?",
    "What does the HTTP 304 Not Modified status mean?",
    "How is hepatitis C treated?",
]
BIG_SHARE = 0.2  # of the chunks, in one document
_PARAGRAPH = re.compile(r"\n[ \t]*\n\s*")


def code_version() -> str:
    digest = hashlib.sha256(GENERATOR.encode())
    for name in STORED_FORM:
        digest.update((ROOT / name).read_bytes())
    return digest.hexdigest()[:12]


def source_paragraphs(corpus: Path) -> list[list[str]]:
    """Each source's paragraphs (canonical text), the PDFs' extracted once and cached."""
    CACHE.mkdir(parents=True, exist_ok=True)
    texts = []
    for path in sorted((corpus / "text").glob("*.txt")):
        texts.append(read_document(path)[0].text)
    for name in PDFS:
        cached = CACHE / f"{name}.txt"
        if not cached.exists():
            cached.write_text(read_document(corpus / "pdf" / name)[0].text, encoding="utf-8")
        texts.append(cached.read_text(encoding="utf-8"))
    return [[p for p in _PARAGRAPH.split(text) if len(p.strip()) >= 40] for text in texts]


def synthetic_text(sources: list[list[str]], number: int, chars: int) -> str:
    """About ``chars`` characters: one source's paragraphs shuffled, each carrying the
    document's own reference token (and repeated from the start when it runs out)."""
    rng = random.Random(number)
    paragraphs = list(rng.choice(sources))
    rng.shuffle(paragraphs)
    tag = f"ref{number:05d}"
    pieces: list[str] = []
    size = 0
    index = 0
    while size < chars:
        paragraph = f"{paragraphs[index % len(paragraphs)]} ({tag}.{index // len(paragraphs)})"
        pieces.append(paragraph)
        size += len(paragraph) + 2
        index += 1
    return "\n\n".join(pieces)


def synthetic_documents(sources: list[list[str]], chunks: int) -> Iterator[Document]:
    """Documents until about ``chunks`` chunks: one large, the rest 100 to 3,000 chunks."""
    average = 820  # characters per chunk, as the chunker cuts this prose
    sizes = [int(chunks * BIG_SHARE) * average]
    rng = random.Random(chunks)
    remaining = chunks * average - sizes[0]
    while remaining > 0:
        size = min(remaining, rng.randint(100, 3000) * average)
        sizes.append(size)
        remaining -= size
    for number, size in enumerate(sizes):
        text = synthetic_text(sources, number, size)
        yield Document(
            id=f"bench{number:05d}",
            title=f"Synthetic document {number}",
            path=f"/bench/document-{number}.txt",
            kind="text",
            text=text,
            page_starts=list(range(0, len(text), 3000)),
            extractor="bench",
        )


def add(store: LibraryStore, document: Document) -> tuple[int, int]:
    chunks = chunk_text(document.id, document.text, document.page_starts, [])
    store.add_document(document, chunks)
    return len(chunks), len(document.text.encode())


def build(path: Path, sources: list[list[str]], chunks: int) -> dict[str, float]:
    started = time.perf_counter()
    total_chunks = total_bytes = documents = 0
    with LibraryStore(path) as store:
        for document in synthetic_documents(sources, chunks):
            made, size = add(store, document)
            total_chunks += made
            total_bytes += size
            documents += 1
            print(f"\r  built {total_chunks:,} chunks", end="", file=sys.stderr, flush=True)
        print(file=sys.stderr)
        # After a bulk ingest, one merged index: searches take about half the time.
        with store.writing() as connection:
            connection.execute("INSERT INTO chunks_fts(chunks_fts) VALUES ('optimize')")
    return {
        "seconds": time.perf_counter() - started,
        "chunks": total_chunks,
        "bytes": total_bytes,
        "documents": documents,
    }


def large_library(sources: list[list[str]], chunks: int) -> tuple[Path, dict[str, float]]:
    folder = CACHE / f"library-{chunks}-{code_version()}"
    facts = folder / "build.json"
    if not facts.exists():
        shutil.rmtree(folder, ignore_errors=True)
        folder.mkdir(parents=True)
        print(f"building a library of {chunks:,} chunks in {folder} ...", file=sys.stderr)
        built = build(folder / "library.db", sources, chunks)
        facts.write_text(json.dumps(built))
    return folder, json.loads(facts.read_text())


def index_bytes(path: Path) -> int:
    with sqlite3.connect(path) as connection:
        row = connection.execute(
            "SELECT sum(pgsize) FROM dbstat WHERE name LIKE 'chunks_fts%'"
        ).fetchone()
    return int(row[0] or 0)


def search_queries(sources: list[list[str]], count: int = 60) -> list[str]:
    rng = random.Random(7)
    queries = list(QUESTIONS)
    while len(queries) < count:
        words = re.findall(r"[A-Za-z]{4,}", rng.choice(rng.choice(sources)))
        if len(words) >= 5:
            start = rng.randrange(len(words) - 4)
            queries.append(" ".join(words[start : start + rng.randint(2, 5)]))
    return queries


def search_times(path: Path, queries: list[str]) -> list[float]:
    with LibraryStore(path) as store:
        for query in queries[:5]:
            search(store, query)  # warm the cache
        times = []
        for query in queries:
            started = time.perf_counter()
            search(store, query, limit=10)
            times.append(time.perf_counter() - started)
    return times


def compare_with_exact(path: Path, queries: list[str]) -> None:
    """Search as it runs against the exact search, query by query, same run."""
    times: dict[str, list[float]] = {"narrowed": [], "exact": []}
    overlaps: list[float] = []
    tied: list[float] = []
    misses: list[str] = []
    forget_counts()  # as in a fresh process: only the warming queries' words are counted
    with LibraryStore(path) as store:
        for query in queries[:5]:  # warm the cache
            search(store, query)
            search(store, query, scoring_budget=None)
        for number, query in enumerate(queries):
            runs = [("narrowed", SCORING_BUDGET), ("exact", None)]
            if number % 2:  # each goes first half the time: the first counts the words
                runs.reverse()
            hits = {}
            for name, budget in runs:
                started = time.perf_counter()
                hits[name] = search(store, query, limit=10, scoring_budget=budget)
                times[name].append(time.perf_counter() - started)
            exact = [hit.chunk.id for hit in hits["exact"]]
            narrowed = [hit.chunk.id for hit in hits["narrowed"]]
            overlaps.append(len(set(exact) & set(narrowed)) / max(1, len(exact)))
            # Scores are exact either way; a chunk scoring as high as the exact
            # tenth is an equally good answer (one paragraph is in many chunks).
            tenth = hits["exact"][-1].score if exact else 0.0
            tied.append(sum(hit.score >= tenth for hit in hits["narrowed"]) / max(1, len(exact)))
            if overlaps[-1] < 1:
                missed = [
                    f"{hit.score:.3f}" for hit in hits["exact"] if hit.chunk.id not in narrowed
                ]
                instead = [
                    f"{hit.score:.3f}" for hit in hits["narrowed"] if hit.chunk.id not in exact
                ]
                misses.append(
                    f"{query!r}: left out {', '.join(missed)}; in their place {', '.join(instead)}"
                )
    print(f"\nsearch on the large library, {len(queries)} queries, both in each run:")
    for name in ("narrowed", "exact"):
        print(
            f"  {name:9} p50 {statistics.median(times[name]) * 1000:7.1f} ms  "
            f"p99 {percentile(times[name], 0.99) * 1000:7.1f} ms"
        )
    ratio = [n / e for n, e in zip(times["narrowed"], times["exact"], strict=True)]
    print(f"  narrowed/exact time per query: median {statistics.median(ratio):.2f}")
    print(
        f"  top-10 overlap with exact: mean {statistics.mean(overlaps):.3f}, identical in "
        f"{sum(share == 1 for share in overlaps) / len(overlaps):.0%} of queries; counting "
        f"ties with the exact tenth as found, mean {statistics.mean(tied):.3f}"
    )
    for miss in misses:
        print(f"  differs: {miss}")


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


# Run by a small interpreter of its own: on Linux a child's peak memory starts at
# its parent's at fork, so measured from this (large) process it would be this one's.
_MEASURED = """
import os, subprocess, sys, time
started = time.perf_counter()
child = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL)
_, status, usage = os.wait4(child.pid, 0)
print(time.perf_counter() - started, usage.ru_maxrss * 1024, status)
"""


def ask_child(home: Path, question: str) -> tuple[float, int]:
    """Seconds and peak memory (bytes) of ``reader ask --library --no-model``."""
    env = {**os.environ, "READER_HOME": str(home)}
    command = [sys.executable, "-m", "reader.cli", "ask", "--library", question, "--no-model"]
    result = subprocess.run(
        [sys.executable, "-c", _MEASURED, *command], env=env, capture_output=True, text=True
    )
    seconds, peak, status = result.stdout.split()
    if int(status) != 0:
        raise SystemExit(f"reader ask failed: {result.stderr}")
    return float(seconds), int(peak)


def ask_in_process(path: Path, questions: list[str]) -> list[float]:
    times = []
    with Library(path) as library:
        answerer = Answerer(library, None, record=False)
        answerer.ask(questions[0])  # warm
        for question in questions:
            started = time.perf_counter()
            answerer.ask(question)
            times.append(time.perf_counter() - started)
    return times


def measure(home: Path, queries: list[str]) -> dict[str, float]:
    path = home / "library.db"
    searches = search_times(path, queries)
    asks = [ask_child(home, question) for question in QUESTIONS]
    in_process = ask_in_process(path, QUESTIONS)
    return {
        "index": index_bytes(path),
        "search_p50": statistics.median(searches),
        "search_p99": percentile(searches, 0.99),
        "ask_seconds": statistics.median(seconds for seconds, _ in asks),
        "ask_rss": max(rss for _, rss in asks),
        "ask_in_process": statistics.median(in_process),
    }


FTS_VARIANTS = {
    "detail=full (now)": "",
    "detail=column": ", detail=column",
    "detail=none": ", detail=none",
    "prefix='2 3'": ", prefix='2 3'",
}


def fts_settings(path: Path, sample: int, queries: list[str]) -> None:
    """FTS5 settings compared on the first ``sample`` chunks of the large library."""
    with sqlite3.connect(path) as source:
        rows = source.execute(
            "SELECT rowid, text, heading FROM chunks_fts WHERE rowid <= ?", [sample]
        ).fetchall()
    megabytes = sum(len(text.encode()) for _, text, _ in rows) / 1e6
    expressions = [build_fts_query(query) for query in queries]
    print(f"\nFTS5 settings on {len(rows):,} chunks ({megabytes:.0f} MB of text):")
    for name, options in [*FTS_VARIANTS.items(), ("full, then optimize", "optimize")]:
        with tempfile.TemporaryDirectory() as folder:
            connection = sqlite3.connect(Path(folder) / "fts.db")
            extra = "" if options == "optimize" else options
            connection.execute(
                "CREATE VIRTUAL TABLE chunks_fts USING fts5(text, heading, "
                f"tokenize = 'porter unicode61 remove_diacritics 2'{extra})"
            )
            started = time.perf_counter()
            with connection:
                connection.executemany(
                    "INSERT INTO chunks_fts (rowid, text, heading) VALUES (?, ?, ?)", rows
                )
            if options == "optimize":
                with connection:
                    connection.execute("INSERT INTO chunks_fts(chunks_fts) VALUES ('optimize')")
            seconds = time.perf_counter() - started
            size = connection.execute(
                "SELECT sum(pgsize) FROM dbstat WHERE name LIKE 'chunks_fts%'"
            ).fetchone()[0]
            times = []
            for expression in expressions:
                began = time.perf_counter()
                try:
                    connection.execute(
                        "SELECT rowid FROM chunks_fts WHERE chunks_fts MATCH ? "
                        "ORDER BY bm25(chunks_fts, 1.0, 0.5) LIMIT 10",
                        [expression],
                    ).fetchall()
                except sqlite3.OperationalError as error:
                    times = []
                    note = f"queries fail: {error}"
                    break
                times.append(time.perf_counter() - began)
            else:
                note = f"search p50 {statistics.median(times) * 1000:.1f} ms"
            connection.close()
        print(
            f"  {name:22} index {size / 1e6:7.1f} MB ({size / 1e6 / megabytes:.2f} MB per MB), "
            f"built in {seconds:5.1f} s, {note}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--chunks", type=int, default=300_000)
    parser.add_argument("--corpus", type=Path, default=ROOT.parent / "shared" / "corpus")
    parser.add_argument("--fts-sample", type=int, default=0)
    parser.add_argument("--search-only", action="store_true")
    arguments = parser.parse_args()

    sources = source_paragraphs(arguments.corpus)
    folder, built = large_library(sources, arguments.chunks)
    queries = search_queries(sources)
    print(
        f"large library: {built['chunks']:,.0f} chunks in {built['documents']:,.0f} documents, "
        f"{built['bytes'] / 1e6:,.0f} MB of text; built in {built['seconds']:.0f} s "
        f"(cached in {folder})"
    )
    if arguments.search_only:
        compare_with_exact(folder / "library.db", queries)
        return

    with tempfile.TemporaryDirectory() as small:
        home = Path(small)
        one = next(synthetic_documents(sources, 5000))  # the large document of a small library
        started = time.perf_counter()
        with LibraryStore(home / "library.db") as store:
            one_chunks, one_bytes = add(store, one)
        one_seconds = time.perf_counter() - started
        baseline = measure(home, queries)
    large = measure(folder, queries)

    rate = built["chunks"] / built["seconds"], built["bytes"] / 1e6 / built["seconds"]
    base_rate = one_chunks / one_seconds, one_bytes / 1e6 / one_seconds
    text_mb = built["bytes"] / 1e6
    rows = [
        ("ingest chunks/s", f"{rate[0]:,.0f}", f"{base_rate[0]:,.0f}", rate[0] / base_rate[0]),
        ("ingest MB/s", f"{rate[1]:.2f}", f"{base_rate[1]:.2f}", rate[1] / base_rate[1]),
        (
            "index MB (per MB of text)",
            f"{large['index'] / 1e6:,.0f} ({large['index'] / 1e6 / text_mb:.2f})",
            f"{baseline['index'] / 1e6:.1f} ({baseline['index'] / one_bytes:.2f})",
            (large["index"] / text_mb) / (baseline["index"] / (one_bytes / 1e6)),
        ),
    ]
    for key, label, scale, unit in [
        ("search_p50", "search p50", 1000, "ms"),
        ("search_p99", "search p99", 1000, "ms"),
        ("ask_seconds", "ask --library --no-model", 1, "s"),
        ("ask_rss", "ask peak memory", 1e-6, "MB"),
        ("ask_in_process", "whole-library ask in-process", 1000, "ms"),
    ]:
        rows.append(
            (
                label,
                f"{large[key] * scale:,.1f} {unit}",
                f"{baseline[key] * scale:,.1f} {unit}",
                large[key] / baseline[key],
            )
        )
    print(f"one-document baseline: {one_chunks:,} chunks, {one_bytes / 1e6:.1f} MB of text")
    print(f"{'':32} {'large':>18} {'one document':>18} {'ratio':>7}")
    for label, big, small_value, ratio in rows:
        print(f"{label:32} {big:>18} {small_value:>18} {ratio:7.2f}")
    compare_with_exact(folder / "library.db", queries)
    if arguments.fts_sample:
        fts_settings(folder / "library.db", arguments.fts_sample, queries)


if __name__ == "__main__":
    main()
