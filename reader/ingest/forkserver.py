"""Where extraction workers come from: a forkserver that has reader loaded already.

Workers are started with ``forkserver`` where there is one, else ``spawn``:
never by forking a process that may run threads (a GUI does). The server is
started without the working directory on its path and with its stderr at the
workers' log; if it is killed, the next pool starts a new one.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import sys
import threading
import types
from collections.abc import Iterator

from reader.process_log import open_log

__all__ = ["worker_context"]

# The environment and stderr are shared by the threads of this process: one start at a time.
_FORKSERVER_START = threading.Lock()


def worker_context(log: str) -> multiprocessing.context.BaseContext:
    """How to start workers whose stderr is ``log``: the forkserver, (re)started if it
    is not running, or ``spawn`` where there is none."""
    if "forkserver" in multiprocessing.get_all_start_methods():
        context = multiprocessing.get_context("forkserver")
        # Workers fork from a server that has PyMuPDF loaded already.
        context.set_forkserver_preload(["reader.ingest.extract", *_imported_by_main()])
        _start_forkserver(log)
        return context
    # A spawned worker takes this process's sys.path before it imports anything.
    return multiprocessing.get_context("spawn")


def _imported_by_main() -> list[str]:
    """The modules of reader that this process's main script imports by name.

    Every worker runs the main script again before it reads a file, as
    ``spawn`` does, to find what was defined there (Python's own preloading of
    ``__main__`` into the forkserver never takes effect in 3.11). The ``reader``
    command's script imports ``reader.cli``, and every command with it: 0.16 s
    of imports in each worker, more than reading a short file takes. Loaded
    once in the forkserver, they are already there in each worker, and the
    script runs in no time. The window's modules stay out: Qt has no place in a
    process that forks.
    """
    main = sys.modules.get("__main__")
    names: set[str] = set()
    for value in vars(main).values() if main is not None else ():
        if isinstance(value, types.ModuleType):
            name = value.__name__
        elif isinstance(value, (type, types.FunctionType)):
            name = value.__module__
        else:
            continue
        if isinstance(name, str) and (name == "reader" or name.startswith("reader.")):
            names.add(name)
    return sorted(
        name for name in names if name != "reader.ui" and not name.startswith("reader.ui.")
    )


def _start_forkserver(log: str) -> None:
    """Start the forkserver, if it is not running, without the working directory on its
    sys.path and with ``log`` as its stderr.

    The server runs as ``python -c``, so Python puts the working directory first on its
    sys.path, and Python 3.11 leaves it there while the server imports the preloaded
    modules, which every worker forked from it inherits: a folder named ``reader``
    where the user happens to be would stand in for reader itself. PYTHONSAFEPATH keeps
    the working directory off; the server finds reader where this process did.

    A worker forked from the server that fails before it points its own stderr at the
    log (while it unpickles what it was sent) prints why on the server's stderr.
    """
    from multiprocessing import forkserver

    with _FORKSERVER_START, _environment("PYTHONSAFEPATH", "1"), _stderr_at(log):
        forkserver.ensure_running()


@contextlib.contextmanager
def _environment(name: str, value: str) -> Iterator[None]:
    before = os.environ.get(name)
    os.environ[name] = value
    try:
        yield
    finally:
        if before is None:
            del os.environ[name]
        else:
            os.environ[name] = before


@contextlib.contextmanager
def _stderr_at(log: str) -> Iterator[None]:
    """This process's stderr at ``log`` for a moment, for the processes it starts then."""
    descriptor = open_log(log)
    if descriptor is None:
        yield
        return
    try:
        saved: int | None = os.dup(2)
    except OSError:  # no stderr at all (a desktop launcher may give none)
        saved = None
    if sys.stderr is not None:
        sys.stderr.flush()  # what was written before goes where it was meant to
    os.dup2(descriptor, 2)
    os.close(descriptor)
    try:
        yield
    finally:
        if saved is None:
            os.close(2)
        else:
            os.dup2(saved, 2)
            os.close(saved)
