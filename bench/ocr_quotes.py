"""Quotes from the printed page against the same page read by OCR: how many verify.

A few pages of real text PDFs from the corpus are rendered to images (at 300
and 150 dpi, and at 100 dpi for a poor scan) and saved as an image-only PDF,
which reader ingests with OCR. Sentences are then taken from the pages' own
text layer: the ground truth, what a person quoting the paper would write.
Each is verified against the OCR'd document, so every difference is the
OCR's. Printed per dpi:

- positives: exact / fuzzy / miss, and how many landed on another page
  than the sentence's;
- negatives (each sentence with a number changed, a word replaced, two
  words swapped or a negation added), which must all be misses; one that
  verifies is listed. A changed number where OCR was uncertain of the
  number's word is fuzzy by design (the reason says so) and is counted
  apart;
- how often OCR misread a word, by its confidence (Tesseract's, 0 to 100),
  for words and for numbers: what the uncertainty threshold rests on.
  ``--confidence`` prints only that table, over more pages and down to a
  75 dpi scan, with the total over all of them.

"before" is the same verifier given the document without its OCR word
confidences, which is how a verifier without the OCR tolerance reads an OCR'd
page; "after" is the verifier as shipped. Both run on the same OCR output.

    python bench/ocr_quotes.py [--show]    (--show lists the positives that miss)
    python bench/ocr_quotes.py --confidence
"""

from __future__ import annotations

import random
import re
import sys
import tempfile
from collections import Counter
from dataclasses import dataclass, field, replace
from difflib import SequenceMatcher
from itertools import pairwise
from pathlib import Path

import pymupdf

from reader.ingest import read_document
from reader.ingest.ocr import OcrSettings
from reader.records import Chunk, Document, Verification
from reader.text.normalize import normalize_key
from reader.text.reading_view import readable, reading_view
from reader.verify import DocumentVerifier
from reader.verify.ocr import UNCERTAIN_BELOW

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT.parent / "shared" / "corpus" / "pdf"
# 1-based pages: prose with names and years, and a report's pages dense with figures.
PAGES = {
    "pdfjs-freeculture-352p.pdf": [36, 38, 46],
    "pymupdf-test-3820-who-hcv-155p.pdf": [30, 47, 48],
}
DPIS = (300, 150, 100)
CONFIDENCE_PAGES = {
    "pdfjs-freeculture-352p.pdf": [36, 37, 38, 46, 50, 56],
    "pymupdf-test-3820-who-hcv-155p.pdf": [29, 30, 31, 45, 47, 48, 54, 60],
}
CONFIDENCE_DPIS = (200, 150, 100, 75)
BANDS = (0, 30, 50, 60, 70, 80, 90, 101)
_SENTENCE_END = re.compile(r"(?<=[a-z0-9)”\"][.!?])\s+(?=[A-Z“\"(])")
_AUXILIARY = re.compile(r"\b(is|are|was|were|has|have|had|can|could|will|would|should|does|did)\b")
_DIGIT = re.compile(r"\d")


@dataclass
class Sentence:
    text: str
    page: int


@dataclass
class Tally:
    positives: Counter[str] = field(default_factory=Counter)
    wrong_page: int = 0
    negatives: Counter[str] = field(default_factory=Counter)
    passed_negatives: list[tuple[str, str, Verification]] = field(default_factory=list)
    uncertain_negatives: list[tuple[str, str, Verification]] = field(default_factory=list)
    missed: list[tuple[Sentence, Verification]] = field(default_factory=list)


def pages_as_pdf(folder: Path, chosen: dict[str, list[int]] = PAGES) -> Path:
    """The chosen pages of the corpus PDFs, text layer and all, as one PDF."""
    out = pymupdf.open()
    for name, pages in chosen.items():
        with pymupdf.open(CORPUS / name) as source:
            for page in pages:
                out.insert_pdf(source, from_page=page - 1, to_page=page - 1)
    path = folder / "text.pdf"
    out.save(path)
    out.close()
    return path


def scanned(text_pdf: Path, dpi: int) -> Path:
    """Each page of ``text_pdf`` as an image at ``dpi``, with no text layer."""
    out = pymupdf.open()
    with pymupdf.open(text_pdf) as source:
        for page in source:
            image = page.get_pixmap(dpi=dpi)
            scan = out.new_page(width=page.rect.width, height=page.rect.height)
            scan.insert_image(scan.rect, pixmap=image)
    path = text_pdf.with_name(f"scan-{dpi}.pdf")
    out.save(path)
    out.close()
    return path


