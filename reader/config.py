"""Where reader keeps its library."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

import platformdirs

if TYPE_CHECKING:
    from reader.ingest.ocr import OcrSettings

HOME_VARIABLE = "READER_HOME"


def reader_home() -> Path:
    """``$READER_HOME`` if set, else the platform's user data folder for reader."""
    configured = os.environ.get(HOME_VARIABLE)
    home = Path(configured) if configured else Path(platformdirs.user_data_dir("reader"))
    home.mkdir(parents=True, exist_ok=True)
    return home


def library_path() -> Path:
    return reader_home() / "library.db"


SETTINGS_DEFAULTS: dict[str, object] = {
    "model": None,  # a GGUF path or a file name in the models folder; None: the default
    "server_url": None,  # an OpenAI-compatible server; None: run the model in-process
    "model_name": None,  # the model to ask the server for
    # Seconds to wait on the server: see reader.answer.server.ServerTimeouts for why these.
    "server_connect_timeout": 10.0,
    "server_first_token_timeout": 120.0,
    "server_between_tokens_timeout": 60.0,
    "server_answer_timeout": 600.0,
    "threads": None,  # None: the cores no other program is busy on (up to 8), per generation
    "context_size": 4096,
    "mode": "auto",
    # Pages without a usable text layer are read by OCR: auto (when needed), always, never.
    "ocr_mode": "auto",
    # Tesseract language codes joined with +, e.g. eng+deu; auto: each page in the
    # languages of the script Tesseract detects on it (see reader.ingest.ocr_languages).
    "ocr_languages": "auto",
}


def settings_path() -> Path:
    return reader_home() / "settings.json"


def load_settings() -> dict[str, object]:
    """The user's settings over the defaults; a damaged file counts as empty."""
    import json

    settings = dict(SETTINGS_DEFAULTS)
    try:
        stored = json.loads(settings_path().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return settings
    if isinstance(stored, dict):
        settings.update({key: value for key, value in stored.items() if key in SETTINGS_DEFAULTS})
    return settings


def save_settings(settings: dict[str, object]) -> None:
    import json

    known = {key: settings.get(key, default) for key, default in SETTINGS_DEFAULTS.items()}
    path = settings_path()
    temporary = path.with_suffix(".tmp")
    temporary.write_text(json.dumps(known, indent=2), encoding="utf-8")
    temporary.replace(path)


def ocr_settings(mode: str | None = None, languages: str | None = None) -> OcrSettings:
    """OCR settings: the given values over the user's settings."""
    from reader.ingest.ocr import OcrSettings

    settings = load_settings()
    return OcrSettings.parse(
        mode or str(settings.get("ocr_mode") or "auto"),
        languages or str(settings.get("ocr_languages") or "auto"),
    )
