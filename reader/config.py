"""Where reader keeps its library, and the user's settings."""

from __future__ import annotations

import dataclasses
import json
import math
import os
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

import platformdirs

HOME_VARIABLE = "READER_HOME"


def reader_home() -> Path:
    """``$READER_HOME`` if set, else the platform's user data folder for reader."""
    configured = os.environ.get(HOME_VARIABLE)
    home = Path(configured) if configured else Path(platformdirs.user_data_dir("reader"))
    home.mkdir(parents=True, exist_ok=True)
    return home


def library_path() -> Path:
    return reader_home() / "library.db"


@dataclass(frozen=True, slots=True)
class Settings:
    """The user's settings, kept in ``settings.json``; the defaults are these."""

    model: str | None = None  # a GGUF path or a file name in the models folder; None: the default
    server_url: str | None = None  # an OpenAI-compatible server; None: run the model in-process
    model_name: str | None = None  # the model to ask the server for
    # Seconds to wait on the server: see reader.models.server_client.ServerTimeouts for why these.
    server_connect_timeout: float = 10.0
    server_first_token_timeout: float = 120.0
    server_between_tokens_timeout: float = 60.0
    server_answer_timeout: float = 600.0
    threads: int | None = None  # None: the cores no other program is busy on (up to 8)
    context_size: int = 4096
    mode: str = "auto"  # how the model quotes: see reader.answer.prompting.MODES
    # Pages without a usable text layer are read by OCR: auto (when needed), always, never.
    ocr_mode: str = "auto"
    # Tesseract language codes joined with +, e.g. eng+deu; auto: each page in the
    # languages of the script Tesseract detects on it (see reader.ingest.ocr_languages).
    ocr_languages: str = "auto"

    @classmethod
    def from_json(cls, stored: object) -> Settings:
        """Stored settings over the defaults. A file edited by hand may hold anything:
        an unknown key is ignored and a value of the wrong kind keeps its default."""
        if not isinstance(stored, dict):
            return cls()
        values: dict[str, Any] = {}
        for item in fields(cls):
            value = stored.get(item.name)
            if item.type == "float":
                usable: object = _seconds(value)
            elif item.type in ("int", "int | None"):
                usable = _count(value)
            else:
                usable = value if isinstance(value, str) and value else None
            values[item.name] = item.default if usable is None else usable
        return cls(**values)

    def to_json(self) -> dict[str, object]:
        return {item.name: getattr(self, item.name) for item in fields(self)}

    def replace(self, **changes: Any) -> Settings:
        return dataclasses.replace(self, **changes)


DEFAULTS = Settings()


def _seconds(value: object) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value) if math.isfinite(value) and value > 0 else None


def _count(value: object) -> int | None:
    if isinstance(value, bool) or not isinstance(value, int):
        return None
    return value if value > 0 else None


def settings_path() -> Path:
    return reader_home() / "settings.json"


def load_settings() -> Settings:
    """The user's settings over the defaults; a damaged file counts as empty."""
    try:
        stored = json.loads(settings_path().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return Settings()
    return Settings.from_json(stored)


def save_settings(settings: Settings) -> None:
    path = settings_path()
    temporary = path.with_suffix(".tmp")
    temporary.write_text(json.dumps(settings.to_json(), indent=2), encoding="utf-8")
    temporary.replace(path)
