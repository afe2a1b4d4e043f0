"""The threads background work runs on, and one piece of that work as it runs.

Two single-thread pools: one for everything that touches PyMuPDF (ingest and
page rendering, because PyMuPDF must not be used from two threads at once),
one for the language model. Work is started through ``reader.ui.library_op``;
here is what runs it: a ``Task`` calls the work with a ``Job`` (the library
opened for the worker thread, progress and cancel) and sends its result or
error back as a Qt signal, delivered on the GUI thread. SQLite connections
never cross threads: each job opens its own library from the path and closes
it when the work ends.
"""

from __future__ import annotations

import threading
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, QRunnable, QThreadPool, Signal

from reader.errors import Cancelled, ReaderError
from reader.library import Library
from reader.ui.garbage import GuiThreadCollector, collect_on_gui_thread


class Job:
    """What background work is given on its thread: the library, progress and cancel."""

    def __init__(
        self, database: Path, report: Callable[[Any], None], cancel_event: threading.Event
    ) -> None:
        self.database = database
        self.report = report  # progress for the GUI thread, in whatever form the work has
        self.cancel_event = cancel_event
        self._library: Library | None = None

    @property
    def library(self) -> Library:
        """The library opened for this thread, on first use: work that must not open
        it (repairing the file it would open, say) never asks."""
        if self._library is None:
            self._library = Library(self.database)
        return self._library

    def stop_if_cancelled(self, message: str) -> None:
        """Raise ``Cancelled`` with ``message`` once the user has asked to cancel."""
        if self.cancel_event.is_set():
            raise Cancelled(message)

    def close(self) -> None:
        if self._library is not None:
            self._library.close()
            self._library = None


class _Signals(QObject):
    progress = Signal(object)
    done = Signal(object)
    failed = Signal(object)  # the ReaderError, whose str() is the user's message
    cancelled = Signal()


class Task(QRunnable):
    """``work(job)`` run on a pool thread."""

    def __init__(self, database: Path, work: Callable[[Job], Any]) -> None:
        super().__init__()
        self.setAutoDelete(False)
        self.database = database
        self.work = work
        self.cancel_event = threading.Event()
        self.signals = _Signals()
        self.running = True

    def cancel(self) -> None:
        self.cancel_event.set()

    def run(self) -> None:
        # The work's own library is closed before anyone hears that it ended: what
        # follows on the GUI thread (a repair, a test) finds no connection open.
        job = Job(self.database, self.signals.progress.emit, self.cancel_event)
        try:
            outcome = self._outcome(job)
        finally:
            job.close()
        self.running = False
        outcome()

    def _outcome(self, job: Job) -> Callable[[], None]:
        """Run the work; how its ending is to be told."""
        try:
            result = self.work(job)
        except Cancelled:
            return self.signals.cancelled.emit
        except ReaderError as error:
            refused = error  # ``error`` is unbound once the except block ends
            return lambda: self.signals.failed.emit(refused)
        except Exception as error:  # a bug: say so in one line, keep the details in the log
            traceback.print_exc()
            failure = ReaderError(f"Unexpected error: {type(error).__name__}: {error}")
            return lambda: self.signals.failed.emit(failure)
        return lambda: self.signals.done.emit(result)


class Workers:
    """The library's path, the two pools, and the tasks in flight (kept alive until
    they finish)."""

    def __init__(self, database: Path) -> None:
        self.database = database
        # Before any worker thread runs: cycles are collected on the GUI thread only.
        self._collector: GuiThreadCollector | None = collect_on_gui_thread()
        self._collector.hold()
        self.documents = QThreadPool()
        self.documents.setMaxThreadCount(1)
        self.documents.setExpiryTimeout(-1)
        self.model = QThreadPool()
        self.model.setMaxThreadCount(1)
        self.model.setExpiryTimeout(-1)
        self._tasks: set[Task] = set()

    def task(self, work: Callable[[Job], Any]) -> Task:
        """A task for ``work``, in flight from now on: it leaves before anything else
        connected to its ending hears of it, so they find the workers free."""
        task = Task(self.database, work)
        for signal in (task.signals.done, task.signals.failed, task.signals.cancelled):
            signal.connect(lambda *_args, t=task: self._tasks.discard(t))
        self._tasks.add(task)
        return task

    def busy(self) -> bool:
        return bool(self._tasks)

    def shutdown(self) -> None:
        for task in list(self._tasks):
            task.cancel()
        self.documents.waitForDone(10_000)
        self.model.waitForDone(10_000)
        if self._collector is not None:  # once, though a window may be shut down twice
            self._collector.release()
            self._collector = None