def sentences_of(document: Document, chunks: list[Chunk]) -> list[Sentence]:
    """Sentences of the text layer as a person reads them, each verified exactly there
    (a sentence the text layer itself does not give back exactly measures nothing)."""
    verifier = DocumentVerifier(document, chunks)
    result = []
    for page in range(1, document.pages + 1):
        start, end = document.page_range(page)
        shown = readable(reading_view(document.text, document.furniture)[start:end])
        for text in _SENTENCE_END.split(shown):
            words = text.split()
            if not 6 <= len(words) <= 40 or not any(c.isalpha() for c in text):
                continue
            if verifier.verify(text).status == "exact":
                result.append(Sentence(text, page))
    return result


def negatives_of(sentence: str, vocabulary: list[str], rng: random.Random) -> dict[str, str]:
    """The sentence changed so that it says something else, one way per kind."""
    words = sentence.split()
    changed: dict[str, str] = {}
    numbers = list(re.finditer(r"\d+", sentence))
    if numbers:
        number = rng.choice(numbers)
        last = number.end() - 1
        digit = str((int(sentence[last]) + 1) % 10)
        changed["number"] = sentence[:last] + digit + sentence[last + 1 :]
    content = [i for i, w in enumerate(words) if w.isalpha() and len(w) >= 4]
    if content:
        index = rng.choice(content)
        others = [w for w in vocabulary if w.casefold() != words[index].casefold()]
        changed["word"] = " ".join([*words[:index], rng.choice(others), *words[index + 1 :]])
    pairs = [i for i in range(len(words) - 1) if words[i].casefold() != words[i + 1].casefold()]
    if pairs:
        index = rng.choice(pairs)
        swapped = [*words[:index], words[index + 1], words[index], *words[index + 2 :]]
        changed["swap"] = " ".join(swapped)
    auxiliary = _AUXILIARY.search(sentence)
    if auxiliary:
        changed["negation"] = sentence[: auxiliary.end()] + " not" + sentence[auxiliary.end() :]
    else:
        changed["negation"] = " ".join([*words[:2], "never", *words[2:]])
    return changed


def evaluate(
    document: Document, chunks: list[Chunk], sentences: list[Sentence]
) -> dict[str, Tally]:
    """Positives and negatives against the OCR'd document, before and after."""
    without_confidences = replace(document, ocr_words=[], ocr_pages=[])
    verifiers = {
        "before": DocumentVerifier(without_confidences, chunks),
        "after": DocumentVerifier(document, chunks),
    }
    vocabulary = sorted({w for s in sentences for w in s.text.split() if w.isalpha()})
    tallies = {label: Tally() for label in verifiers}
    for number, sentence in enumerate(sentences):
        negatives = negatives_of(sentence.text, vocabulary, random.Random(number))
        for label, verifier in verifiers.items():
            tally = tallies[label]
            found = verifier.verify(sentence.text)
            tally.positives[found.status] += 1
            if found.status == "miss":
                tally.missed.append((sentence, found))
            elif found.page != sentence.page:
                tally.wrong_page += 1
            for kind, quote in negatives.items():
                result = verifier.verify(quote)
                tally.negatives[kind] += 1
                if result.status == "miss":
                    continue
                if kind == "number" and "uncertain" in result.reason:
                    tally.uncertain_negatives.append((kind, quote, result))
                else:
                    tally.passed_negatives.append((kind, quote, result))
    return tallies


def misreads_by_confidence(truth: Document, scan: Document) -> dict[str, list[tuple[int, int]]]:
    """Per confidence band, (words, misread) for words and for numbers.

    OCR words are lined up with the text layer's words page by page; a word
    in a one-for-one replacement is misread, one in an equal run is right.
    """
    table: dict[str, list[tuple[int, int]]] = {}
    counts = {kind: [[0, 0] for _ in BANDS[1:]] for kind in ("words", "numbers")}
    for page in range(1, min(truth.pages, scan.pages) + 1):
        start, end = truth.page_range(page)
        expected = normalize_key(truth.text[start:end]).split(" ")
        low, high = scan.page_range(page)
        read = [w for w in scan.ocr_words if low <= w.start < high]
        tokens = [normalize_key(scan.text[w.start : w.end]) for w in read]
        matcher = SequenceMatcher(None, tokens, expected, autojunk=False)
        for tag, i1, i2, j1, j2 in matcher.get_opcodes():
            if tag not in ("equal", "replace") or (tag == "replace" and i2 - i1 != j2 - j1):
                continue
            for offset in range(i2 - i1):
                word = read[i1 + offset]
                band = next(b for b, top in enumerate(BANDS[1:]) if word.confidence < top)
                kinds = ["words"]
                if _DIGIT.search(expected[j1 + offset]):
                    kinds.append("numbers")
                for kind in kinds:
                    counts[kind][band][0] += 1
                    counts[kind][band][1] += tag == "replace"
    for kind, bands in counts.items():
        table[kind] = [(words, misread) for words, misread in bands]
    return table


