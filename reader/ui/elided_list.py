"""A list whose long lines end in "…" at its width, never behind a sideways scroll."""

from __future__ import annotations

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, QSize, Qt
from PySide6.QtWidgets import QListView, QListWidget, QStyledItemDelegate, QStyleOptionViewItem


class _ViewWidthDelegate(QStyledItemDelegate):
    """Asks for no more width than the view shows, so the style elides each line."""

    def __init__(self, view: QListView) -> None:
        super().__init__(view)
        self.view = view

    def sizeHint(
        self, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex
    ) -> QSize:
        hint = super().sizeHint(option, index)
        return QSize(min(hint.width(), self.view.viewport().width()), hint.height())


def elide_to_width(view: QListWidget) -> None:
    """Make ``view`` elide its items' lines at its width (the tooltip should say them
    whole) and lay them out again whenever that width changes."""
    view.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
    view.setTextElideMode(Qt.TextElideMode.ElideRight)
    view.setResizeMode(QListView.ResizeMode.Adjust)
    view.setItemDelegate(_ViewWidthDelegate(view))
