"""Click-to-highlight and document-open times in the real window, against floors.

    QT_QPA_PLATFORM=offscreen python bench/ui.py [--repeat 20]

- click: ``MainWindow.activate_claim`` on verified claims spread through the
  352-page corpus book (highlight, scroll, synchronous repaint), against the
  floor: setting the cursor at the same place in the same widget and
  repainting.
- open: showing the stored document in the viewer (``MainWindow.show_document``:
  library read, text, outline), against raw PyMuPDF text extraction of the
  same file.
Medians of ``--repeat`` runs, in one process.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pymupdf
from PySide6.QtGui import QTextCursor
from PySide6.QtWidgets import QApplication

from reader.records import Answer, AnswerMetrics, CheckedClaim, Claim
from reader.ui.main_window import MainWindow

BOOK = "pdf/pdfjs-freeculture-352p.pdf"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    default_corpus = Path(__file__).resolve().parents[1].parent / "shared" / "corpus"
    parser.add_argument("--corpus", type=Path, default=default_corpus)
    parser.add_argument("--repeat", type=int, default=20)
    args = parser.parse_args()
    app = QApplication.instance() or QApplication([])
    path = args.corpus / BOOK

    with tempfile.TemporaryDirectory() as folder:
        window = MainWindow(database=Path(folder) / "bench.db", backend_factory=lambda: None)
        window.resize(1280, 800)
        window.show()
        doc_id = window.library.ingest(path).doc_id
        app.processEvents()

        opens, raws = [], []
        for _ in range(max(3, args.repeat // 4)):
            window.current = None
            started = time.perf_counter()
            window.show_document(doc_id)
            window.text_view.viewport().repaint()
            opens.append(time.perf_counter() - started)
            started = time.perf_counter()
            with pymupdf.open(path) as document:
                for page in document:
                    page.get_text()
            raws.append(time.perf_counter() - started)
            app.processEvents()
        opened, raw = statistics.median(opens), statistics.median(raws)
        print(
            f"open {BOOK}: reader viewer {opened * 1000:.0f} ms, raw PyMuPDF extraction "
            f"{raw * 1000:.0f} ms, ratio {opened / raw:.2f}x"
        )

        document = window.library.document(doc_id)
        verifier = window.library.verifier(doc_id)
        rng = random.Random(5)
        claims = []
        for _ in range(args.repeat):
            start = rng.randrange(0, len(document.text) - 200)
            start = document.text.find(" ", start) + 1
            quote = document.text[start : start + 60].strip()
            check = verifier.verify(quote)
            claims.append(CheckedClaim(Claim(quote, check.chunk_id or "", quote), check, doc_id))
        window.answer = Answer("q", "", claims, [], "bench", "bench", [doc_id], AnswerMetrics())
        clicks, floors = [], []
        for index, item in enumerate(claims):
            window.activate_claim(index)
            clicks.append(window.last_click_ms or 0.0)
            app.processEvents()
            started = time.perf_counter()
            cursor = QTextCursor(window.text_view.document())
            cursor.setPosition(window.text_view.to_qt(item.verification.start or 0))
            window.text_view.setTextCursor(cursor)
            window.text_view.viewport().repaint()
            floors.append((time.perf_counter() - started) * 1000)
            app.processEvents()
        click, floor = statistics.median(clicks), statistics.median(floors)
        visible = all(
            window.text_view.is_visible(c.verification.start or 0, c.verification.end or 0)
            for c in claims[-1:]
        )
        print(
            f"click to highlight in {BOOK}: median {click:.1f} ms (max {max(clicks):.1f} ms), "
            f"floor (set cursor + repaint) {floor:.1f} ms, ratio {click / floor:.2f}x; "
            f"last highlight visible: {visible}"
        )
        window.close()


if __name__ == "__main__":
    main()
