"""Where reader keeps its library."""

from __future__ import annotations

import os
from pathlib import Path

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
