"""Where a helper process (an ingest worker, the model process) writes what it prints.

A helper that dies has no other way to say why: the traceback Python prints as it
ends, or the stack ``faulthandler`` dumps on a crash in C, lands in its log, which
the message about its death names.
"""

from __future__ import annotations

import faulthandler
import os


def open_log(log: str) -> int | None:
    """A descriptor appending to ``log`` (made private to the user), or None."""
    try:
        return os.open(log, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    except OSError:
        return None


def send_stderr_to(log: str) -> None:
    """Point this process's stderr (file descriptor 2, so C code's output too) at
    ``log`` and have a crash in C dump every thread's stack there. Without a
    writable log the process keeps the stderr it has."""
    descriptor = open_log(log)
    if descriptor is None:
        return
    os.dup2(descriptor, 2)
    os.close(descriptor)
    faulthandler.enable(all_threads=True)
