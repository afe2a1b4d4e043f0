"""Where long work shows how far it is, with a Cancel button when it can stop.

``ProgressStrip`` is a label, a bar and a Cancel button inside a panel (the
library column's, for ingest and repair); ``ProgressDialog`` is the same in a
dialog of its own, for work with no panel to show it (a repair at start-up).
Both show the text as literal text: it names files and document titles.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from PySide6.QtWidgets import QProgressBar, QProgressDialog, QPushButton, QVBoxLayout, QWidget

from reader.ui.labels import plain_label

Cancel = Callable[[], None]


class ProgressView(Protocol):
    """What ``LibraryOp.with_progress`` shows its work in."""

    def begin(self, label: str, cancel: Cancel | None) -> None:
        """Show ``label`` and a busy bar; a Cancel button calling ``cancel`` if given."""

    def show_step(self, text: str, done: int | None = None, total: int | None = None) -> None:
        """Show ``text``; with ``total``, the bar counts ``done`` of it."""

    def end(self) -> None:
        """Stop showing the work."""


class ProgressStrip(QWidget):
    def __init__(self, cancel_text: str = "Cancel") -> None:
        super().__init__()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.label = plain_label()
        self.bar = QProgressBar()
        self.cancel_button = QPushButton(cancel_text)
        self.cancel_button.clicked.connect(self._on_cancel)
        self._cancel: Cancel | None = None
        layout.addWidget(self.label)
        layout.addWidget(self.bar)
        layout.addWidget(self.cancel_button)
        self.end()

    def begin(self, label: str, cancel: Cancel | None) -> None:
        self._cancel = cancel
        self.label.setText(label)
        self.label.show()
        self.bar.setRange(0, 0)
        self.bar.show()
        self.cancel_button.setVisible(cancel is not None)
        self.show()

    def show_step(self, text: str, done: int | None = None, total: int | None = None) -> None:
        if total is not None:
            self.bar.setRange(0, total)
            self.bar.setValue(done or 0)
        self.label.setText(text)

    def end(self) -> None:
        # The bar keeps its last count: what was done stays readable after the end.
        self._cancel = None
        self.label.hide()
        self.bar.hide()
        self.cancel_button.hide()
        self.hide()

    def _on_cancel(self) -> None:
        if self._cancel is not None:
            self._cancel()


class ProgressDialog:
    """A progress dialog, opened by ``begin`` and closed by ``end``."""

    def __init__(self, parent: QWidget | None, title: str) -> None:
        self.dialog = QProgressDialog("", "Cancel", 0, 0, parent)
        self.dialog.setWindowTitle(title)
        self.dialog.setMinimumDuration(0)
        self.dialog.canceled.connect(self._on_cancel)
        self._cancel: Cancel | None = None

    def begin(self, label: str, cancel: Cancel | None) -> None:
        self._cancel = cancel
        self.dialog.setLabel(plain_label(label))  # the label names document titles
        if cancel is None:
            self.dialog.setCancelButton(None)
        self.dialog.show()

    def show_step(self, text: str, done: int | None = None, total: int | None = None) -> None:
        if total is not None:
            self.dialog.setRange(0, total)
            self.dialog.setValue(done or 0)
        self.dialog.setLabelText(text)

    def end(self) -> None:
        self._cancel = None  # closing the dialog reports a cancel: the work is over
        self.dialog.close()

    def _on_cancel(self) -> None:
        if self._cancel is not None:
            self._cancel()
