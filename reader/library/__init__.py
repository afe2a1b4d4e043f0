"""The library: reader's API.

Open a library, put documents in it, ask it questions and check its answers::

    from reader import Library

    with Library("library.db") as library:
        report = ingest_paths(library, ["paper.pdf"])
        hits = library.search("permission culture")

The command line and the window are clients of this package: they reach the
store, the retriever and the verifier only through it, and what else they use
of the stages (choosing and installing a model, showing an answer, drawing a
page, the settings of reading a scan) they import from here too
(``CLIENT_API``), so one module says all a client may use.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from reader.library.batch import ingest_paths
from reader.library.batch_report import BatchProgress, BatchReport, FileOutcome
from reader.library.library import Library
from reader.library.repair import RepairReport, repair_library
from reader.library.reverify import reverify
from reader.library.stale import StaleDocument, stale_documents

# What the command line and the window use of the stages besides the library,
# by the module that defines it. Loaded when first asked for (a command's start
# stays quick) and looked up each time, never copied here, so the name and its
# module stay one thing (a test that replaces ``find_tesseract`` in its module
# replaces it for every client that looks it up when it calls it). The imports
# under TYPE_CHECKING below name the same things for mypy and for the packager,
# which follows them into the bundle; a test keeps the two lists one.
CLIENT_API = {
    # Choosing, listing and installing a model.
    "Backend": "reader.models.backends",
    "EmbeddedBackend": "reader.models.model_process",
    "make_backend": "reader.models.choice",
    "server_timeouts": "reader.models.choice",
    "forget_backends": "reader.models.choice",
    "models_dir": "reader.models.files",
    "available_models": "reader.models.files",
    "embedded_model_path": "reader.models.files",
    "resolve_model": "reader.models.files",
    "writes_grounded_claims": "reader.models.files",
    "CATALOGUE": "reader.models.catalogue",
    "catalogue_model": "reader.models.catalogue",
    "install": "reader.models.catalogue",
    "installed_path": "reader.models.catalogue",
    "model_choices": "reader.models.catalogue",
    "parts_installed": "reader.models.catalogue",
    "SupportJudge": "reader.answer.judge",
    # Showing an answer.
    "claim_numbers": "reader.answer.render",
    "leading_answer": "reader.answer.render",
    "prose_pieces": "reader.answer.render",
    "render_markdown": "reader.answer.render",
    "render_text": "reader.answer.render",
    "verification_summary": "reader.answer.render",
    # Documents: what can be read, a page drawn, a scan's reading set up.
    "PYMUPDF_TYPES": "reader.ingest.extract",
    "TEXT_TYPES": "reader.ingest.extract",
    "check_document_file": "reader.ingest.files",
    "render_page": "reader.ingest.layout",
    "OcrSettings": "reader.ingest.ocr",
    "ocr_settings": "reader.ingest.ocr",
    "AUTO_LANGUAGE": "reader.ingest.ocr_languages",
    "find_tesseract": "reader.ingest.tesseract",
    "default_workers": "reader.ingest.workers",
}

__all__ = [
    "AUTO_LANGUAGE",
    "CATALOGUE",
    "PYMUPDF_TYPES",
    "TEXT_TYPES",
    "Backend",
    "BatchProgress",
    "BatchReport",
    "EmbeddedBackend",
    "FileOutcome",
    "Library",
    "OcrSettings",
    "RepairReport",
    "StaleDocument",
    "SupportJudge",
    "available_models",
    "catalogue_model",
    "check_document_file",
    "claim_numbers",
    "default_workers",
    "embedded_model_path",
    "find_tesseract",
    "forget_backends",
    "ingest_paths",
    "install",
    "installed_path",
    "leading_answer",
    "make_backend",
    "model_choices",
    "models_dir",
    "ocr_settings",
    "parts_installed",
    "prose_pieces",
    "render_markdown",
    "render_page",
    "render_text",
    "repair_library",
    "resolve_model",
    "reverify",
    "server_timeouts",
    "stale_documents",
    "verification_summary",
    "writes_grounded_claims",
]

if TYPE_CHECKING:
    from reader.answer.judge import SupportJudge
    from reader.answer.render import (
        claim_numbers,
        leading_answer,
        prose_pieces,
        render_markdown,
        render_text,
        verification_summary,
    )
    from reader.ingest.extract import PYMUPDF_TYPES, TEXT_TYPES
    from reader.ingest.files import check_document_file
    from reader.ingest.layout import render_page
    from reader.ingest.ocr import OcrSettings, ocr_settings
    from reader.ingest.ocr_languages import AUTO_LANGUAGE
    from reader.ingest.tesseract import find_tesseract
    from reader.ingest.workers import default_workers
    from reader.models.backends import Backend
    from reader.models.catalogue import (
        CATALOGUE,
        catalogue_model,
        install,
        installed_path,
        model_choices,
        parts_installed,
    )
    from reader.models.choice import forget_backends, make_backend, server_timeouts
    from reader.models.files import (
        available_models,
        embedded_model_path,
        models_dir,
        resolve_model,
        writes_grounded_claims,
    )
    from reader.models.model_process import EmbeddedBackend


if not TYPE_CHECKING:  # mypy reads the imports above, and so sees a misspelt name

    def __getattr__(name: str) -> Any:
        module = CLIENT_API.get(name)
        if module is None:
            raise AttributeError(f"module 'reader.library' has no attribute {name!r}")
        return getattr(importlib.import_module(module), name)
