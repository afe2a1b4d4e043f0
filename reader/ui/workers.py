"""Long work off the GUI thread, with progress, cancel and errors on the GUI thread.

Two single-thread pools: one for everything that touches PyMuPDF (ingest and
page rendering, because PyMuPDF must not be used from two threads at once),
one for the language model. A task gets a ``report`` function for progress and
a ``cancel`` event; its result or error comes back as a Qt signal, delivered on
the GUI thread. Tasks open their own library connection from a path: SQLite
connections never cross threads.
"""

from __future__ import annotations

import threading
import traceback
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, QRunnable, QThreadPool, Signal

from reader.errors import Cancelled, ReaderError


class _Signals(QObject):
    progress = Signal(object)
    done = Signal(object)
    failed = Signal(object)  # the ReaderError, whose str() is the user's message
    cancelled = Signal()


class Task(QRunnable):
    """``function(report, cancel)`` run on a pool thread."""

    def __init__(self, function: Callable[[Callable[[Any], None], threading.Event], Any]):
        super().__init__()
        self.setAutoDelete(False)
        self.function = function
        self.cancel_event = threading.Event()
        self.signals = _Signals()
        self.running = True

    def cancel(self) -> None:
        self.cancel_event.set()

    def run(self) -> None:
        try:
            result = self.function(self.signals.progress.emit, self.cancel_event)
        except Cancelled:
            self.running = False
            self.signals.cancelled.emit()
        except ReaderError as error:
            self.running = False
            self.signals.failed.emit(error)
        except Exception as error:  # a bug: say so in one line, keep the details in the log
            traceback.print_exc()
            self.running = False
            self.signals.failed.emit(
                ReaderError(f"Unexpected error: {type(error).__name__}: {error}")
            )
        else:
            self.running = False
            self.signals.done.emit(result)


class Workers:
    """The two pools and the tasks in flight (kept alive until they finish)."""

    def __init__(self) -> None:
        self.documents = QThreadPool()
        self.documents.setMaxThreadCount(1)
        self.documents.setExpiryTimeout(-1)
        self.model = QThreadPool()
        self.model.setMaxThreadCount(1)
        self.model.setExpiryTimeout(-1)
        self._tasks: set[Task] = set()

    def submit(
        self,
        pool: QThreadPool,
        function: Callable[[Callable[[Any], None], threading.Event], Any],
        on_done: Callable[[Any], None] | None = None,
        on_failed: Callable[[ReaderError], None] | None = None,
        on_progress: Callable[[Any], None] | None = None,
        on_cancelled: Callable[[], None] | None = None,
    ) -> Task:
        task = Task(function)
        if on_progress is not None:
            task.signals.progress.connect(on_progress)
        for signal in (task.signals.done, task.signals.failed, task.signals.cancelled):
            signal.connect(lambda *_args, t=task: self._tasks.discard(t))
        if on_done is not None:
            task.signals.done.connect(on_done)
        if on_failed is not None:
            task.signals.failed.connect(on_failed)
        if on_cancelled is not None:
            task.signals.cancelled.connect(on_cancelled)
        self._tasks.add(task)
        pool.start(task)
        return task

    def busy(self) -> bool:
        return bool(self._tasks)

    def shutdown(self) -> None:
        for task in list(self._tasks):
            task.cancel()
        self.documents.waitForDone(10_000)
        self.model.waitForDone(10_000)
