"""The window's Add folder: the same walk as ``reader ingest FOLDER``, with progress
and a cancel that keeps what was added."""

from __future__ import annotations

import pytest

from reader.library.batch_report import BatchProgress
from tests.library.test_batch import make_folder
from tests.test_ingest_command import many_pdfs

pytestmark = pytest.mark.gui


def test_add_folder_ingests_every_document_with_progress(window, qtbot, tmp_path, monkeypatch):
    root = make_folder(tmp_path / "library")
    (root / "empty.pdf").write_bytes(b"")
    chosen = []
    monkeypatch.setattr(
        "reader.ui.library_panel.QFileDialog.getExistingDirectory",
        lambda *args: chosen.append(args) or str(root),
    )
    [add_folder] = [a for a in window.actions() if a.text() == "Add &folder…"]
    add_folder.trigger()
    assert chosen and window.library_panel.ingest_task is not None
    task = window.library_panel.ingest_task
    seen: list[BatchProgress] = []
    task.signals.progress.connect(seen.append)
    progress = window.library_panel.progress
    assert progress.cancel_button.isVisible() and progress.bar.isVisible()
    qtbot.waitUntil(lambda: window.library_panel.ingest_task is None, timeout=30_000)
    assert window.library_panel.documents.count() == 4
    text = window.message.label.text()
    assert "Added library: 4 added, 0 unchanged, 1 refused" in text
    assert "empty.pdf is empty" in text
    assert progress.bar.maximum() == 5 and progress.bar.value() == 5
    assert seen and seen[-1].files_done == 5 and seen[-1].pages == 7
    assert not progress.bar.isVisible()


def test_cancel_keeps_the_documents_added_and_says_how_many(window, qtbot, tmp_path):
    folder = many_pdfs(tmp_path / "papers", 30)
    task = window.library_panel.add_folder(folder)
    assert task is not None
    seen: list[BatchProgress] = []
    task.signals.progress.connect(seen.append)
    qtbot.waitUntil(lambda: bool(seen), timeout=30_000)
    progress = window.library_panel.progress
    assert "files," in progress.label.text() and "pages/s" in progress.label.text()
    progress.cancel_button.click()
    qtbot.waitUntil(lambda: window.library_panel.ingest_task is None, timeout=30_000)
    added = window.library_panel.documents.count()
    assert 1 <= added < 30
    assert f"cancelled: {added} documents were added and kept" in window.message.label.text()
    assert len(window.library.documents()) == added
