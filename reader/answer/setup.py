"""Choosing a backend from command-line options and the user's settings."""

from __future__ import annotations

import atexit
import math

from reader.answer.backends import Backend, EmbeddedBackend
from reader.answer.models import available_models, resolve_model
from reader.answer.server import ServerBackend, ServerTimeouts
from reader.config import load_settings
from reader.errors import ModelError

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
    if url is None and model is None and settings.get("server_url"):
        url = str(settings["server_url"])
        model_name = model_name or _text(settings.get("model_name"))
    if url:
        if not model_name:
            raise ModelError("A model server needs a model name too: add --model-name NAME.")
        return ServerBackend(url, model_name, server_timeouts(settings, timeout))
    choice = model or _text(settings.get("model"))
    if choice is None and not available_models():
        return None  # nothing installed: passages mode, which the caller reports
    path = resolve_model(choice)
    threads = settings.get("threads")
    context = settings.get("context_size")
    key = (str(path), threads, context)
    if key not in _BACKENDS:
        _BACKENDS[key] = EmbeddedBackend(
            path,
            n_ctx=int(context) if isinstance(context, int) else 4096,
            n_threads=int(threads) if isinstance(threads, int) else None,
        )
    return _BACKENDS[key]


def server_timeouts(settings: dict[str, object], timeout: float | None = None) -> ServerTimeouts:
    """``timeout`` for every wait if given, else each setting (its default if unusable)."""
    if timeout is not None:
        if not (math.isfinite(timeout) and timeout > 0):
            raise ModelError(f"A timeout must be a positive number of seconds, not {timeout:g}.")
        return ServerTimeouts.all(timeout)
    defaults = ServerTimeouts()

    def seconds(key: str, default: float) -> float:
        value = settings.get(key)
        if isinstance(value, bool) or not isinstance(value, int | float):
            return default
        return float(value) if math.isfinite(value) and value > 0 else default

    return ServerTimeouts(
        connect=seconds("server_connect_timeout", defaults.connect),
        first_token=seconds("server_first_token_timeout", defaults.first_token),
        between_tokens=seconds("server_between_tokens_timeout", defaults.between_tokens),
        answer=seconds("server_answer_timeout", defaults.answer),
    )


def _text(value: object) -> str | None:
    return str(value) if value else None


def forget_backends() -> None:
    """Free loaded models, so changed settings take effect on the next question."""
    for backend in _BACKENDS.values():
        close = getattr(backend, "close", None)
        if close is not None:
            close()
    _BACKENDS.clear()


atexit.register(forget_backends)
