"""OCR accuracy and speed: reader against Tesseract run directly on the same images.

    python bench/ocr.py [--pages 6] [--dpi 300 150] [--repeat 2] [--grey] [--compare-rapidocr]

Pages of real corpus text PDFs are rendered at each resolution into an
image-only PDF, one image filling each page as a scanner makes it (in colour,
or grey with ``--grey``); the truth is the page's text layer as reader extracts
it. Then, on the very same images:

- reader: ``read_document`` on the image-only PDF, which finds no text layer
  and reads every page by OCR (``--ocr auto``);
- Tesseract directly: the command-line program on each page's PNG with the
  options reader gives it (``OMP_THREAD_LIMIT=1``, the same ``-l``,
  ``--psm 3``), plain text out;
- Tesseract directly on reader's page images: the same, on the images reader
  gives Tesseract (``render_for_ocr``: a scan coarser than 200 dpi is resampled
  to 200 dpi), made before the clock starts. Reader's CER should equal this
  one's (assembling the page text loses nothing), and its time against this
  one's is the cost of reader's own work alone.

Speed is compared at equal parallelism, twice: one page at a time (reader with
one OCR worker; Tesseract run page after page) and two at a time (reader as it
ships, two OCR workers; two Tesseracts side by side). Each figure is the time
over the whole sample divided by its pages, best of ``--repeat``, as wall time
and as processor time (this process and the Tesseracts it ran); reader's
includes opening the PDF, rendering, every Tesseract call and assembling the
text. The runs alternate so that a busy machine slows both alike. Reader's own
work (rendering, encoding, parsing, assembling: its processor time outside
Tesseract) is also given on its own, the figure least moved by other load.

The character error rate (CER) is the Levenshtein distance between the text
read and the truth, over the truth's length, both with every run of
whitespace made one space; "no spaces" drops whitespace altogether (an engine
that runs words together is charged for it only in the first).

``--compare-rapidocr`` also reads the images with RapidOCR (an ONNX engine,
``rapidocr-onnxruntime``) from a separate virtual environment
(``--rapidocr-python``, by default ``/tmp/rapid/venv/bin/python``); it is not
a dependency of reader, and is here only to document the engine choice.
ONNX Runtime uses every core for one page, so its figure is one page at a
time, model loading left out.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from unittest import mock

import pymupdf
from rapidfuzz.distance import Levenshtein

import reader.ingest.ocr as ocr_module
from reader.ingest import read_document
from reader.ingest.layout import page_blocks
from reader.ingest.ocr import OcrSettings, require_tesseract
from reader.ingest.page_image import render_for_ocr

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus" / "pdf"
# Pages of running prose (no tables or figures), taken in this order: the
# default sample of six holds two of each document. The corpus has no German
# prose page (its German text PDF is a table of contents of dotted leaders).
SAMPLE_PAGES = [
    ("pdfjs-freeculture-352p.pdf", 41),
    ("pymupdf-test-3820-who-hcv-155p.pdf", 31),
    ("pymupdf-test_3842-nist-sp-800-223.pdf", 20),
    ("pdfjs-freeculture-352p.pdf", 200),
    ("pymupdf-test-3820-who-hcv-155p.pdf", 100),
    ("pymupdf-test_3842-nist-sp-800-223.pdf", 24),
    ("pdfjs-freeculture-352p.pdf", 120),
    ("pymupdf-test-3820-who-hcv-155p.pdf", 60),
    ("pymupdf-test_3842-nist-sp-800-223.pdf", 12),
]
LANGUAGES = ("eng",)
GOALS = {300: 0.02, 150: 0.05}
RAPIDOCR_PYTHON = Path("/tmp/rapid/venv/bin/python")
_RAPIDOCR_SCRIPT = """
import json, sys, time
from rapidocr_onnxruntime import RapidOCR
engine = RapidOCR()
results = []
for path in sys.argv[1:]:
    started, processor = time.perf_counter(), time.process_time()
    found, _ = engine(path)
    results.append({"text": "\\n".join(item[1] for item in found or []),
                    "seconds": time.perf_counter() - started,
                    "processor_seconds": time.process_time() - processor})
print(json.dumps(results))
"""


@dataclass
class Scans:
    """Page images at one resolution: as PNG files and as one image-only PDF, and
    the images reader makes of that PDF's pages for Tesseract."""

    dpi: int
    pdf: Path
    images: list[Path]
    truths: list[str]
    reader_images: list[tuple[Path, int]] = field(default_factory=list)  # and their dpi


@dataclass
class Reading:
    """What one engine read on every page of a sample, and the times of each run:
    wall, processor (this process and its children), and this process's own."""

    texts: list[str] = field(default_factory=list)
    seconds: list[float] = field(default_factory=list)
    processor_seconds: list[float] = field(default_factory=list)
    own_seconds: list[float] = field(default_factory=list)

    def per_page(self, times: list[float]) -> float:
        return min(times) / len(self.texts)


