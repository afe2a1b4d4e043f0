"""The ``reader`` commands.

Commands are grouped by what they work on: ``ingesting`` (ingest),
``documents`` (list, rename, text, chunks, search, verify, repair),
``answers`` (ask, history, stats, eval, models) and ``window`` (gui, sample,
open, shot). Each module registers its commands on the group in
``reader.commands.group``.
"""

from reader.commands import answers, documents, ingesting, window
from reader.commands.group import EXPECTED_FAILURE, TIMEOUT_HELP, cli

__all__ = [
    "EXPECTED_FAILURE",
    "TIMEOUT_HELP",
    "answers",
    "cli",
    "documents",
    "ingesting",
    "window",
]
