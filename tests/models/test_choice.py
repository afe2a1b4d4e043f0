"""Choosing a backend: server timeouts from the settings or from --timeout."""

from __future__ import annotations

import json

import pytest

from reader.answer import ServerBackend, ServerTimeouts
from reader.config import settings_path
from reader.errors import ModelError
from reader.models.choice import make_backend


def configure_server(**timeouts: object) -> None:
    """Settings as the file holds them: written by the window, or by hand."""
    settings = {"server_url": "http://127.0.0.1:9", "model_name": "m", **timeouts}
    settings_path().write_text(json.dumps(settings), encoding="utf-8")


def test_timeouts_come_from_the_settings_and_timeout_sets_them_all():
    configure_server(
        server_connect_timeout=3,
        server_first_token_timeout=240.5,
        server_between_tokens_timeout=15,
    )
    configured = make_backend()
    assert isinstance(configured, ServerBackend)
    assert configured.timeouts == ServerTimeouts(3.0, 240.5, 15.0)
    overridden = make_backend(timeout=0.5)
    assert isinstance(overridden, ServerBackend)
    assert overridden.timeouts == ServerTimeouts(0.5, 0.5, 0.5, 0.5)


def test_without_settings_the_timeouts_are_the_defaults():
    configure_server()
    configured = make_backend()
    assert isinstance(configured, ServerBackend)
    assert configured.timeouts == ServerTimeouts(10.0, 120.0, 60.0)


def test_unusable_timeout_settings_fall_back_to_the_defaults():
    configure_server(
        server_connect_timeout="soon",
        server_first_token_timeout=-4,
        server_between_tokens_timeout=True,
    )
    configured = make_backend()
    assert isinstance(configured, ServerBackend)
    assert configured.timeouts == ServerTimeouts()


@pytest.mark.parametrize("seconds", [0.0, -1.0, float("nan"), float("inf")])
def test_a_timeout_that_is_not_a_positive_number_is_refused(seconds):
    configure_server()
    with pytest.raises(ModelError, match="positive number of seconds"):
        make_backend(timeout=seconds)
