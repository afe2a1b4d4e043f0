"""Settings: which model (a GGUF file, the embedded default, or a server), threads, context,
and how long to wait on a server."""

from __future__ import annotations

from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLineEdit,
    QPushButton,
    QSpinBox,
    QWidget,
)

from reader.answer import setup
from reader.answer.models import embedded_model_path, models_dir
from reader.answer.setup import server_timeouts
from reader.config import load_settings, save_settings


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
        self.model = QLineEdit(str(settings.get("model") or ""))
        embedded = embedded_model_path()
        self.model.setPlaceholderText(
            f"Embedded default ({embedded.name})" if embedded else "No model installed"
        )
        browse = QPushButton("&Browse…")
        browse.clicked.connect(self._browse)
        default = QPushButton("&Use embedded default")
        default.clicked.connect(lambda: self.model.setText(""))
        model_row = QHBoxLayout()
        model_row.addWidget(self.model, 1)
        model_row.addWidget(browse)
        model_row.addWidget(default)
        self.server_url = QLineEdit(str(settings.get("server_url") or ""))
        self.server_url.setPlaceholderText("e.g. http://gpu-box:8080 (empty: run locally)")
        self.model_name = QLineEdit(str(settings.get("model_name") or ""))
        self.threads = QSpinBox()
        self.threads.setRange(0, 64)
        self.threads.setSpecialValueText("automatic")
        self.threads.setValue(int(settings.get("threads") or 0))  # type: ignore[call-overload]
        self.context = QSpinBox()
        self.context.setRange(1024, 131072)
        self.context.setSingleStep(1024)
        self.context.setValue(int(settings.get("context_size") or 4096))  # type: ignore[call-overload]
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
        self.mode = QComboBox()
        self.mode.addItems(["auto", "constrained", "free", "passages"])
        self.mode.setCurrentText(str(settings.get("mode") or "auto"))
        form = QFormLayout(self)
        form.addRow("&Model file:", model_row)
        form.addRow("&Server URL:", self.server_url)
        form.addRow("Server model &name:", self.model_name)
        form.addRow("Server c&onnect timeout:", self.connect_timeout)
        form.addRow("Server &first-token timeout:", self.first_token_timeout)
        form.addRow("Server timeout bet&ween tokens:", self.between_tokens_timeout)
        form.addRow("&Threads:", self.threads)
        form.addRow("&Context size:", self.context)
        form.addRow("&Quoting:", self.mode)
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel
        )
        buttons.accepted.connect(self.save)
        buttons.rejected.connect(self.reject)
        form.addRow(buttons)

    def _browse(self) -> None:
        path, _ = QFileDialog.getOpenFileName(
            self, "Choose a GGUF model", str(models_dir()), "GGUF models (*.gguf)"
        )
        if path:
            self.model.setText(path)

    def save(self) -> None:
        save_settings(
            {
                "model": self.model.text().strip() or None,
                "server_url": self.server_url.text().strip() or None,
                "model_name": self.model_name.text().strip() or None,
                "server_connect_timeout": self.connect_timeout.value(),
                "server_first_token_timeout": self.first_token_timeout.value(),
                "server_between_tokens_timeout": self.between_tokens_timeout.value(),
                "threads": self.threads.value() or None,
                "context_size": self.context.value(),
                "mode": self.mode.currentText(),
            }
        )
        setup.forget_backends()
        self.accept()
