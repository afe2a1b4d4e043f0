"""Repairing a damaged library from the window: the same repair as ``reader repair``.

At start-up a damaged library gets a dialog offering the repair before the
main window opens; during a session, File > Repair library… (and the button
the message bar shows with a damage error) runs it in the background.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import QEventLoop, Qt
from PySide6.QtWidgets import QMessageBox, QWidget

from reader.errors import LibraryDamagedError, ReaderError
from reader.library.repair import RepairReport, repair_library
from reader.text.escaping import one_line
from reader.ui.library_op import LibraryOp
from reader.ui.progress import ProgressDialog
from reader.ui.workers import Job, Workers

REPAIR_BUTTON = "Repair library"
REPAIR_CANCELLED = "Repair cancelled; the library is as it was."


def run_repair(job: Job) -> RepairReport:
    """The repair as background work: progress steps as text, cancellable between steps.

    It never opens ``job.library``: the library it would open is the damaged file."""

    def progress(step: str) -> None:
        job.stop_if_cancelled(REPAIR_CANCELLED)
        job.report(step)

    return repair_library(job.database, progress)


def repair_step(step: str) -> str:
    """A repair's progress step as the line shown for it (steps name document titles)."""
    return f"Repairing the library: {one_line(step)}"


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
    workers = Workers(database)
    dialog = ProgressDialog(parent, "Repairing the library")
    outcome: dict[str, Any] = {"report": None, "failure": ""}
    loop = QEventLoop()

    def done(report: RepairReport) -> None:
        outcome["report"] = report
        loop.quit()

    def failed(error: ReaderError) -> None:
        outcome["failure"] = str(error)
        loop.quit()

    def cancelled() -> None:
        outcome["failure"] = REPAIR_CANCELLED
        loop.quit()

    (
        LibraryOp(parent, workers, op=run_repair, success=done)
        .failure(failed)
        .on_cancelled(cancelled)
        .on_progress(lambda step: dialog.show_step(repair_step(step)))
        .with_progress("Repairing the library…", dialog)
        .run_in_background()
    )
    loop.exec()
    workers.shutdown()
    return outcome["report"], outcome["failure"]
