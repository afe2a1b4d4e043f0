"""Renaming a document in the window's library list: F2 or the list's context menu."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QInputDialog

from tests.ui.test_window import open_document

pytestmark = pytest.mark.gui


def answer_dialog(monkeypatch, title: str, accepted: bool = True) -> list[str]:
    """Answer the rename dialog with ``title``; returns the titles it was opened with."""
    offered: list[str] = []

    def get_text(parent, caption, label, echo, text):
        offered.append(text)
        return title, accepted

    monkeypatch.setattr(QInputDialog, "getText", staticmethod(get_text))
    return offered


def test_f2_renames_the_selected_document_everywhere_in_the_window(
    window, qtbot, make_pdf, monkeypatch
):
    document = open_document(
        window, qtbot, make_pdf([[("Proposed Rules", 20.0), "The toll is four guilders."]])
    )
    assert document.title == "doc"  # "Proposed Rules" is a section's name, not a title
    offered = answer_dialog(monkeypatch, "Harbour Tolls of Leiden")
    window.library_panel.documents.setCurrentRow(0)
    window.library_panel.documents.setFocus()
    qtbot.keyClick(window.library_panel.documents, Qt.Key.Key_F2)
    assert offered == ["doc"]
    assert window.library_panel.documents.item(0).text().startswith("Harbour Tolls of Leiden\n")
    assert window.viewer.title.text().startswith("Harbour Tolls of Leiden — ")
    assert window.windowTitle() == "Harbour Tolls of Leiden — reader"
    assert window.library.document(document.id).title == "Harbour Tolls of Leiden"


def test_the_context_menu_renames_and_an_empty_title_goes_back_to_the_files(
    window, qtbot, make_pdf, monkeypatch
):
    document = open_document(window, qtbot, make_pdf([["The toll is four guilders."]]))
    window.library.rename(document.id, "Harbour Tolls")
    window.library_panel.refresh()
    documents = window.library_panel.documents
    (action,) = [a for a in documents.actions() if a.text() == "Re&name…"]
    assert documents.contextMenuPolicy() == Qt.ContextMenuPolicy.ActionsContextMenu
    documents.setCurrentRow(0)
    answer_dialog(monkeypatch, "   ")
    action.trigger()
    assert documents.item(0).text().startswith("doc\n")
    answer_dialog(monkeypatch, "Never applied", accepted=False)
    action.trigger()
    assert window.library.document(document.id).title == "doc"
    assert len(documents.actions()) == 1  # refreshing the list adds it once
