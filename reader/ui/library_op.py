"""``LibraryOp``: the one way the window runs work off the GUI thread.

    LibraryOp(panel, workers, op=lambda job: job.library.answer(answer_id),
              success=show).failure(say_so).run_in_background()

``op`` runs on a worker thread with a ``Job``: ``job.library`` is a library
opened for that thread on first use and closed when ``op`` returns (SQLite
connections and PyMuPDF documents never cross threads; a repair, which must
not open the damaged file, never asks for it), ``job.report(value)`` sends
progress to the ``on_progress`` callback, and ``job.cancel_event`` and
``job.stop_if_cancelled`` hear a cancel, which ends the op by raising
``reader.errors.Cancelled``. ``success``, ``failure``, ``on_progress`` and
``on_cancelled`` run on the GUI thread; without ``failure`` an error goes to
the message bar. ``with_progress`` shows the op running, with a Cancel button.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Generic, TypeVar

from PySide6.QtWidgets import QWidget

from reader.errors import ReaderError
from reader.ui import messages
from reader.ui.progress import ProgressDialog, ProgressView
from reader.ui.workers import Job, Task, Workers

Result = TypeVar("Result")


class LibraryOp(Generic[Result]):
    def __init__(
        self,
        parent: QWidget | None,
        workers: Workers,
        op: Callable[[Job], Result],
        success: Callable[[Result], None],
    ) -> None:
        self.parent = parent  # what a progress dialog opens over
        self.workers = workers
        self.op = op
        self.success = success
        self._failure: Callable[[ReaderError], None] = messages.report
        self._cancelled: Callable[[], None] | None = None
        self._progress: Callable[[Any], None] | None = None
        self._view: ProgressView | None = None
        self._view_label = ""
        self._cancellable = True
        self._on_model_thread = False

    def failure(self, callback: Callable[[ReaderError], None]) -> LibraryOp[Result]:
        """Call ``callback`` with the error instead of showing it in the message bar."""
        self._failure = callback
        return self

    def on_cancelled(self, callback: Callable[[], None]) -> LibraryOp[Result]:
        """Call ``callback`` when the op ends by a cancel."""
        self._cancelled = callback
        return self

    def on_progress(self, callback: Callable[[Any], None]) -> LibraryOp[Result]:
        """Call ``callback`` with each value the op reports."""
        self._progress = callback
        return self

    def with_progress(
        self, label: str, view: ProgressView | None = None, cancellable: bool = True
    ) -> LibraryOp[Result]:
        """Show ``label`` and a busy bar while the op runs, with a Cancel button unless
        ``cancellable`` is False: in ``view``, or in a progress dialog of its own."""
        self._view = view or ProgressDialog(self.parent, label.rstrip("…"))
        self._view_label = label
        self._cancellable = cancellable
        return self

    def on_model_thread(self) -> LibraryOp[Result]:
        """Run on the language model's thread, so the documents' thread (ingest, pages)
        stays free while a model answers."""
        self._on_model_thread = True
        return self

    def run_in_background(self) -> Task:
        task = self.workers.task(self.op)
        view = self._view
        if view is not None:
            view.begin(self._view_label, task.cancel if self._cancellable else None)

        def ended() -> None:
            if view is not None:
                view.end()

        def done(result: Result) -> None:
            ended()
            self.success(result)

        def failed(error: ReaderError) -> None:
            ended()
            self._failure(error)

        def cancelled() -> None:
            ended()
            if self._cancelled is not None:
                self._cancelled()

        if self._progress is not None:
            task.signals.progress.connect(self._progress)
        task.signals.done.connect(done)
        task.signals.failed.connect(failed)
        task.signals.cancelled.connect(cancelled)
        pool = self.workers.model if self._on_model_thread else self.workers.documents
        pool.start(task)
        return task
