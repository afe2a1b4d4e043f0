"""Verifier throughput and correctness against a naive verifier, same cases, same run.

    python bench/verify.py [--corpus ../shared/corpus] [--cases 2000]

Cases come from real corpus documents: a stretch of each document's canonical
text (the truth: its exact offsets) quoted with the damage a model or a copy
and paste does (line breaks and runs of spaces, curly or straight quotes,
case), plus the same stretch with one number changed, which must not verify.

The naive verifier lower-cases the document and collapses whitespace once,
then finds the quote (normalised the same way) and takes the found index as
the offset: what "find in normalised text" gives, and wrong wherever
whitespace was collapsed before the quote. Both sides prepare each document
once (reported separately); the throughput covers verifying the quotes.
"""

from __future__ import annotations

import argparse
import random
import re
import time
from pathlib import Path

from reader.ingest import read_document
from reader.records import Document
from reader.verify import DocumentVerifier

DOCUMENTS = [
    "pdf/pdfjs-freeculture-352p.pdf",
    "pdf/gitenberg-pride-and-prejudice-pandp12p-latex-273p.pdf",
    "pdf/pdfjs-tracemonkey-twocolumn-ligatures.pdf",
    "pdf/pymupdf-test_3842-nist-sp-800-223.pdf",
    "text/rfc2616-http11-verbatim-paginated.txt",
]
_SPACES = re.compile(r"\s+")


class NaiveVerifier:
    def __init__(self, document: Document) -> None:
        self.key = _SPACES.sub(" ", document.text.lower())

    def verify(self, quote: str) -> tuple[int, int] | None:
        needle = _SPACES.sub(" ", quote.lower()).strip()
        index = self.key.find(needle)
        return None if index < 0 else (index, index + len(needle))


def damage(text: str, rng: random.Random) -> str:
    text = _SPACES.sub(lambda m: rng.choice([" ", "\n", "  ", " \n"]), text)
    text = text.translate(str.maketrans({"\u201c": '"', "\u201d": '"', "\u2019": "'"}))
    return text.upper() if rng.random() < 0.3 else text


def make_cases(document: Document, count: int, rng: random.Random) -> list[tuple[str, object]]:
    cases: list[tuple[str, object]] = []
    text = document.text
    naive_key = NaiveVerifier(document).key
    while len(cases) < count:
        start = rng.randrange(0, max(1, len(text) - 200))
        start = text.find(" ", start) + 1
        length = rng.randrange(30, 160)
        end = text.rfind(" ", start, start + length)
        if end <= start or not text[start:end].strip():
            continue
        while text[start].isspace():
            start += 1
        while text[end - 1].isspace():
            end -= 1
        quote = text[start:end]
        if naive_key.count(_SPACES.sub(" ", quote.lower())) != 1:
            continue  # a stretch that occurs twice has no single true position
        cases.append((damage(quote, rng), (start, end)))
        digits = re.search(r"\d", quote)
        if digits:
            changed = (
                quote[: digits.start()]
                + str((int(digits.group()) + 3) % 10)
                + quote[digits.end() :]
            )
            if changed.lower() not in text.lower():
                cases.append((damage(changed, rng), None))
    return cases


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    default_corpus = Path(__file__).resolve().parents[1].parent / "shared" / "corpus"
    parser.add_argument("--corpus", type=Path, default=default_corpus)
    parser.add_argument("--cases", type=int, default=2000, help="cases per document")
    args = parser.parse_args()
    rng = random.Random(2026)

    # label -> [seconds, right, cases], over all cases and over present quotes only
    totals = {"reader": [0.0, 0, 0], "naive": [0.0, 0, 0]}
    present = {"reader": [0.0, 0, 0], "naive": [0.0, 0, 0]}
    for name in DOCUMENTS:
        document, chunks = read_document(args.corpus / name)
        cases = make_cases(document, args.cases, rng)
        start = time.perf_counter()
        ours = DocumentVerifier(document, chunks)
        ours.prepare()
        prepare_ours = time.perf_counter() - start
        start = time.perf_counter()
        naive = NaiveVerifier(document)
        prepare_naive = time.perf_counter() - start
        print(
            f"{Path(name).name[:50]:50s} preparing the document: reader {prepare_ours:.3f} s, "
            f"naive {prepare_naive:.3f} s"
        )
        for label, check in (
            ("naive", naive.verify),
            ("reader", lambda q, v=ours: _span(v.verify(q))),
        ):
            answers = []
            seconds = seconds_present = 0.0
            for quote, truth in cases:
                start = time.perf_counter()
                answers.append(check(quote))
                elapsed = time.perf_counter() - start
                seconds += elapsed
                if truth is not None:
                    seconds_present += elapsed
            right = sum(
                1 for (_, truth), answer in zip(cases, answers, strict=True) if answer == truth
            )
            right_present = sum(
                1
                for (_, truth), answer in zip(cases, answers, strict=True)
                if truth is not None and answer == truth
            )
            totals[label][0] += seconds
            totals[label][1] += right
            totals[label][2] += len(cases)
            present[label][0] += seconds_present
            present[label][1] += right_present
            present[label][2] += sum(1 for _, truth in cases if truth is not None)
            print(
                f"{Path(name).name[:50]:50s} {label:6s} {len(cases) / seconds:9.0f} quotes/s  "
                f"right {right}/{len(cases)}"
            )
    for title, table in (("all quotes", totals), ("quotes that are there", present)):
        reader_rate = table["reader"][2] / table["reader"][0]
        naive_rate = table["naive"][2] / table["naive"][0]
        print(
            f"\n{title}: reader {reader_rate:.0f} quotes/s, right "
            f"{table['reader'][1]}/{table['reader'][2]}; naive {naive_rate:.0f} quotes/s, right "
            f"{table['naive'][1]}/{table['naive'][2]}; throughput reader/naive "
            f"{reader_rate / naive_rate:.2f}x"
        )


def _span(result: object) -> tuple[int, int] | None:
    start, end = result.start, result.end  # type: ignore[attr-defined]
    return None if start is None else (start, end)


if __name__ == "__main__":
    main()
