from __future__ import annotations

import os
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest

from reader.answer import ScriptedBackend
from reader.models.backends import Generation, collect_pieces


class SlowBackend(ScriptedBackend):
    """Streams its output one character every few milliseconds, so it can be cancelled."""

    def generate(self, messages, grammar=None, max_tokens=512, on_token=None, cancel=None):
        self.requests.append({"messages": messages, "grammar": grammar})
        output = str(self.outputs.popleft())

        def pieces():
            for char in output:
                time.sleep(0.005)
                yield char

        generation: Generation = collect_pieces(pieces(), on_token, cancel, time.perf_counter())
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


@pytest.fixture
def tesseract() -> None:
    """OCR tests need Tesseract (.ci/run installs it): without it they fail, saying so."""
    from reader.ingest.tesseract import find_tesseract

    if find_tesseract() is None:
        pytest.fail("Tesseract is not installed (sudo apt install tesseract-ocr tesseract-ocr-eng)")