Reader = Callable[["Scans", int], list[str]]


def page_truth(page: pymupdf.Page) -> str:
    return "\n\n".join(block.text for block in page_blocks(page))


def make_scans(pages: Sequence[tuple[str, int]], dpi: int, grey: bool, folder: Path) -> Scans:
    """Render ``pages`` at ``dpi`` into PNGs and an image-only PDF of the same pages."""
    scanned = pymupdf.open()
    images: list[Path] = []
    truths: list[str] = []
    colourspace = pymupdf.csGRAY if grey else pymupdf.csRGB
    for index, (name, number) in enumerate(pages):
        with pymupdf.open(CORPUS / name) as source:
            page = source[number - 1]
            truths.append(page_truth(page))
            pixmap = page.get_pixmap(dpi=dpi, colorspace=colourspace, alpha=False)
        image = pixmap.tobytes("png")
        # As a scanner makes it: the page is the image's size at its resolution.
        scan = scanned.new_page(width=pixmap.width * 72 / dpi, height=pixmap.height * 72 / dpi)
        scan.insert_image(scan.rect, stream=image)
        path = folder / f"{dpi}-{index:02d}.png"
        path.write_bytes(image)
        images.append(path)
    pdf = folder / f"scanned-{dpi}dpi.pdf"
    scanned.save(pdf, deflate=True)
    scans = Scans(dpi, pdf, images, truths)
    for index, page in enumerate(scanned):
        page_image = render_for_ocr(page)
        path = folder / f"{dpi}-{index:02d}-as-reader-reads-it.png"
        path.write_bytes(page_image.data)
        scans.reader_images.append((path, page_image.dpi))
    scanned.close()
    return scans


def character_error_rate(texts: Sequence[str], truths: Sequence[str], spaces: bool = True) -> float:
    """Summed edit distance over summed truth length."""

    def normal(text: str) -> str:
        return (" " if spaces else "").join(text.split())

    distance = sum(
        Levenshtein.distance(normal(text), normal(truth))
        for text, truth in zip(texts, truths, strict=True)
    )
    return distance / max(1, sum(len(normal(truth)) for truth in truths))


def read_with_reader(scans: Scans, workers: int) -> list[str]:
    """Each page's text as reader reads the image-only PDF."""
    with mock.patch.object(ocr_module, "OCR_WORKERS", workers):
        document, _ = read_document(scans.pdf, ocr=OcrSettings("auto", LANGUAGES))
    if len(document.ocr_pages) != len(scans.images):
        raise SystemExit(f"reader read {len(document.ocr_pages)} of {len(scans.images)} pages")
    texts = []
    for number in range(1, document.pages + 1):
        start, end = document.page_range(number)
        texts.append(document.text[start:end])
    return texts


def read_with_tesseract(scans: Scans, workers: int) -> list[str]:
    """Each page's text as the Tesseract program reads its PNG."""
    return _tesseract([(image, None) for image in scans.images], workers)


def read_reader_images_with_tesseract(scans: Scans, workers: int) -> list[str]:
    """Each page's text as the Tesseract program reads the image reader made of it."""
    return _tesseract(scans.reader_images, workers)


def _tesseract(images: Sequence[tuple[Path, int | None]], workers: int) -> list[str]:
    engine = require_tesseract(LANGUAGES)
    environment = dict(os.environ, OMP_THREAD_LIMIT="1")

    def read(image: tuple[Path, int | None]) -> str:
        path, dpi = image
        resolution = ["--dpi", str(dpi)] if dpi else []
        command = [engine.program, str(path), "stdout", "-l", "+".join(LANGUAGES), *resolution]
        return subprocess.run(
            [*command, "--psm", "3"], capture_output=True, text=True, check=True, env=environment
        ).stdout

    with ThreadPoolExecutor(max_workers=workers) as pool:
        return list(pool.map(read, images))


def measure(read: Reader, scans: Scans, workers: int, into: Reading) -> None:
    """Run ``read`` once and add its texts and times to ``into``."""
    started, own, children = time.perf_counter(), time.process_time(), _children_time()
    into.texts = read(scans, workers)
    into.seconds.append(time.perf_counter() - started)
    own = time.process_time() - own
    into.own_seconds.append(own)
    into.processor_seconds.append(own + _children_time() - children)


