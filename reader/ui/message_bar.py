"""The message bar: one place where any part of the window reports a problem or a notice."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QHBoxLayout,
    QPushButton,
    QWidget,
)

from reader.text.escaping import one_line
from reader.ui.labels import plain_label


class MessageBar(QWidget):
    """One place where any part of the window reports a problem or a notice."""

    def __init__(self) -> None:
        super().__init__()
        layout = QHBoxLayout(self)
        layout.setContentsMargins(6, 2, 6, 2)
        self.label = plain_label()
        self.label.setWordWrap(True)
        self.label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.action = QPushButton()
        self.action.hide()
        self._action_slot: Callable[[], Any] | None = None
        self.action.clicked.connect(self._on_action)
        close = QPushButton("Dismiss")
        close.clicked.connect(self.hide)
        layout.addWidget(self.label, 1)
        layout.addWidget(self.action)
        layout.addWidget(close)
        self.hide()

    def show_message(
        self,
        text: str,
        error: bool = True,
        action: tuple[str, Callable[[], Any]] | None = None,
    ) -> None:
        """Show ``text``; ``action`` adds a button (label, slot) that does what it suggests."""
        color = "#c0392b" if error else "#2471a3"
        self.label.setStyleSheet(f"color: {color}")
        self.label.setText(one_line(text))
        self._action_slot = action[1] if action else None
        self.action.setText(action[0] if action else "")
        self.action.setVisible(action is not None)
        self.show()

    def _on_action(self) -> None:
        slot = self._action_slot
        self.hide()
        if slot is not None:
            slot()
