"""The self-test's window step: the real main window, offscreen, showing an answer
with its first verified claim clicked."""

from __future__ import annotations

import sys
import time
from pathlib import Path

from reader.errors import ReaderError
from reader.records import Answer


def render_answer(
    database: Path, doc_id: str, answer: Answer, timeout: float = 60.0
) -> tuple[int, int]:
    """Show ``answer`` in a main window on ``database``, click its first verified
    claim, wait for the PDF page to render, and paint the window to an image.

    Returns the highlighted ``(start, end)``; raises ``ReaderError`` on any mismatch.
    """
    from PySide6.QtCore import qInstallMessageHandler

    from reader.ui.app import _application
    from reader.ui.main_window import MainWindow

    def quiet(_kind: object, _context: object, message: str) -> None:
        # The offscreen platform warns about window hints it cannot honour; those are
        # expected here and would read like a problem in the one-line report.
        if "propagateSizeHints" not in message:
            print(message, file=sys.stderr)

    previous_handler = qInstallMessageHandler(quiet)
    # Offscreen whatever the session has: the self-test must not pop up a window.
    app = _application(offscreen=True)

    window = MainWindow(database=database, backend_factory=lambda: None)
    try:
        window.resize(1280, 800)
        window.show()
        window.show_document(doc_id)
        window.ask_panel.show_answer(answer)
        index = next(i for i, claim in enumerate(answer.claims) if claim.verified)
        pages: list[int] = []
        window.page_shown.connect(pages.append)
        if not window.activate_claim(index):
            raise ReaderError("clicking the verified claim did nothing")
        highlight = window.viewer.text_view.highlighted_range()
        check = answer.claims[index].verification
        if highlight != (check.start, check.end):
            raise ReaderError(f"the highlight {highlight} is not the claim's span")
        window.viewer.tabs.setCurrentIndex(1)
        deadline = time.monotonic() + timeout
        while not pages:
            if time.monotonic() > deadline:
                raise ReaderError(f"the PDF page did not render within {timeout:.0f} s")
            app.processEvents()
            time.sleep(0.01)
        if pages[-1] != check.page:
            raise ReaderError(f"the page view shows page {pages[-1]}, not page {check.page}")
        image = window.grab().toImage()
        if image.isNull() or image.width() < 100:
            raise ReaderError("the window painted nothing")
        return highlight
    finally:
        window.close()
        window.deleteLater()
        app.processEvents()
        qInstallMessageHandler(previous_handler)
