"""Settings: which model (a GGUF file, the embedded default, or a server), threads, context,
how long to wait on a server, and when and in which languages scanned pages are read by OCR."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QSpinBox,
    QWidget,
)

import reader.library
from reader.config import Settings, load_settings, save_settings
from reader.library import AUTO_LANGUAGE, model_choices, models_dir, server_timeouts
from reader.ui.labels import plain_label
from reader.ui.ocr_labels import language_name

OCR_MODES = [
    ("auto", "Pages without a text layer (scanned pages)"),
    ("always", "Every page, even if it has a text layer"),
    ("never", "No page: scanned pages stay empty"),
]
NOT_INSTALLED = (
    "Tesseract, which reads scanned pages, is not installed: install it "
    "(sudo apt install tesseract-ocr tesseract-ocr-eng; on macOS brew install tesseract) "
    "or use reader's installer, which includes it."
)
MORE_LANGUAGES = (
    "More languages: install Tesseract's language package, e.g. "
    "sudo apt install tesseract-ocr-fra for French."
)


def _seconds_box(value: float, tip: str) -> QDoubleSpinBox:
    box = QDoubleSpinBox()
    box.setRange(0.5, 3600.0)
    box.setDecimals(1)
    box.setSuffix(" s")
    box.setValue(value)
    box.setToolTip(tip)
    return box


class SettingsDialog(QDialog):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Settings")
        settings = load_settings()
        self.model = QComboBox()
        self.model.setAccessibleName("Model")
        self.model.setToolTip(
            "The installed models (reader models install NAME adds one); Browse adds a file."
        )
        self.model.addItem("Default: the first in the models folder, else the embedded", None)
        for label, value in model_choices():
            self.model.addItem(label, value)
        self._choose_model(settings.model)
        browse = QPushButton("&Browse…")
        browse.clicked.connect(self._browse)
        model_row = QHBoxLayout()
        model_row.addWidget(self.model, 1)
        model_row.addWidget(browse)
        self.server_url = QLineEdit(settings.server_url or "")
        self.server_url.setPlaceholderText("e.g. http://gpu-box:8080 (empty: run locally)")
        self.model_name = QLineEdit(settings.model_name or "")
        self.threads = QSpinBox()
        self.threads.setRange(0, 64)
        self.threads.setSpecialValueText("automatic")
        self.threads.setValue(settings.threads or 0)
        self.context = QSpinBox()
        self.context.setRange(1024, 131072)
        self.context.setSingleStep(1024)
        self.context.setValue(settings.context_size)
        timeouts = server_timeouts(settings)
        self.connect_timeout = _seconds_box(
            timeouts.connect, "How long a server may take to accept the connection."
        )
        self.first_token_timeout = _seconds_box(
            timeouts.first_token,
            "How long a server may take to start answering (it reads the whole prompt first; "
            "a busy one queues the question).",
        )
        self.between_tokens_timeout = _seconds_box(
            timeouts.between_tokens, "The longest silence allowed once the answer has started."
        )
        self.answer_timeout = _seconds_box(
            timeouts.answer,
            "The longest a whole answer may take, however the server keeps the waits above short.",
        )
        self.mode = QComboBox()
        self.mode.addItems(["auto", "constrained", "free", "passages"])
        self.mode.setCurrentText(settings.mode)
        form = QFormLayout(self)
        # The row's field is a layout, which a label cannot take as its buddy: without
        # one, Qt shows the mnemonic's "&" as it is.
        model_label = QLabel("&Model file:")
        model_label.setBuddy(self.model)
        form.addRow(model_label, model_row)
        form.addRow("&Server URL:", self.server_url)
        form.addRow("Server model &name:", self.model_name)
        form.addRow("Server c&onnect timeout:", self.connect_timeout)
        form.addRow("Server &first-token timeout:", self.first_token_timeout)
        form.addRow("Server timeout bet&ween tokens:", self.between_tokens_timeout)
        form.addRow("Server w&hole-answer timeout:", self.answer_timeout)
        form.addRow("&Threads:", self.threads)
        form.addRow("&Context size:", self.context)
        form.addRow("&Quoting:", self.mode)
        self._add_ocr_rows(form, settings)
        self.problem = plain_label()
        self.problem.setStyleSheet("color: #c0392b")
        self.problem.hide()
        form.addRow(self.problem)
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel
        )
        buttons.accepted.connect(self.save)
        buttons.rejected.connect(self.reject)
        form.addRow(buttons)

    def _add_ocr_rows(self, form: QFormLayout, settings: Settings) -> None:
        self.ocr_mode = QComboBox()
        for mode, description in OCR_MODES:
            self.ocr_mode.addItem(f"{mode}: {description}", mode)
        self.ocr_mode.setCurrentIndex(max(0, self.ocr_mode.findData(settings.ocr_mode)))
        chosen = [code for code in settings.ocr_languages.split("+") if code]
        engine = reader.library.find_tesseract()
        # Orientation detection is not a language to read in; ocr uses it by itself.
        installed = [code for code in engine.languages() if code != "osd"] if engine else []
        self.ocr_languages = QListWidget()
        self.ocr_languages.setAccessibleName("OCR languages")
        self.ocr_languages.setMaximumHeight(110)
        languages = [code for code in chosen if code not in installed and code != AUTO_LANGUAGE]
        for code in [AUTO_LANGUAGE, *installed, *languages]:
            if code == AUTO_LANGUAGE:
                label = "Automatic: each page in the languages of its script"
            else:
                label = language_name(code) + ("" if code in installed else " — not installed")
            item = QListWidgetItem(label)
            item.setData(Qt.ItemDataRole.UserRole, code)
            item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
            item.setCheckState(Qt.CheckState.Checked if code in chosen else Qt.CheckState.Unchecked)
            self.ocr_languages.addItem(item)
        self.ocr_languages.itemChanged.connect(self._on_ocr_language_ticked)
        self.ocr_note = plain_label(NOT_INSTALLED if engine is None else MORE_LANGUAGES)
        self.ocr_note.setWordWrap(True)
        form.addRow("Read pages by &OCR:", self.ocr_mode)
        form.addRow("OCR &languages:", self.ocr_languages)
        form.addRow("", self.ocr_note)

    def _on_ocr_language_ticked(self, ticked: QListWidgetItem) -> None:
        """Automatic and chosen languages exclude each other: ticking one unticks the other."""
        if ticked.checkState() != Qt.CheckState.Checked:
            return
        automatic = ticked.data(Qt.ItemDataRole.UserRole) == AUTO_LANGUAGE
        for row in range(self.ocr_languages.count()):
            item = self.ocr_languages.item(row)
            is_auto = item.data(Qt.ItemDataRole.UserRole) == AUTO_LANGUAGE
            if item is not ticked and (automatic or is_auto):
                item.setCheckState(Qt.CheckState.Unchecked)

    def chosen_languages(self) -> list[str]:
        items = (self.ocr_languages.item(row) for row in range(self.ocr_languages.count()))
        return [
            str(item.data(Qt.ItemDataRole.UserRole))
            for item in items
            if item.checkState() == Qt.CheckState.Checked
        ]

    def _choose_model(self, value: str | None) -> None:
        """Select the model a setting names, listing it first if it is a file elsewhere."""
        index = self.model.findData(value)
        if index < 0 and value is not None:
            self.model.addItem(value, value)
            index = self.model.count() - 1
        self.model.setCurrentIndex(max(index, 0))

    def _browse(self) -> None:
        path, _ = QFileDialog.getOpenFileName(
            self, "Choose a GGUF model", str(models_dir()), "GGUF models (*.gguf)"
        )
        if path:
            self._choose_model(path)

    def save(self) -> None:
        languages = self.chosen_languages()
        if not languages:
            self.problem.setText("Choose at least one OCR language, then save.")
            self.problem.show()
            return
        save_settings(
            load_settings().replace(
                model=self.model.currentData(),
                server_url=self.server_url.text().strip() or None,
                model_name=self.model_name.text().strip() or None,
                server_connect_timeout=self.connect_timeout.value(),
                server_first_token_timeout=self.first_token_timeout.value(),
                server_between_tokens_timeout=self.between_tokens_timeout.value(),
                server_answer_timeout=self.answer_timeout.value(),
                threads=self.threads.value() or None,
                context_size=self.context.value(),
                mode=self.mode.currentText(),
                ocr_mode=self.ocr_mode.currentData(),
                ocr_languages="+".join(languages),
            )
        )
        reader.library.forget_backends()
        self.accept()
