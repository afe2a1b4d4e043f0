"""Labels that show their text literally.

A QLabel guesses whether its text is rich text, so a document title or a
server's error holding ``<a href=…>`` or ``<img src=…>`` would draw a link or
an image. Every label in the window is made here, as plain text.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel


def plain_label(text: str = "", bold: bool = False) -> QLabel:
    """A QLabel that never interprets its text as markup."""
    label = QLabel()
    label.setTextFormat(Qt.TextFormat.PlainText)
    label.setText(text)
    if bold:
        font = label.font()
        font.setBold(True)
        label.setFont(font)
    return label
