"""The settings dialog: server timeouts and OCR shown, edited and saved."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

import reader.ingest.tesseract
from reader.answer import ServerBackend, ServerTimeouts
from reader.config import load_settings, save_settings, settings_path
from reader.ingest.ocr import OcrSettings, ocr_settings
from reader.models.choice import make_backend

pytestmark = pytest.mark.gui


def test_the_dialog_shows_the_default_server_timeouts(qtbot):
    from reader.ui.settings import SettingsDialog

    dialog = SettingsDialog()
    qtbot.addWidget(dialog)
    shown = (
        dialog.connect_timeout.value(),
        dialog.first_token_timeout.value(),
        dialog.between_tokens_timeout.value(),
        dialog.answer_timeout.value(),
    )
    assert shown == (10.0, 120.0, 60.0, 600.0)


def test_edited_server_timeouts_are_saved_and_used(qtbot):
    from reader.ui.settings import SettingsDialog

    save_settings(load_settings().replace(server_first_token_timeout=300))
    dialog = SettingsDialog()
    qtbot.addWidget(dialog)
    assert dialog.first_token_timeout.value() == 300.0
    dialog.server_url.setText("http://127.0.0.1:9")
    dialog.model_name.setText("served-model")
    dialog.connect_timeout.setValue(2.5)
    dialog.between_tokens_timeout.setValue(90)
    dialog.answer_timeout.setValue(240)
    dialog.save()
    settings = load_settings()
    assert settings.server_connect_timeout == 2.5
    assert settings.server_first_token_timeout == 300.0
    assert settings.server_between_tokens_timeout == 90.0
    assert settings.server_answer_timeout == 240.0
    backend = make_backend()
    assert isinstance(backend, ServerBackend)
    assert backend.timeouts == ServerTimeouts(2.5, 300.0, 90.0, 240.0)


class FakeTesseract:
    def __init__(self, languages: list[str]) -> None:
        self._languages = languages

    def languages(self) -> list[str]:
        return self._languages


def language_rows(dialog) -> dict[str, bool]:
    """The OCR language list as shown: each row's text and whether it is ticked."""
    rows = (dialog.ocr_languages.item(row) for row in range(dialog.ocr_languages.count()))
    return {item.text(): item.checkState() == Qt.CheckState.Checked for item in rows}


def test_ocr_mode_and_languages_are_chosen_from_the_installed_ones_and_saved(
    qtbot, monkeypatch: pytest.MonkeyPatch
):
    from reader.ui.settings import SettingsDialog

    monkeypatch.setattr(
        reader.ingest.tesseract,
        "find_tesseract",
        lambda: FakeTesseract(["chi_sim", "deu", "eng", "osd"]),
    )
    save_settings(load_settings().replace(threads=3))
    dialog = SettingsDialog()
    qtbot.addWidget(dialog)
    assert dialog.ocr_mode.currentData() == "auto"
    # Orientation detection (osd) is not a language to read in.
    assert language_rows(dialog) == {
        "Automatic: each page in the languages of its script": True,
        "Chinese (simplified) (chi_sim)": False,
        "German (deu)": False,
        "English (eng)": False,
    }
    assert "tesseract-ocr-fra" in dialog.ocr_note.text()
    # Ticking a language unticks Automatic, and ticking Automatic unticks the languages.
    dialog.ocr_languages.item(0).setCheckState(Qt.CheckState.Unchecked)
    dialog.ocr_languages.item(2).setCheckState(Qt.CheckState.Checked)
    dialog.ocr_languages.item(0).setCheckState(Qt.CheckState.Checked)
    assert [name for name, ticked in language_rows(dialog).items() if ticked] == [
        "Automatic: each page in the languages of its script"
    ]
    dialog.ocr_languages.item(2).setCheckState(Qt.CheckState.Checked)
    dialog.ocr_languages.item(3).setCheckState(Qt.CheckState.Checked)
    assert not language_rows(dialog)["Automatic: each page in the languages of its script"]
    dialog.ocr_mode.setCurrentIndex(dialog.ocr_mode.findData("always"))
    dialog.save()
    settings = load_settings()
    assert (settings.ocr_mode, settings.ocr_languages) == ("always", "deu+eng")
    assert settings.threads == 3  # settings the dialog does not show are kept
    assert ocr_settings() == OcrSettings("always", ("deu", "eng"))


