"""The window with a damaged library: it says so, offers the repair, and reopens the result."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication, QMessageBox

from reader.library import Library
from reader.store import file_guard
from reader.ui.repair import REPAIR_BUTTON
from tests.damage import ESSAY, library_of_two_documents, overwrite_pages


def test_damage_met_in_a_session_offers_a_repair_that_reopens_the_library(qtbot, tmp_path):
    from reader.ui.main_window import MainWindow

    library = library_of_two_documents(tmp_path)
    path = Path(library["path"])  # type: ignore[arg-type]
    overwrite_pages(path, library["essay_pages"][3:5])  # type: ignore[index]
    file_guard.mark_healthy(path)  # the damage happened after the last check: the window opens
    window = MainWindow(database=path)
    qtbot.addWidget(window)
    window.show()
    documents = window.library_panel.documents
    items = {documents.item(n).text(): documents.item(n) for n in range(2)}
    essay = next(item for title, item in items.items() if "essay" in title)

    documents.itemClicked.emit(essay)  # reading the damaged text fails in the slot

    assert window.message.isVisible()
    assert "is damaged" in window.message.label.text()
    assert window.message.action.isVisible() and window.message.action.text() == REPAIR_BUTTON
    with qtbot.waitSignal(window.library_repaired, timeout=60_000) as repaired:
        window.message.action.click()
    report = repaired.args[0]
    assert report.reextracted == ["essay"] and report.lost == []
    assert "Repaired the library" in window.message.label.text()
    assert window.central.isEnabled()
    assert window.library_panel.documents.count() == 2
    assert window.library.document(str(library["essay_id"])).text == ESSAY
    window.close()


def test_a_library_found_damaged_at_start_up_is_repaired_before_the_window_opens(
    qtbot, tmp_path, reader_home
):
    from reader.ui.app import open_window

    library = library_of_two_documents(tmp_path)
    overwrite_pages(Path(library["path"]), library["essay_pages"][3:5])  # type: ignore[arg-type,index]
    texts: list[str] = []

    def answer_dialogs() -> None:
        box = QApplication.activeModalWidget()
        if isinstance(box, QMessageBox):
            texts.append(box.text())
            repair = [b for b in box.buttons() if b.text() == REPAIR_BUTTON]
            (repair[0] if repair else box.buttons()[0]).click()
        if len(texts) < 2:
            QTimer.singleShot(50, answer_dialogs)

    QTimer.singleShot(50, answer_dialogs)
    window = open_window([])
    qtbot.addWidget(window)

    assert "is damaged" in texts[0]
    assert "Repaired the library" in texts[1] and "1 re-read from their files" in texts[1]
    assert window.library_panel.documents.count() == 2
    with Library() as reopened:
        assert reopened.document(str(library["essay_id"])).text == ESSAY
    window.close()
