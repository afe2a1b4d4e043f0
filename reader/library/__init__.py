"""The library: reader's API.

Open a library, put documents in it, ask it questions and check its answers::

    from reader import Library

    with Library("library.db") as library:
        report = ingest_paths(library, ["paper.pdf"])
        hits = library.search("permission culture")

The command line and the window are clients of this package: they reach the
store, the retriever and the verifier only through it.
"""

from reader.library.batch import ingest_paths
from reader.library.batch_report import BatchProgress, BatchReport, FileOutcome
from reader.library.library import Library
from reader.library.repair import RepairReport, repair_library
from reader.library.reverify import reverify
from reader.library.stale import StaleDocument, stale_documents

__all__ = [
    "BatchProgress",
    "BatchReport",
    "FileOutcome",
    "Library",
    "RepairReport",
    "StaleDocument",
    "ingest_paths",
    "repair_library",
    "reverify",
    "stale_documents",
]
