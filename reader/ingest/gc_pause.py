"""Python's cyclic garbage collector held off while ingest reads a file.

PyMuPDF's ``dict`` extraction makes a dict or a list for every block, line and
span of a page, and ingest keeps every page's blocks until the document is
done: each allocation counts towards the next collection, and each full
collection walks everything kept so far. On the text-layer PDFs of the corpus
the collector took about a tenth of an ingest, and found nothing to free: none
of it holds a reference cycle, so reference counting frees it all, most of it
before the pause ends.
"""

from __future__ import annotations

import contextlib
import gc
import threading
from collections.abc import Iterator

# Pauses of this thread that turned collection off (a pause that found it off
# already leaves it alone). Per thread: a pause in one thread says nothing of
# another's.
_paused = threading.local()


@contextlib.contextmanager
def collection_paused() -> Iterator[None]:
    """No cyclic collection inside the block; it is turned back on after it, if it
    was on before. Hold it only over work that ends by itself; OCR, which may take
    minutes while other threads allocate, is wrapped in ``collection_resumed``."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    _paused.depth = getattr(_paused, "depth", 0) + 1
    try:
        yield
    finally:
        _paused.depth -= 1
        gc.enable()


@contextlib.contextmanager
def collection_resumed() -> Iterator[None]:
    """Collection as usual inside the block, if a pause of this thread held it off;
    held off again after it."""
    if getattr(_paused, "depth", 0) == 0 or gc.isenabled():
        yield
        return
    gc.enable()
    try:
        yield
    finally:
        gc.disable()
