"""Reading order on the corpus's multi-column PDFs: sentences kept whole, before and after.

For each page, every column is extracted on its own (PyMuPDF with a clip
rectangle per column; the column boundaries below were read off the pages),
the columns' texts are joined left to right, split into sentences, and each
prose sentence (eight words or more, nearly all words: not figure labels or
formulas) is looked for in the page's canonical text, normalised as the
verifier normalises. A sentence found there is contiguous: no text of another
column, and no footnote, cuts it, including sentences that run from the foot
of one column to the top of the next. "Before" is the page text in the order
the PDF draws its blocks; "after" is reader's reading order. Lines that span
the columns (titles, running heads) are cut by the clips, so their sentences
are missed both before and after.

    python bench/reading_order.py
"""

from __future__ import annotations

import itertools
import sys
import time
from pathlib import Path

import pymupdf

from reader.ingest.layout import EXTRACTION_FLAGS, _assemble, page_blocks
from reader.text.normalize import normalize_key
from reader.text.sentences import sentence_spans

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus" / "pdf"
# Column boundaries (x, in displayed page coordinates), read off the pages.
DOCUMENTS = {
    "pdfjs-tracemonkey-twocolumn-ligatures.pdf": [306.0],
    "pdfminer-issue-1061-ieee-twocolumn-ligatures.pdf": [297.0],
    "pdfplumber-federal-register-2020-17221-threecolumn.pdf": [218.0, 395.0],
    "pymupdf-test_4435-acustica-twocolumn.pdf": [262.0],
    "gitenberg-pride-and-prejudice-pandp12p2-2up-rotated.pdf": [392.0],
}
MIN_WORDS = 8


def column_sentences(page: pymupdf.Page, boundaries: list[float]) -> list[str]:
    """The page's prose sentences read column by column (the columns' texts joined)."""
    edges = [page.rect.x0, *boundaries, page.rect.x1]
    columns = []
    for left, right in itertools.pairwise(edges):
        shown = pymupdf.Rect(left, page.rect.y0, right, page.rect.y1)
        clip = shown * page.derotation_matrix
        clip.normalize()
        columns.append(page.get_text("text", flags=EXTRACTION_FLAGS, clip=clip))
    text = "\n".join(columns)
    sentences = []
    for start, end in sentence_spans(text):
        sentence = text[start:end]
        if is_prose(sentence):
            sentences.append(normalize_key(sentence))
    return sentences


def is_prose(sentence: str) -> bool:
    """Eight words or more, nearly all of them words (not figure labels or formulas)."""
    tokens = sentence.split()
    words = [t for t in tokens if sum(c.isalpha() for c in t) >= max(2, len(t) * 0.6)]
    return len(tokens) >= MIN_WORDS and len(words) >= 0.8 * len(tokens)


def measure(path: Path, boundaries: list[float]) -> dict[str, float]:
    found = {"before": 0, "after": 0}
    total = 0
    with pymupdf.open(path) as document:
        for page in document:
            sentences = column_sentences(page, boundaries)
            if not sentences:
                continue
            texts = {
                "before": normalize_key(_assemble(b.lines for b in page_blocks(page, False))),
                "after": normalize_key(_assemble(b.lines for b in page_blocks(page))),
            }
            total += len(sentences)
            for name, text in texts.items():
                found[name] += sum(1 for sentence in sentences if sentence in text)
    return {
        "sentences": total,
        "before": found["before"] / total if total else 0.0,
        "after": found["after"] / total if total else 0.0,
    }


def main() -> int:
    if not CORPUS.is_dir():
        print(f"no corpus at {CORPUS}", file=sys.stderr)
        return 1
    print(f"{'document':58} {'sentences':>9} {'before':>7} {'after':>7}")
    started = time.perf_counter()
    for name, boundaries in DOCUMENTS.items():
        figures = measure(CORPUS / name, boundaries)
        before, after = figures["before"], figures["after"]
        print(f"{name:58} {figures['sentences']:9.0f} {before:7.1%} {after:7.1%}")
    print(f"({time.perf_counter() - started:.1f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
