"""Choosing a backend from command-line options and the user's settings."""

from __future__ import annotations

import atexit
import math

from reader.config import Settings, load_settings
from reader.errors import ModelError
from reader.models.backends import Backend
from reader.models.files import available_models, resolve_model
from reader.models.model_process import EmbeddedBackend
from reader.models.server_client import ServerBackend, ServerTimeouts

_BACKENDS: dict[tuple[object, ...], Backend] = {}


def make_backend(
    model: str | None = None,
    url: str | None = None,
    model_name: str | None = None,
    no_model: bool = False,
    timeout: float | None = None,
) -> Backend | None:
    """The backend the options and settings ask for; None means passages mode
    (asked for, or because no model is installed at all).

    An embedded model is loaded once per process and reused across questions.
    Without options, a configured server URL wins over the in-process model.
    ``timeout`` limits every wait on a server (connecting, the first token,
    between tokens); without it each comes from the settings.
    """
    if no_model:
        return None
    settings = load_settings()
    if url is None and model is None and settings.server_url:
        url = settings.server_url
        model_name = model_name or settings.model_name
    if url:
        if not model_name:
            raise ModelError("A model server needs a model name too: add --model-name NAME.")
        return ServerBackend(url, model_name, server_timeouts(settings, timeout))
    choice = model or settings.model
    if choice is None and not available_models():
        return None  # nothing installed: passages mode, which the caller reports
    path = resolve_model(choice)
    key = (str(path), settings.threads, settings.context_size)
    if key not in _BACKENDS:
        _BACKENDS[key] = EmbeddedBackend(
            path, n_ctx=settings.context_size, n_threads=settings.threads
        )
    return _BACKENDS[key]


def server_timeouts(settings: Settings, timeout: float | None = None) -> ServerTimeouts:
    """``timeout`` for every wait if given, else each setting (its default if unusable)."""
    if timeout is not None:
        if not (math.isfinite(timeout) and timeout > 0):
            raise ModelError(f"A timeout must be a positive number of seconds, not {timeout:g}.")
        return ServerTimeouts.all(timeout)
    return ServerTimeouts(
        connect=settings.server_connect_timeout,
        first_token=settings.server_first_token_timeout,
        between_tokens=settings.server_between_tokens_timeout,
        answer=settings.server_answer_timeout,
    )


def forget_backends() -> None:
    """Free loaded models, so changed settings take effect on the next question."""
    for backend in _BACKENDS.values():
        close = getattr(backend, "close", None)
        if close is not None:
            close()
    _BACKENDS.clear()


atexit.register(forget_backends)
