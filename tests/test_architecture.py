"""The core is headless: only reader.ui may import Qt."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import reader

PACKAGE = Path(reader.__file__).parent
QT_MODULES = ("PySide6", "PyQt5", "PyQt6", "shiboken6")


def imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


def test_no_core_module_imports_qt():
    offenders = []
    for path in PACKAGE.rglob("*.py"):
        if "ui" in path.relative_to(PACKAGE).parts:
            continue
        for name in imported_modules(path):
            if name.split(".")[0] in QT_MODULES:
                offenders.append(f"{path.relative_to(PACKAGE)} imports {name}")
    assert offenders == []


def test_core_and_cli_import_without_loading_qt():
    code = (
        "import sys, reader.cli, reader.library, reader.ingest, reader.store, "
        "reader.retrieve, reader.verify, reader.text.normalize\n"
        "loaded = [m for m in sys.modules if m.split('.')[0] in "
        f"{QT_MODULES!r}]\n"
        "print(loaded)\n"
        "sys.exit(1 if loaded else 0)\n"
    )
    completed = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert completed.returncode == 0, completed.stdout + completed.stderr
