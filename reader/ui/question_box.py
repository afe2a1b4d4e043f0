"""The question box: a one-line edit that shows the start of its question."""

from __future__ import annotations

from PySide6.QtGui import QFocusEvent
from PySide6.QtWidgets import QLineEdit


class QuestionBox(QLineEdit):
    """A line edit that, when it is not being typed in, shows its question's start.

    A plain QLineEdit puts the cursor after the last character, so a question
    longer than the box is shown by its end and reads as a fragment.
    """

    def setText(self, text: str | None) -> None:
        super().setText(text)
        self.setCursorPosition(0)

    def focusOutEvent(self, event: QFocusEvent) -> None:
        super().focusOutEvent(event)
        self.setCursorPosition(0)
