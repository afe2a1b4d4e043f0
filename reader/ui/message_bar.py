"""The message bar: where the window shows what ``reader.ui.messages`` carries."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QHBoxLayout,
    QPushButton,
    QWidget,
)

from reader.text.escaping import one_line
from reader.ui import messages
from reader.ui.labels import plain_label
from reader.ui.messages import Message
from reader.ui.repair import REPAIR_BUTTON

# A warning is drawn as a notice: nothing failed, so it does not take the error's red.
COLORS = {"error": "#c0392b", "warning": "#2471a3", "info": "#2471a3"}


class MessageBar(QWidget):
    """One place where any part of the window reports a problem or a notice: it draws
    every message posted through ``reader.ui.messages``, the latest replacing the last."""

    repair_requested = Signal()  # the Repair button a damaged library's error offers

    def __init__(self) -> None:
        super().__init__()
        layout = QHBoxLayout(self)
        layout.setContentsMargins(6, 2, 6, 2)
        self.label = plain_label()
        self.label.setWordWrap(True)
        self.label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.action = QPushButton(REPAIR_BUTTON)
        self.action.hide()
        self.action.clicked.connect(self._on_action)
        close = QPushButton("Dismiss")
        close.clicked.connect(self.hide)
        layout.addWidget(self.label, 1)
        layout.addWidget(self.action)
        layout.addWidget(close)
        self.hide()
        messages.hub().posted.connect(self.show_message)

    def show_message(self, message: Message) -> None:
        """Show ``message``'s text as literal text, on one line; one that offers the
        repair gets its button."""
        self.label.setStyleSheet(f"color: {COLORS[message.level]}")
        self.label.setText(one_line(message.text))
        self.action.setVisible(message.offers_repair)
        self.show()

    def _on_action(self) -> None:
        self.hide()
        self.repair_requested.emit()