def _children_time() -> float:
    """Processor seconds of this process's finished children (the Tesseracts)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def read_with_rapidocr(scans: Scans, python: Path) -> Reading:
    completed = subprocess.run(
        [str(python), "-c", _RAPIDOCR_SCRIPT, *map(str, scans.images)],
        capture_output=True,
        text=True,
        check=True,
    )
    results = json.loads(completed.stdout)
    return Reading(
        [result["text"] for result in results],
        [sum(result["seconds"] for result in results)],
        [sum(result["processor_seconds"] for result in results)],
    )


def report_row(label: str, reading: Reading, truths: Sequence[str]) -> None:
    print(
        f"  {label:<41} CER {character_error_rate(reading.texts, truths):6.2%}"
        f"  (no spaces {character_error_rate(reading.texts, truths, spaces=False):6.2%})"
        f"  {reading.per_page(reading.seconds):5.2f} s/page"
        f"  ({reading.per_page(reading.processor_seconds):.2f} s processor)"
    )


def bench_resolution(scans: Scans, repeat: int, rapidocr: Path | None) -> float:
    """Print the figures for one resolution; reader's CER."""
    names = ("reader 1", "direct 1", "same images 1", "reader 2", "direct 2")
    readings = {name: Reading() for name in names}
    for _ in range(repeat):
        for workers in (1, 2):
            measure(read_with_tesseract, scans, workers, readings[f"direct {workers}"])
            measure(read_with_reader, scans, workers, readings[f"reader {workers}"])
        measure(read_reader_images_with_tesseract, scans, 1, readings["same images 1"])
    print(f"{scans.dpi} dpi (best of {repeat}):")
    for workers in (1, 2):
        at_a_time = "1 page at a time" if workers == 1 else "2 at a time"
        report_row(f"reader, {at_a_time}", readings[f"reader {workers}"], scans.truths)
        report_row(f"Tesseract directly, {at_a_time}", readings[f"direct {workers}"], scans.truths)
    report_row("Tesseract on reader's images, 1 at a time", readings["same images 1"], scans.truths)
    if rapidocr is not None:
        report_row("RapidOCR, 1 page at a time", read_with_rapidocr(scans, rapidocr), scans.truths)
    comparisons = [
        ("Tesseract's, 1 at a time", readings["reader 1"], readings["direct 1"]),
        ("Tesseract's, 2 at a time", readings["reader 2"], readings["direct 2"]),
        ("Tesseract's on reader's images", readings["reader 1"], readings["same images 1"]),
    ]
    for label, ours, theirs in comparisons:
        wall = ours.per_page(ours.seconds) / theirs.per_page(theirs.seconds)
        processor = ours.per_page(ours.processor_seconds) / theirs.per_page(
            theirs.processor_seconds
        )
        print(f"  reader's time / {label}: {wall:.2f}x wall, {processor:.2f}x processor")
    single = readings["reader 1"]
    own = single.per_page(single.own_seconds)
    tesseract = readings["same images 1"].per_page(readings["same images 1"].processor_seconds)
    print(
        f"  reader's own work outside Tesseract: {own:.2f} s/page of processor, "
        f"{own / tesseract:.1%} of Tesseract's on the same images"
    )
    return character_error_rate(readings["reader 2"].texts, scans.truths)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, default=6, help=f"1 to {len(SAMPLE_PAGES)}")
    parser.add_argument("--dpi", type=int, nargs="+", default=[300, 150])
    parser.add_argument("--repeat", type=int, default=2, help="runs of each; the best is kept")
    parser.add_argument("--grey", action="store_true", help="scan in grey, not in colour")
    parser.add_argument("--compare-rapidocr", action="store_true")
    parser.add_argument("--rapidocr-python", type=Path, default=RAPIDOCR_PYTHON)
    args = parser.parse_args()
    if not 1 <= args.pages <= len(SAMPLE_PAGES):
        parser.error(f"--pages must be between 1 and {len(SAMPLE_PAGES)}")
    if args.compare_rapidocr and not args.rapidocr_python.exists():
        parser.error(f"RapidOCR's Python is not at {args.rapidocr_python}")
    pages = SAMPLE_PAGES[: args.pages]
    engine = require_tesseract(LANGUAGES)
    print(f"{len(pages)} pages: " + ", ".join(f"{name} p.{number}" for name, number in pages))
    print(
        f"Tesseract {engine.version}, -l {'+'.join(LANGUAGES)}, "
        f"{'grey' if args.grey else 'colour'} scans, {os.cpu_count()} cores\n"
    )
    failed = False
    with tempfile.TemporaryDirectory() as folder:
        for dpi in args.dpi:
            scans = make_scans(pages, dpi, args.grey, Path(folder))
            rapidocr = args.rapidocr_python if args.compare_rapidocr else None
            cer = bench_resolution(scans, args.repeat, rapidocr)
            goal = GOALS.get(dpi)
            if goal is not None:
                verdict = "meets" if cer <= goal else "misses"
                print(f"  reader's CER {cer:.2%} {verdict} the goal of at most {goal:.0%}")
                failed = failed or cer > goal
            print()
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
