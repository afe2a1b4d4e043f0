"""Starting the window, and ``reader shot``: the real window, offscreen, to a PNG."""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from reader.errors import DisplayError, ReaderError
from reader.ui.platform import check_platform, import_failure


def _application(offscreen: bool = False) -> Any:
    """The one QApplication; before the first is made, a check that Qt's platform
    plugin will load (Qt aborts the process when it cannot)."""
    if offscreen:
        os.environ["QT_QPA_PLATFORM"] = "offscreen"
    try:
        from PySide6.QtGui import QIcon
        from PySide6.QtWidgets import QApplication
    except ImportError as error:
        raise DisplayError(import_failure(error)) from None

    existing = QApplication.instance()
    if existing is None:
        check_platform()
        _drop_harmless_qt_warnings()
    app = existing or QApplication(sys.argv[:1])
    app.setApplicationName("reader")
    QApplication.setDesktopFileName("reader")  # Wayland ties the window to reader.desktop
    QApplication.setWindowIcon(QIcon(str(Path(__file__).with_name("icons") / "reader.png")))
    return app


# Qt's offscreen and some Wayland plugins say this whenever a window is shown: the
# window is drawn right anyway, and the line would only alarm whoever reads stderr.
HARMLESS_QT_WARNINGS = ("This plugin does not support propagateSizeHints()",)


def _drop_harmless_qt_warnings() -> None:
    """Install a Qt message handler that drops the known-harmless warnings and passes
    every other message on to the handler before it (or to stderr, as Qt would)."""
    from PySide6.QtCore import qInstallMessageHandler

    previous: Any = None

    def handler(kind: Any, context: Any, message: str) -> None:
        if message in HARMLESS_QT_WARNINGS:
            return
        if previous is not None:
            previous(kind, context, message)
        else:
            print(message, file=sys.stderr)

    previous = qInstallMessageHandler(handler)


def _display_usable() -> bool:
    try:
        check_platform()
    except DisplayError:
        return False
    return True


def run_window(paths: list[Path], sample: bool = False) -> int:
    """Open the main window and run until it is closed."""
    app = _application()
    window = open_window(paths, sample=sample)  # noqa: F841 (kept alive until exec returns)
    return int(app.exec())


def open_window(paths: list[Path], sample: bool = False) -> Any:
    """Show the main window on the given files (ingested first if needed).

    With ``sample``, or on a first launch with an empty library, the window opens
    the shipped sample document with its question ready to ask.
    """
    from reader.config import library_path
    from reader.errors import LibraryDamagedError
    from reader.sample import SAMPLE_QUESTION, installed_sample, sample_offered
    from reader.ui.main_window import MainWindow
    from reader.ui.repair import offer_repair

    try:
        window = MainWindow()
    except LibraryDamagedError as error:
        if not offer_repair(None, error, library_path()):
            raise
        window = MainWindow()
    window.resize(1280, 800)
    window.show()
    if sample or (not paths and not sample_offered() and not window.library.documents()):
        window.library_panel.open_path(installed_sample())
        window.ask_panel.question.setText(SAMPLE_QUESTION)
        window.ask_panel.question.setFocus()  # Enter asks it
    for path in paths:
        window.library_panel.open_path(path)
    return window


def _wait(app: Any, condition: Callable[[], bool], timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise ReaderError(f"Timed out after {timeout:.0f} s waiting for {what}.")
        app.processEvents()
        time.sleep(0.01)


def shot(
    doc: str,
    out: Path,
    question: str | None = None,
    click: int | None = None,
    page_view: bool = False,
    size: tuple[int, int] = (1280, 800),
    no_model: bool = False,
    timeout: float = 300.0,
) -> dict[str, Any]:
    """Drive the real window offscreen and save a PNG of it; return what happened."""
    # A PNG needs no screen: without a display (or the libraries to draw on it)
    # the window is drawn offscreen, unless QT_QPA_PLATFORM asks for a platform.
    app = _application(offscreen=not os.environ.get("QT_QPA_PLATFORM") and not _display_usable())
    from reader.library import make_backend
    from reader.ui.main_window import MainWindow

    window = MainWindow(backend_factory=(lambda: None) if no_model else make_backend)
    window.resize(*size)
    window.show()
    app.processEvents()
    _open_document(app, window, doc, timeout)

    result: dict[str, Any] = {
        "answer": None,
        "claims": [],
        "clicked": None,
        "highlight": None,
        "click_ms": None,
    }
    if question:
        answer = _asked(app, window, question, timeout)
        result["answer"] = answer.answer
        result["claims"] = [claim.to_json() for claim in answer.claims]
        if click is not None:
            result.update(_clicked(app, window, answer, click))
            if page_view and window.current is not None and window.current.kind == "pdf":
                pages: list[int] = []
                window.page_shown.connect(pages.append)
                window.viewer.tabs.setCurrentIndex(1)
                _wait(app, lambda: bool(pages), 60, "the page view")
    elif page_view:
        window.viewer.tabs.setCurrentIndex(1)
    for _ in range(5):
        app.processEvents()
    if page_view and result["highlight"] is not None:
        # Whether the Page tab shows the quote, as the PNG does: its first rectangle
        # inside the scroll area's viewport (False when there is no page to show).
        result["highlight"]["page_highlight_visible"] = window.viewer.page_view.highlight_visible()
    out.parent.mkdir(parents=True, exist_ok=True)
    if not window.grab().save(str(out)):
        raise ReaderError(f"Could not write the screenshot to {out}.")
    window.close()
    return result


def _open_document(app: Any, window: Any, doc: str, timeout: float) -> None:
    """A file is added to the library and shown; anything else names a document in it."""
    path = Path(doc)
    if not path.is_file():
        window.show_document(window.library.resolve(doc).id)
        return
    failures: list[str] = []
    window.message.label.clear()
    task = window.library_panel.open_path(path)
    task.signals.failed.connect(lambda error: failures.append(str(error)))
    _wait(app, lambda: window.current is not None or bool(failures), timeout, "the document")
    if failures:
        raise ReaderError(failures[0])


def _asked(app: Any, window: Any, question: str, timeout: float) -> Any:
    """The answer the window shows once ``question`` is asked of its document."""
    errors: list[str] = []
    window.ask_panel.question.setText(question)
    task = window.ask_panel.ask(question, [window.current.id])
    task.signals.failed.connect(lambda error: errors.append(str(error)))
    _wait(app, lambda: window.answer is not None or bool(errors), timeout, "the answer")
    if errors:
        raise ReaderError(errors[0])
    answer = window.answer
    assert answer is not None
    return answer


def _clicked(app: Any, window: Any, answer: Any, click: int) -> dict[str, Any]:
    """Click the answer's ``click``-th verified claim; where the viewer highlighted."""
    verified = [i for i, item in enumerate(answer.claims) if item.verified]
    if not 1 <= click <= len(verified):
        raise ReaderError(
            f"There is no verified claim {click} to click: the answer has "
            f"{len(verified)} verified claims."
        )
    index = verified[click - 1]
    window.activate_claim(index)
    app.processEvents()
    start, end = window.viewer.text_view.highlighted_range()
    return {
        "clicked": click,
        "click_ms": round(window.last_click_ms or 0.0, 2),
        "highlight": {
            "start": start,
            "end": end,
            "page": answer.claims[index].verification.page,
            "visible": window.viewer.text_view.is_visible(start, end),
        },
    }
