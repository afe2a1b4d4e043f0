from __future__ import annotations

import os
import time
from dataclasses import dataclass
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pymupdf
import pytest

from reader.answer import ScriptedBackend
from reader.answer.backends import Generation, _collect


class SlowBackend(ScriptedBackend):
    """Streams its output one character every few milliseconds, so it can be cancelled."""

    def generate(self, messages, grammar=None, max_tokens=512, on_token=None, cancel=None):
        self.requests.append({"messages": messages, "grammar": grammar})
        output = str(self.outputs.popleft())

        def pieces():
            for char in output:
                time.sleep(0.005)
                yield char

        generation: Generation = _collect(pieces(), on_token, cancel, time.perf_counter())
        return generation


@pytest.fixture
def backend() -> ScriptedBackend:
    return ScriptedBackend()


@pytest.fixture
def window(qtbot, tmp_path: Path, backend: ScriptedBackend):
    from reader.ui.main_window import MainWindow

    main = MainWindow(database=tmp_path / "library.db", backend_factory=lambda: backend)
    main.resize(1200, 800)
    qtbot.addWidget(main)
    main.show()
    yield main
    main.workers.shutdown()


@dataclass(frozen=True)
class Scan:
    path: Path  # the image-only PDF, as a scanner makes it
    original: Path  # the text PDF it was rendered from: where every word really is


@pytest.fixture
def make_scan(make_pdf, tmp_path: Path):
    """An image-only PDF of the given pages (as ``make_pdf`` takes them), each
    rendered at ``dpi`` into a page of the same size, with the text PDF it came from."""

    def make(pages, name: str = "scan.pdf", dpi: int = 300) -> Scan:
        original = make_pdf(pages, name=f"original-{name}")
        with pymupdf.open(original) as text, pymupdf.open() as scan:
            for page in text:
                image = page.get_pixmap(dpi=dpi, colorspace=pymupdf.csGRAY)
                scanned = scan.new_page(width=page.rect.width, height=page.rect.height)
                scanned.insert_image(scanned.rect, pixmap=image)
            scan.save(tmp_path / name, deflate=True)
        return Scan(tmp_path / name, original)

    return make


@pytest.fixture
def tesseract() -> None:
    """OCR tests need Tesseract (.ci/run installs it): without it they fail, saying so."""
    from reader.ingest.ocr import find_tesseract

    if find_tesseract() is None:
        pytest.fail("Tesseract is not installed (sudo apt install tesseract-ocr tesseract-ocr-eng)")
