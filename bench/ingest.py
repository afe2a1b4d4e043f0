"""Ingest time against raw PyMuPDF text extraction of the same files, same run.

    python bench/ingest.py [--corpus ../shared/corpus] [--repeat 3] [--ocr auto]

For every PDF in the corpus that reader ingests, the baseline opens it with
PyMuPDF and calls ``page.get_text()`` on every page; reader's time is a full
``Library.ingest`` (extraction, chunking, the database transaction and the
full-text index) into an open library, the document removed (untimed) between
runs. Each side takes the best of
``--repeat`` runs, interleaved, so machine noise hits both alike. Plain-text
files are reported against reading and decoding them.

The baseline reads text layers only, so by default reader does too (``--ocr
never``): a scanned page read by Tesseract takes seconds, and where Tesseract is
installed a few scanned files would make the total a measure of OCR, not of
ingest (``bench/ocr.py`` measures that). Files with no text layer at all are
then refused and left out; ``--ocr auto`` ingests as ``reader ingest`` does.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import pymupdf

from reader.errors import ReaderError
from reader.ingest.ocr import OcrSettings
from reader.library import Library

pymupdf.TOOLS.mupdf_display_errors(False)


def raw_pymupdf(path: Path) -> int:
    with pymupdf.open(path) as document:
        return sum(len(page.get_text()) for page in document)


def raw_text(path: Path) -> int:
    return len(path.read_bytes().decode("utf-8", errors="replace"))


def reader_ingest(library: Library, path: Path, ocr: OcrSettings) -> str:
    """Ingest into an open library; returns the doc id so the caller can remove it."""
    return library.ingest(path, ocr=ocr).doc_id


def best_of(function, repeat: int, reset=None) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        result = function()
        best = min(best, time.perf_counter() - start)
        if reset is not None:
            reset(result)  # untimed: removing the document makes the next ingest real
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    default_corpus = Path(__file__).resolve().parents[1].parent / "shared" / "corpus"
    parser.add_argument("--corpus", type=Path, default=default_corpus)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--ocr", choices=("never", "auto"), default="never")
    args = parser.parse_args()
    ocr = OcrSettings(mode=args.ocr)

    with tempfile.TemporaryDirectory() as tmp, Library(Path(tmp) / "bench.db") as library:
        for label, folder, baseline in (
            ("pdf", "pdf", raw_pymupdf),
            ("text", "text", raw_text),
        ):
            total_raw = total_reader = 0.0
            files = 0
            print(f"\n{label}: file, raw seconds, reader seconds, ratio")
            for path in sorted((args.corpus / folder).iterdir()):
                try:
                    library.remove(reader_ingest(library, path, ocr))  # warm-up, as for raw
                except ReaderError:
                    continue  # a file reader refuses has no ingest time to compare
                raw_seconds = best_of(lambda p=path, f=baseline: f(p), args.repeat)
                reader_seconds = best_of(
                    lambda p=path: reader_ingest(library, p, ocr),
                    args.repeat,
                    reset=library.remove,
                )
                total_raw += raw_seconds
                total_reader += reader_seconds
                files += 1
                print(
                    f"  {path.name[:60]:60s} {raw_seconds:8.4f} {reader_seconds:8.4f} "
                    f"{reader_seconds / raw_seconds:6.2f}x"
                )
            print(
                f"{label}: {files} files, raw {total_raw:.3f} s, reader {total_reader:.3f} s, "
                f"ratio {total_reader / total_raw:.2f}x"
            )


if __name__ == "__main__":
    main()
