"""While a question is typed, the model loads and reads the start every
question's prompt shares, on the model's thread (``Answerer.prepare``)."""

from __future__ import annotations

from pathlib import Path

from tests.answer.conftest import ReadsAhead


def test_typing_a_question_prepares_the_model_once_per_question(qtbot, tmp_path: Path):
    from reader.ui.main_window import MainWindow

    backend = ReadsAhead()
    main = MainWindow(database=tmp_path / "library.db", backend_factory=lambda: backend)
    qtbot.addWidget(main)
    main.show()
    panel = main.ask_panel
    try:
        assert backend.read == []  # nothing before a question is typed
        qtbot.keyClicks(panel.question, "When")
        qtbot.waitUntil(lambda: len(backend.read) == 1 and panel.prepare_task is None)
        assert backend.loaded == 1
        qtbot.keyClicks(panel.question, " did the bridge open?")
        qtbot.wait(100)
        assert len(backend.read) == 1  # once per question, not per key
        # Settings changed (another model, perhaps): the next keystroke prepares again.
        panel.forget_preparation()
        qtbot.keyClicks(panel.question, " ")
        qtbot.waitUntil(lambda: len(backend.read) == 2 and panel.prepare_task is None)

        # Once that question is answered, the next one is prepared as it is typed.
        panel.ask(panel.question.text(), None)
        qtbot.waitUntil(lambda: panel.ask_task is None, timeout=10_000)
        panel.question.clear()
        qtbot.keyClicks(panel.question, "Who")
        qtbot.waitUntil(lambda: len(backend.read) == 3 and panel.prepare_task is None)
    finally:
        main.workers.shutdown()


def test_a_model_that_fails_to_load_while_typing_says_nothing_until_asked(qtbot, tmp_path: Path):
    from reader.errors import ModelError
    from reader.ui.main_window import MainWindow

    class WillNotLoad(ReadsAhead):
        def load(self) -> None:
            raise ModelError("The model file is damaged: reinstall it.")

    backend = WillNotLoad()
    main = MainWindow(database=tmp_path / "library.db", backend_factory=lambda: backend)
    qtbot.addWidget(main)
    main.show()
    panel = main.ask_panel
    try:
        qtbot.keyClicks(panel.question, "When")
        qtbot.waitUntil(lambda: panel.prepare_task is None and panel._prepared)
        assert main.message.label.text() == ""  # typing shows no error
        assert backend.read == []
    finally:
        main.workers.shutdown()