def test_a_language_that_is_no_longer_installed_is_shown_so_it_can_be_unticked(
    qtbot, monkeypatch: pytest.MonkeyPatch
):
    from reader.ui.settings import SettingsDialog

    monkeypatch.setattr(reader.ingest.tesseract, "find_tesseract", lambda: FakeTesseract(["eng"]))
    save_settings(load_settings().replace(ocr_languages="eng+fra"))
    dialog = SettingsDialog()
    qtbot.addWidget(dialog)
    assert language_rows(dialog) == {
        "Automatic: each page in the languages of its script": False,
        "English (eng)": True,
        "French (fra) — not installed": True,
    }


def test_without_tesseract_the_dialog_says_what_to_install(qtbot, monkeypatch: pytest.MonkeyPatch):
    from reader.ui.settings import SettingsDialog

    monkeypatch.setattr(reader.ingest.tesseract, "find_tesseract", lambda: None)
    dialog = SettingsDialog()
    qtbot.addWidget(dialog)
    assert "not installed" in dialog.ocr_note.text()
    assert "sudo apt install tesseract-ocr" in dialog.ocr_note.text()
    assert language_rows(dialog) == {"Automatic: each page in the languages of its script": True}


def test_no_ocr_language_is_not_saved(qtbot, monkeypatch: pytest.MonkeyPatch):
    from reader.ui.settings import SettingsDialog

    monkeypatch.setattr(reader.ingest.tesseract, "find_tesseract", lambda: FakeTesseract(["eng"]))
    dialog = SettingsDialog()
    qtbot.addWidget(dialog)
    dialog.show()
    dialog.ocr_languages.item(0).setCheckState(Qt.CheckState.Unchecked)
    dialog.save()
    assert dialog.problem.isVisible() and "at least one OCR language" in dialog.problem.text()
    assert dialog.result() != dialog.DialogCode.Accepted
    assert not settings_path().exists()


def test_the_model_is_chosen_among_the_installed_ones_by_name(qtbot, reader_home):
    from reader.models.catalogue import CATALOGUE
    from reader.models.files import embedded_model_path, resolve_model
    from reader.ui.settings import SettingsDialog

    folder = reader_home / "models"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / CATALOGUE[0].file_name).write_bytes(b"GGUF" + bytes(100))
    (folder / "my-own.gguf").write_bytes(b"GGUF" + bytes(100))
    dialog = SettingsDialog()
    qtbot.addWidget(dialog)
    labels = [dialog.model.itemText(i) for i in range(dialog.model.count())]
    assert labels[0].startswith("Default")
    assert f"{CATALOGUE[0].title} (0.0 GB)" in labels
    assert "my-own.gguf (0.0 GB)" in labels
    assert "SmolLM2-135M-Instruct (embedded, small)" in labels
    dialog.model.setCurrentIndex(labels.index(f"{CATALOGUE[0].title} (0.0 GB)"))
    dialog.save()
    assert load_settings().model == CATALOGUE[0].file_name
    assert resolve_model(load_settings().model) == folder / CATALOGUE[0].file_name

    reopened = SettingsDialog()
    qtbot.addWidget(reopened)
    assert reopened.model.currentText() == f"{CATALOGUE[0].title} (0.0 GB)"
    reopened.model.setCurrentIndex(labels.index("SmolLM2-135M-Instruct (embedded, small)"))
    reopened.save()
    assert resolve_model(load_settings().model) == embedded_model_path()


def test_a_model_file_chosen_elsewhere_stays_listed(qtbot, tmp_path):
    from reader.ui.settings import SettingsDialog

    elsewhere = tmp_path / "models elsewhere" / "big.gguf"
    elsewhere.parent.mkdir()
    elsewhere.write_bytes(b"GGUF")
    save_settings(load_settings().replace(model=str(elsewhere)))
    dialog = SettingsDialog()
    qtbot.addWidget(dialog)
    assert dialog.model.currentData() == str(elsewhere)
    dialog.save()
    assert load_settings().model == str(elsewhere)


def test_every_label_shows_its_mnemonic_as_an_underline_not_an_ampersand(qtbot):
    from PySide6.QtWidgets import QFormLayout, QLabel

    from reader.ui.settings import SettingsDialog

    dialog = SettingsDialog()
    qtbot.addWidget(dialog)
    form = dialog.layout()
    assert isinstance(form, QFormLayout)
    items = [form.itemAt(row, QFormLayout.ItemRole.LabelRole) for row in range(form.rowCount())]
    labels = [item.widget() for item in items if item is not None]
    labels = [label for label in labels if isinstance(label, QLabel)]
    assert any(label.text() == "&Model file:" for label in labels)
    for label in labels:
        if "&" in label.text():
            # A label with a mnemonic and no buddy draws the "&" itself.
            assert label.buddy() is not None, label.text()
