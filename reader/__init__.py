"""reader: an offline document reader whose answers can be checked.

The API, for scripts as for reader's own command line and window::

    import reader

    with reader.Library("library.db") as library:
        reader.ingest_paths(library, ["report.pdf"])
        answerer = library.answerer(reader.make_backend())
        answer = answerer.ask("What did the audit find?")
        for checked in answer.claims:
            print(checked.verified, checked.shown_text)

Names are loaded when first used, so ``import reader`` (and every command's
start) stays quick.
"""

from __future__ import annotations

import importlib
import sys
from typing import TYPE_CHECKING, Any

__version__ = "0.3.0"

# PyMuPDF 2 imports its optional layout analyser (pymupdf.layout, which loads
# onnxruntime and numpy: about half a second at every start) whenever it is
# installed, and it is installed with PyMuPDF. reader does not use it; marking
# it absent before PyMuPDF loads keeps every command's start quick.
sys.modules.setdefault("pymupdf.layout", None)  # type: ignore[arg-type]

# name -> the module that defines it
_EXPORTS = {
    "Library": "reader.library",
    "BatchReport": "reader.library",
    "FileOutcome": "reader.library",
    "StaleDocument": "reader.library",
    "RepairReport": "reader.library",
    "ingest_paths": "reader.library",
    "stale_documents": "reader.library",
    "repair_library": "reader.library",
    "reverify": "reader.library",
    "Answerer": "reader.answer",
    "make_backend": "reader.models.choice",
    "Settings": "reader.config",
    "load_settings": "reader.config",
    "save_settings": "reader.config",
    "ReaderError": "reader.errors",
    "Answer": "reader.records",
    "CheckedClaim": "reader.records",
    "Chunk": "reader.records",
    "Document": "reader.records",
    "DocumentSummary": "reader.records",
    "SearchHit": "reader.records",
    "Verification": "reader.records",
}

__all__ = [
    "Answer",
    "Answerer",
    "BatchReport",
    "CheckedClaim",
    "Chunk",
    "Document",
    "DocumentSummary",
    "FileOutcome",
    "Library",
    "ReaderError",
    "RepairReport",
    "SearchHit",
    "Settings",
    "StaleDocument",
    "Verification",
    "__version__",
    "ingest_paths",
    "load_settings",
    "make_backend",
    "repair_library",
    "reverify",
    "save_settings",
    "stale_documents",
]

if TYPE_CHECKING:
    from reader.answer import Answerer
    from reader.config import Settings, load_settings, save_settings
    from reader.errors import ReaderError
    from reader.library import (
        BatchReport,
        FileOutcome,
        Library,
        RepairReport,
        StaleDocument,
        ingest_paths,
        repair_library,
        reverify,
        stale_documents,
    )
    from reader.models.choice import make_backend
    from reader.records import (
        Answer,
        CheckedClaim,
        Chunk,
        Document,
        DocumentSummary,
        SearchHit,
        Verification,
    )


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'reader' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value
