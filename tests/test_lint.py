"""ruff and mypy, as configured in pyproject.toml, hold for the whole project."""

from __future__ import annotations

import subprocess
import sys

from tests.conftest import PROJECT_ROOT


def run_tool(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", *args], cwd=PROJECT_ROOT, capture_output=True, text=True
    )


def test_ruff_lint_and_format():
    lint = run_tool("ruff", "check", ".")
    assert lint.returncode == 0, lint.stdout + lint.stderr
    formatted = run_tool("ruff", "format", "--check", ".")
    assert formatted.returncode == 0, formatted.stdout + formatted.stderr


def test_mypy_on_the_core():
    checked = run_tool("mypy")
    assert checked.returncode == 0, checked.stdout + checked.stderr
