"""Starting the window: the sample on a first launch and on `reader sample`."""

from __future__ import annotations

from pathlib import Path

import pytest

from reader.sample import SAMPLE_QUESTION, SAMPLE_TITLE

pytestmark = pytest.mark.gui


def start(qtbot, paths: list[Path] | None = None, sample: bool = False):
    from reader.ui.app import _application, open_window

    _application()
    window = open_window(paths or [], sample=sample)
    qtbot.addWidget(window)
    return window


def wait_for_document(window, qtbot, title: str) -> None:
    qtbot.waitUntil(
        lambda: window.current is not None and window.current.title == title, timeout=30_000
    )


def test_a_first_launch_opens_the_sample_with_its_question_ready(qtbot, reader_home: Path):
    window = start(qtbot)
    wait_for_document(window, qtbot, SAMPLE_TITLE)
    assert window.ask_panel.question.text() == SAMPLE_QUESTION
    assert Path(window.current.path) == reader_home / "sample" / "welcome.pdf"
    assert window.windowIcon().isNull() is False
    window.workers.shutdown()


def test_a_removed_sample_does_not_come_back_on_the_next_launch(qtbot):
    first = start(qtbot)
    wait_for_document(first, qtbot, SAMPLE_TITLE)
    first.library.remove(first.current.id)
    first.workers.shutdown()
    first.close()

    second = start(qtbot)
    qtbot.wait(300)
    assert second.library.documents() == []
    assert second.current is None and second.ask_panel.question.text() == ""
    second.workers.shutdown()


def test_reader_sample_opens_it_beside_the_users_documents(qtbot, make_pdf):
    mine = make_pdf([["My own paper about tides and the moon."]], name="mine.pdf")
    first = start(qtbot, [mine])
    qtbot.waitUntil(lambda: first.current is not None, timeout=30_000)
    assert first.current.title != SAMPLE_TITLE  # a given file wins over the first-launch sample
    first.workers.shutdown()
    first.close()

    window = start(qtbot, sample=True)
    wait_for_document(window, qtbot, SAMPLE_TITLE)
    assert len(window.library.documents()) == 2
    assert window.ask_panel.question.text() == SAMPLE_QUESTION
    window.workers.shutdown()
