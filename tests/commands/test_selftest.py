"""``reader --selftest``: passes on a working install, names the step that fails."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import reader.ingest.tesseract
import reader.models.backends
import reader.models.files
import reader.models.model_process
from reader.cli import main
from reader.commands.selftest import (
    TESSERACT_MISSING,
    SelftestFailed,
    SelftestResult,
    check_ocr,
    run_selftest,
)
from reader.library import Library
from reader.models.backends import Generation


@pytest.mark.model
@pytest.mark.slow
def test_selftest_passes_in_a_normal_install_and_leaves_the_library_alone(
    reader_home: Path, tmp_path: Path
):
    completed = subprocess.run(
        [sys.executable, "-c", "from reader.cli import main; main()", "--selftest"],
        capture_output=True,
        text=True,
        env={**os.environ, "READER_HOME": str(reader_home), "QT_QPA_PLATFORM": "xcb"},
        timeout=600,
    )
    assert completed.returncode == 0, completed.stderr
    lines = completed.stdout.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("selftest ok: SmolLM2-135M-Instruct")
    assert "claims verified" in lines[0] and "window rendered offscreen" in lines[0]
    # The README says the embedded model only picks evidence: the line says why it wrote.
    assert "(asked for claims of its own, as --mode constrained does)" in lines[0]
    if reader.ingest.tesseract.find_tesseract() is not None:
        assert "a scanned page read by OCR" in lines[0] and "boxed on the image" in lines[0]
    # QT_QPA_PLATFORM=xcb with no display would fail: the window step forces offscreen.
    assert not (reader_home / "library.db").exists()
    assert not (reader_home / "settings.json").exists()


def test_a_missing_model_fails_the_model_step(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(reader.models.files, "embedded_model_path", lambda: None)
    with pytest.raises(SelftestFailed) as failure:
        run_selftest()
    assert failure.value.step == "model"
    assert "reinstall reader" in str(failure.value)


def test_the_cli_exits_non_zero_with_one_line_naming_the_step(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
):
    monkeypatch.setattr(reader.models.files, "embedded_model_path", lambda: None)
    with pytest.raises(SystemExit) as exited:
        main(["--selftest"])
    assert exited.value.code == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1].startswith("selftest failed at step 'model':")
    assert "Traceback" not in "\n".join(err)


class GarbageModel:
    """Loads instantly and answers with text that holds no claim."""

    supports_grammar = True

    def __init__(self, model_path: object, **_options: object) -> None:
        self.name = "garbage"

    def load(self) -> None:
        pass

    def close(self) -> None:
        pass

    def generate(self, messages, grammar=None, max_tokens=512, on_token=None, cancel=None):
        return Generation(text="I cannot help with that.")


class InventingModel(GarbageModel):
    """Answers with a well-formed claim whose quote is not in the sample."""

    def generate(self, messages, grammar=None, max_tokens=512, on_token=None, cancel=None):
        return Generation(
            text='{"claims": [{"source_id": "c1", "quote": "reader sends your documents to '
            'the cloud.", "text": "It uploads documents."}]}'
        )


@pytest.mark.parametrize(
    ("model", "step", "reason"),
    [(GarbageModel, "answer", "no claims"), (InventingModel, "verify", "no claim verified")],
)
def test_a_model_that_does_not_deliver_fails_its_step(
    monkeypatch: pytest.MonkeyPatch, model: type, step: str, reason: str
):
    monkeypatch.setattr(reader.models.model_process, "EmbeddedBackend", model)
    with pytest.raises(SelftestFailed) as failure:
        run_selftest()
    assert failure.value.step == step
    assert reason in failure.value.reason


def needs_tesseract() -> None:
    """.ci/run installs Tesseract, so in CI a missing one fails."""
    if reader.ingest.tesseract.find_tesseract() is None:
        message = "Tesseract is not installed (sudo apt install tesseract-ocr tesseract-ocr-eng)"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)


def test_the_ocr_step_reads_a_scanned_page_and_boxes_its_quote(tmp_path: Path):
    needs_tesseract()
    with Library(tmp_path / "library.db") as library:
        found = check_ocr(library, tmp_path)
        (document,) = library.documents()
    assert found.startswith("a scanned page read by OCR (Tesseract 5.")
    assert found.endswith("its quote verified (exact) and boxed on the image")
    assert document.ocr_pages == (1,)


def test_the_ocr_step_fails_when_ocr_reads_something_else(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    needs_tesseract()
    monkeypatch.setattr(
        "reader.commands.selftest.OCR_QUOTE", "The harbour froze in the winter of 1790"
    )
    with Library(tmp_path / "library.db") as library, pytest.raises(SelftestFailed) as failure:
        check_ocr(library, tmp_path)
    assert failure.value.step == "ocr"
    assert "not found in what OCR read" in failure.value.reason
    assert "1709" in failure.value.reason  # what OCR did read, to compare


def test_without_tesseract_an_install_passes_with_a_note_on_what_to_install(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.setattr(reader.ingest.tesseract, "find_tesseract", lambda: None)
    with Library(tmp_path / "library.db") as library:
        found = check_ocr(library, tmp_path)
        assert library.documents() == []
    assert found == TESSERACT_MISSING
    summary = SelftestResult(model="m", ocr=found).summary()
    assert len(summary.splitlines()) == 1 and summary.startswith("selftest ok:")
    assert "OCR not checked" in summary and "sudo apt install tesseract-ocr" in summary


def test_without_tesseract_the_bundle_fails_the_ocr_step(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.setattr(reader.ingest.tesseract, "find_tesseract", lambda: None)
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    monkeypatch.setattr(sys, "platform", "linux")
    with Library(tmp_path / "library.db") as library, pytest.raises(SelftestFailed) as failure:
        check_ocr(library, tmp_path)
    assert failure.value.step == "ocr"
    assert str(failure.value) == (
        "selftest failed at step 'ocr': the bundled Tesseract is missing: reinstall reader"
    )


def test_the_selftest_answers_with_the_model_the_settings_name(reader_home: Path):
    """The model `reader models install` made the default is the one checked."""
    from reader.config import Settings, save_settings
    from reader.models.files import embedded_model_path, models_dir

    embedded = embedded_model_path()
    assert embedded is not None
    folder = models_dir()
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "chosen-model.gguf").symlink_to(embedded)
    save_settings(Settings(model="chosen-model.gguf"))
    result = run_selftest()
    assert result.model.startswith("chosen-model")


def test_a_configured_model_that_is_gone_fails_the_model_step_with_why(reader_home: Path):
    from reader.config import Settings, save_settings

    save_settings(Settings(model="no-such-model.gguf"))
    with pytest.raises(SelftestFailed) as failure:
        run_selftest()
    assert failure.value.step == "model" and "no-such-model.gguf" in str(failure.value)
