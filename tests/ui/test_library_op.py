"""LibraryOp runs the window's background work; reader.ui.messages carries what the
window tells the user to the message bar."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

import reader.ui.workers
from reader.errors import LibraryDamagedError, ReaderError
from reader.library import Library
from reader.ui import messages
from reader.ui.library_op import LibraryOp
from reader.ui.message_bar import MessageBar
from reader.ui.progress import ProgressDialog, ProgressStrip
from reader.ui.repair import REPAIR_BUTTON
from reader.ui.workers import Job, Workers

pytestmark = pytest.mark.gui


OPENED: list[RecordedLibrary] = []


class RecordedLibrary(Library):
    """A library that notes the thread it was opened on and whether it was closed."""

    def __init__(self, path: Path) -> None:
        super().__init__(path)
        self.thread = threading.current_thread()
        self.closed = False
        OPENED.append(self)

    def close(self) -> None:
        self.closed = True
        super().close()


@pytest.fixture
def workers(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    OPENED.clear()
    monkeypatch.setattr(reader.ui.workers, "Library", RecordedLibrary)
    pool = Workers(tmp_path / "library.db")
    yield pool
    pool.shutdown()


def test_the_op_gets_a_library_opened_on_its_thread_and_closed_after(qtbot, workers):
    results: list[object] = []
    task = LibraryOp(
        None, workers, op=lambda job: job.library.documents(), success=results.append
    ).run_in_background()
    qtbot.waitUntil(lambda: bool(results), timeout=10_000)
    assert results == [[]] and not task.running and not workers.busy()
    [library] = OPENED
    assert library.thread is not threading.main_thread() and library.closed


def test_an_op_that_never_reads_the_library_opens_none(qtbot, workers):
    results: list[object] = []
    LibraryOp(
        None, workers, op=lambda job: job.database, success=results.append
    ).run_in_background()
    qtbot.waitUntil(lambda: bool(results), timeout=10_000)
    assert results == [workers.database] and OPENED == []


def test_a_cancel_ends_the_op_and_hides_its_progress(qtbot, workers):
    strip = ProgressStrip()
    qtbot.addWidget(strip)
    strip.show()
    started = threading.Event()
    outcome: list[str] = []
    reports: list[object] = []

    def wait_for_cancel(job: Job) -> None:
        job.report("waiting")
        started.set()
        while True:
            job.stop_if_cancelled("Stopped.")
            job.cancel_event.wait(0.01)

    task = (
        LibraryOp(None, workers, op=wait_for_cancel, success=lambda _: outcome.append("done"))
        .failure(lambda error: outcome.append(f"failed: {error}"))
        .on_cancelled(lambda: outcome.append("cancelled"))
        .on_progress(reports.append)
        .with_progress("Waiting…", strip)
        .run_in_background()
    )
    assert strip.label.text() == "Waiting…" and strip.cancel_button.isVisible()
    assert started.wait(10)
    strip.cancel_button.click()
    qtbot.waitUntil(lambda: bool(outcome), timeout=10_000)
    assert outcome == ["cancelled"] and reports == ["waiting"]
    assert task.cancel_event.is_set() and not strip.isVisible()


def test_without_a_failure_callback_the_error_goes_to_the_message_bar(qtbot, workers):
    bar = MessageBar()
    qtbot.addWidget(bar)

    def fail(job: Job) -> None:
        raise ReaderError("<b>not bold</b>\nand on one line")

    LibraryOp(None, workers, op=fail, success=lambda _: None).run_in_background()
    qtbot.waitUntil(bar.isVisible, timeout=10_000)
    assert bar.label.text() == "<b>not bold</b> and on one line"
    assert not bar.action.isVisible()


def test_a_bug_in_an_op_is_reported_in_one_line(qtbot, workers):
    errors: list[ReaderError] = []
    LibraryOp(None, workers, op=lambda job: 1 // 0, success=lambda _: None).failure(
        errors.append
    ).run_in_background()
    qtbot.waitUntil(lambda: bool(errors), timeout=10_000)
    assert str(errors[0]).startswith("Unexpected error: ZeroDivisionError")


def test_progress_without_a_view_opens_a_dialog_and_closes_it(qtbot, workers, monkeypatch):
    dialogs: list[ProgressDialog] = []
    real_init = ProgressDialog.__init__

    def recording_init(self, parent, title):
        real_init(self, parent, title)
        dialogs.append(self)

    monkeypatch.setattr(ProgressDialog, "__init__", recording_init)
    results: list[object] = []
    LibraryOp(None, workers, op=lambda job: 7, success=results.append).with_progress(
        "Counting…"
    ).run_in_background()
    [dialog] = dialogs
    assert dialog.dialog.windowTitle() == "Counting" and dialog.dialog.isVisible()
    qtbot.waitUntil(lambda: bool(results), timeout=10_000)
    assert results == [7] and not dialog.dialog.isVisible()


def test_messages_are_drawn_by_the_bar_and_a_damaged_library_offers_repair(qtbot):
    bar = MessageBar()
    qtbot.addWidget(bar)
    messages.info("Added 3 documents.")
    assert bar.isVisible() and bar.label.text() == "Added 3 documents."
    assert "#2471a3" in bar.label.styleSheet() and not bar.action.isVisible()
    messages.error("It failed.")
    assert "#c0392b" in bar.label.styleSheet()
    messages.report(LibraryDamagedError("The library is damaged."))
    assert bar.action.isVisible() and bar.action.text() == REPAIR_BUTTON
    with qtbot.waitSignal(bar.repair_requested, timeout=1_000):
        bar.action.click()
    assert not bar.isVisible()
