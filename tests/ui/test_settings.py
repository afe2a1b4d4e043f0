"""The settings dialog: server timeouts shown, edited and saved."""

from __future__ import annotations

import pytest

from reader.answer import ServerBackend, ServerTimeouts
from reader.answer.setup import make_backend
from reader.config import load_settings, save_settings

pytestmark = pytest.mark.gui


def test_the_dialog_shows_the_default_server_timeouts(qtbot):
    from reader.ui.settings import SettingsDialog

    dialog = SettingsDialog()
    qtbot.addWidget(dialog)
    shown = (
        dialog.connect_timeout.value(),
        dialog.first_token_timeout.value(),
        dialog.between_tokens_timeout.value(),
    )
    assert shown == (10.0, 120.0, 60.0)


def test_edited_server_timeouts_are_saved_and_used(qtbot):
    from reader.ui.settings import SettingsDialog

    save_settings({**load_settings(), "server_first_token_timeout": 300})
    dialog = SettingsDialog()
    qtbot.addWidget(dialog)
    assert dialog.first_token_timeout.value() == 300.0
    dialog.server_url.setText("http://127.0.0.1:9")
    dialog.model_name.setText("served-model")
    dialog.connect_timeout.setValue(2.5)
    dialog.between_tokens_timeout.setValue(90)
    dialog.save()
    settings = load_settings()
    assert settings["server_connect_timeout"] == 2.5
    assert settings["server_first_token_timeout"] == 300.0
    assert settings["server_between_tokens_timeout"] == 90.0
    backend = make_backend()
    assert isinstance(backend, ServerBackend)
    assert backend.timeouts == ServerTimeouts(2.5, 300.0, 90.0)
