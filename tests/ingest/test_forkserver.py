"""What the server that forks ingest workers loads before it forks them."""

from __future__ import annotations

import json
import sys

from reader.library.batch import ingest_paths


def test_only_the_main_scripts_reader_modules_are_preloaded(monkeypatch):
    import types

    import reader.library.batch
    from reader.ingest import forkserver
    from reader.library import Library

    main = types.ModuleType("__main__")
    main.batch = reader.library.batch  # a module
    main.Library = Library  # a class
    main.ingest_paths = ingest_paths  # a function
    main.json = json  # not reader's
    main.settings = reader.ingest.ocr.OcrSettings()  # an instance: not what a script imports
    monkeypatch.setitem(sys.modules, "__main__", main)

    assert forkserver._imported_by_main() == [
        "reader.library.batch",
        "reader.library.library",
    ]
    ui = types.ModuleType("reader.ui.main_window")
    main.ui = ui
    assert "reader.ui.main_window" not in forkserver._imported_by_main()
