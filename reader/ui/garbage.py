"""Python's cyclic garbage collector, run on the GUI thread only.

Python collects reference cycles on whichever thread allocates when a
threshold is crossed. In the window that can be a worker thread reading a PDF,
and the collection then finalises objects that belong to the GUI thread: Qt
widgets and signals, the page view's PyMuPDF document and pixmaps. Neither Qt
nor PyMuPDF allows that, and the process dies (a segmentation fault while a
worker thread ingested a file and collected). So while the window's workers
exist, automatic collection is off, and a timer on the GUI thread collects
whatever generations are due, as the collector would have.
"""

from __future__ import annotations

import gc

from PySide6.QtCore import QCoreApplication, QObject, QTimer

# How often the GUI thread looks whether a collection is due.
INTERVAL_MS = 500
_NAME = "reader-gui-thread-collector"


class GuiThreadCollector(QObject):
    """Collects on its own (the GUI) thread the generations past their thresholds,
    while anything holds it; automatic collection is off meanwhile."""

    def __init__(self, parent: QObject) -> None:
        super().__init__(parent)
        self.setObjectName(_NAME)
        self.thresholds = gc.get_threshold()
        self._holders = 0
        self._was_enabled = gc.isenabled()
        self._timer = QTimer(self)
        self._timer.timeout.connect(self.collect_due)

    def hold(self) -> None:
        """Collect here from now on, until every ``hold`` is released."""
        if self._holders == 0:
            self._was_enabled = gc.isenabled()
            gc.disable()
            self._timer.start(INTERVAL_MS)
        self._holders += 1

    def release(self) -> None:
        """One holder less; with none left, Python collects as it did before."""
        self._holders -= 1
        if self._holders == 0:
            self._timer.stop()
            if self._was_enabled:
                gc.enable()

    def collect_due(self) -> int:
        """Collect the oldest generation whose count is past its threshold; the
        number of objects found unreachable."""
        counts = gc.get_count()
        due = [g for g in range(3) if counts[g] > self.thresholds[g]]
        return gc.collect(due[-1]) if due else 0


def collect_on_gui_thread() -> GuiThreadCollector:
    """The application's collector, made on first call (on the GUI thread)."""
    app = QCoreApplication.instance()
    assert app is not None, "a QApplication must exist first"
    existing = app.findChild(GuiThreadCollector, _NAME)
    return existing if existing is not None else GuiThreadCollector(app)
