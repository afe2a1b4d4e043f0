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
        "reader.ui.documents.QFileDialog.getExistingDirectory",
        lambda *args: chosen.append(args) or str(root),
    )
    [add_folder] = [a for a in window.actions() if a.text() == "Add &folder…"]
    add_folder.trigger()
    assert chosen and window.ingest_task is not None
    task = window.ingest_task
    seen: list[BatchProgress] = []
    task.signals.progress.connect(seen.append)
    assert window.ingest_cancel.isVisible() and window.ingest_progress.isVisible()
    qtbot.waitUntil(lambda: window.ingest_task is None, timeout=30_000)
    assert window.documents.count() == 4
    text = window.message.label.text()
    assert "Added library: 4 added, 0 unchanged, 1 refused" in text
    assert "empty.pdf is empty" in text
    assert window.ingest_progress.maximum() == 5 and window.ingest_progress.value() == 5
    assert seen and seen[-1].files_done == 5 and seen[-1].pages == 7
    assert not window.ingest_progress.isVisible()


def test_cancel_keeps_the_documents_added_and_says_how_many(window, qtbot, tmp_path):
    folder = many_pdfs(tmp_path / "papers", 30)
    task = window.add_folder(folder)
    assert task is not None
    seen: list[BatchProgress] = []
    task.signals.progress.connect(seen.append)
    qtbot.waitUntil(lambda: bool(seen), timeout=30_000)
    assert "files," in window.ingest_label.text() and "pages/s" in window.ingest_label.text()
    window.ingest_cancel.click()
    qtbot.waitUntil(lambda: window.ingest_task is None, timeout=30_000)
    added = window.documents.count()
    assert 1 <= added < 30
    assert f"cancelled: {added} documents were added and kept" in window.message.label.text()
    assert len(window.library.documents()) == added