def rate(part: int, whole: int) -> str:
    return f"{part:3d} ({part / whole:6.1%})" if whole else f"{part:3d}"


def report(dpi: int, count: int, tallies: dict[str, Tally], show: bool) -> None:
    print(f"\n== {dpi} dpi: {count} sentences from the text layer ==")
    for label, tally in tallies.items():
        p = tally.positives
        print(
            f"{label:6} positives: exact {rate(p['exact'], count)}  fuzzy {rate(p['fuzzy'], count)}"
            f"  miss {rate(p['miss'], count)}  verified on another page: {tally.wrong_page}"
        )
        total = sum(tally.negatives.values())
        kinds = ", ".join(f"{kind} {n}" for kind, n in sorted(tally.negatives.items()))
        print(
            f"{label:6} negatives: {total} ({kinds}); verified: {len(tally.passed_negatives)}; "
            f"changed number passed as uncertain OCR (flagged): {len(tally.uncertain_negatives)}"
        )
        for kind, quote, result in tally.passed_negatives:
            print(f"   NEGATIVE VERIFIED ({kind}, {result.status}): {quote!r} -- {result.reason}")
        for _, quote, result in tally.uncertain_negatives:
            print(f"   uncertain: {quote[:90]!r} -- {result.reason}")
        if show and label == "after":
            for sentence, result in tally.missed:
                print(f"   miss p.{sentence.page}: {sentence.text!r} -- {result.reason}")


def report_confidence(dpi: int, table: dict[str, list[tuple[int, int]]]) -> None:
    print(f"-- {dpi} dpi: OCR words misread, by Tesseract's confidence --")
    print("   band      " + "  ".join(f"{lo:>2}-{hi - 1:<3}" for lo, hi in pairwise(BANDS)))
    for kind, bands in table.items():
        cells = "  ".join(
            f"{misread:>2}/{words:<3}" if words else f"{'-':>6}" for words, misread in bands
        )
        print(f"   {kind:8}  {cells}")


def confidence_study() -> None:
    """The misread table over ``CONFIDENCE_PAGES`` at each of ``CONFIDENCE_DPIS``, and in all."""
    total = {kind: [(0, 0) for _ in BANDS[1:]] for kind in ("words", "numbers")}
    with tempfile.TemporaryDirectory() as folder:
        text_pdf = pages_as_pdf(Path(folder), CONFIDENCE_PAGES)
        truth, _ = read_document(text_pdf, ocr=OcrSettings.parse("never"))
        for dpi in CONFIDENCE_DPIS:
            scan, _ = read_document(scanned(text_pdf, dpi), ocr=OcrSettings.parse("auto", "eng"))
            table = misreads_by_confidence(truth, scan)
            report_confidence(dpi, table)
            for kind, bands in table.items():
                total[kind] = [
                    (words + more_words, misread + more_misread)
                    for (words, misread), (more_words, more_misread) in zip(
                        total[kind], bands, strict=True
                    )
                ]
    print("-- all of them --")
    for kind, bands in total.items():
        cells = "  ".join(f"{m / w:6.0%}" if w else f"{'-':>6}" for w, m in bands)
        print(f"   {kind:8}  {cells}")


def main() -> int:
    if "--confidence" in sys.argv:
        confidence_study()
        return 0
    show = "--show" in sys.argv
    print(f"OCR uncertain below confidence {UNCERTAIN_BELOW:.0f}")
    with tempfile.TemporaryDirectory() as folder:
        text_pdf = pages_as_pdf(Path(folder))
        truth, truth_chunks = read_document(text_pdf, ocr=OcrSettings.parse("never"))
        sentences = sentences_of(truth, truth_chunks)
        for dpi in DPIS:
            path = scanned(text_pdf, dpi)
            scan, chunks = read_document(path, ocr=OcrSettings.parse("auto", "eng"))
            assert len(scan.ocr_pages) == scan.pages, "every page should have been OCR'd"
            report(dpi, len(sentences), evaluate(scan, chunks, sentences), show)
            report_confidence(dpi, misreads_by_confidence(truth, scan))
    return 0


if __name__ == "__main__":
    sys.exit(main())
