"""The model process killed while the window waits for an answer: the window, its
document and the library stay, the message bar says what happened, and the next
question is answered by a fresh model process."""

from __future__ import annotations

import os
import signal

import pytest

from reader.models.files import embedded_model_path
from reader.models.model_process import EmbeddedBackend
from tests.ui.test_window import PAGES, QUESTION, open_document

pytestmark = [pytest.mark.gui, pytest.mark.slow]


@pytest.mark.parametrize("number", [signal.SIGKILL, signal.SIGILL])
def test_a_model_process_killed_mid_answer_leaves_the_window_and_says_so(
    qtbot, tmp_path, make_pdf, number
):
    from reader.config import Settings, save_settings
    from reader.ui.main_window import MainWindow

    # The embedded model writes claims only when asked to (by default it picks evidence).
    save_settings(Settings(mode="constrained"))
    model = EmbeddedBackend(embedded_model_path(), n_ctx=2048)
    real_generate = model.generate
    killed: list[int] = []

    def generate_and_kill(*args, on_token=None, **options):
        def on_token_and_kill(piece):
            if not killed:  # the first question only: its first token kills the model
                killed.append(model.pid)
                os.kill(model.pid, number)
            if on_token is not None:
                on_token(piece)

        return real_generate(*args, on_token=on_token_and_kill, **options)

    model.generate = generate_and_kill
    window = MainWindow(database=tmp_path / "library.db", backend_factory=lambda: model)
    qtbot.addWidget(window)
    window.show()
    try:
        document = open_document(window, qtbot, make_pdf(PAGES))
        window.ask_panel.question.setText(QUESTION)
        window.ask_panel.ask_current()
        qtbot.waitUntil(lambda: window.ask_panel.ask_task is None, timeout=180_000)
        assert killed
        shown = window.message.label.text()
        assert window.message.isVisible() and "ask again" in shown, shown
        assert ("killed" if number == signal.SIGKILL else "instruction") in shown
        assert window.isVisible() and window.current.id == document.id
        assert [d.id for d in window.library.documents()] == [document.id]
        assert window.library.store.answers() == []
        # The next question starts a model process of its own and is answered.
        with qtbot.waitSignal(window.answer_shown, timeout=180_000):
            window.ask_panel.ask_current()
        assert window.answer is not None and window.answer.claims
        assert model.pid not in (None, killed[0])
    finally:
        window.workers.shutdown()
        model.close()
