"""Repairing a damaged library from the window: the same repair as ``reader repair``.

At start-up a damaged library gets a dialog offering the repair before the
main window opens; during a session, File > Repair library… (and the button
the message bar shows with a damage error) runs it in the background.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import QEventLoop, Qt
from PySide6.QtWidgets import QMessageBox, QProgressDialog, QWidget

from reader.errors import Cancelled, LibraryDamagedError, ReaderError
from reader.library.repair import RepairReport, repair_library
from reader.text.escaping import one_line
from reader.ui.labels import plain_label
from reader.ui.workers import Workers

REPAIR_BUTTON = "Repair library"


def repair_work(database: Path) -> Callable[[Callable[[Any], None], threading.Event], Any]:
    """The repair as a background task: progress steps as text, cancellable between steps."""

    def work(report: Callable[[Any], None], cancel: threading.Event) -> RepairReport:
        def progress(step: str) -> None:
            if cancel.is_set():
                raise Cancelled("Repair cancelled; the library is as it was.")
            report(step)

        return repair_library(database, progress)

    return work


def offer_repair(parent: QWidget | None, error: LibraryDamagedError, database: Path) -> bool:
    """Ask whether to repair a library found damaged at start-up, and repair it if so.

    Returns whether the library was repaired (the window can then open it).
    """
    box = QMessageBox(parent)
    box.setIcon(QMessageBox.Icon.Warning)
    box.setWindowTitle("The library is damaged")
    box.setTextFormat(Qt.TextFormat.PlainText)
    box.setText(str(error))
    box.setInformativeText(
        "Repair rebuilds it from what is still readable and from your documents' files, "
        "keeps the damaged file beside it, and says what was lost."
    )
    repair = box.addButton(REPAIR_BUTTON, QMessageBox.ButtonRole.AcceptRole)
    box.addButton(QMessageBox.StandardButton.Cancel)
    box.exec()
    if box.clickedButton() is not repair:
        return False
    report, failure = _run_with_progress(parent, database)
    result = QMessageBox(parent)
    result.setTextFormat(Qt.TextFormat.PlainText)
    if report is None:
        result.setIcon(QMessageBox.Icon.Critical)
        result.setText(failure)
    else:
        result.setIcon(QMessageBox.Icon.Information)
        result.setText("\n".join(report.lines()))
    result.exec()
    return report is not None


def _run_with_progress(parent: QWidget | None, database: Path) -> tuple[RepairReport | None, str]:
    workers = Workers()
    dialog = QProgressDialog("", "Cancel", 0, 0, parent)
    dialog.setLabel(plain_label("Repairing the library…"))  # steps name document titles
    dialog.setWindowTitle("Repairing the library")
    dialog.setMinimumDuration(0)
    outcome: dict[str, Any] = {"report": None, "failure": ""}
    loop = QEventLoop()

    def done(report: RepairReport) -> None:
        outcome["report"] = report
        loop.quit()

    def failed(error: ReaderError) -> None:
        outcome["failure"] = str(error)
        loop.quit()

    def cancelled() -> None:
        outcome["failure"] = "Repair cancelled; the library is as it was."
        loop.quit()

    task = workers.submit(
        workers.documents,
        repair_work(database),
        on_done=done,
        on_failed=failed,
        on_progress=lambda step: dialog.setLabelText(f"Repairing the library: {one_line(step)}"),
        on_cancelled=cancelled,
    )
    dialog.canceled.connect(task.cancel)
    dialog.show()
    loop.exec()
    dialog.close()
    workers.shutdown()
    return outcome["report"], outcome["failure"]
