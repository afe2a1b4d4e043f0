"""Extraction in worker processes: PyMuPDF is not thread-safe, but processes are.

Each worker reads one file at a time and sends back the ``Document`` and its
chunks; the process that started them stores the results (it is the only writer
of the library). Workers are started with ``forkserver`` where there is one, else
``spawn``: never by forking a process that may run threads (a GUI does). They are
replaced after a few documents, so memory a large file took is given back.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import threading
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from reader.errors import ReaderError
from reader.records import Chunk, Document

if TYPE_CHECKING:
    from reader.ingest.extract import ProgressCallback
    from reader.ingest.ocr import OcrSettings

# Documents a worker reads before it is replaced by a fresh process.
DOCUMENTS_PER_WORKER = 20
MAX_DEFAULT_WORKERS = 4


def default_workers() -> int:
    """As many workers as cores, at most four (beyond that the disk and the single
    writer are the limit, and each worker holds a document in memory)."""
    return max(1, min(os.cpu_count() or 1, MAX_DEFAULT_WORKERS))


class ExtractionCancelled(ReaderError):
    """The user cancelled while a file was being read in this process."""


@dataclass
class Extracted:
    """What reading one file gave: a document and its chunks, or why it was refused."""

    path: Path
    doc_id: str
    document: Document | None = None
    chunks: list[Chunk] | None = None
    refusal: str | None = None


def extract_file(
    path: Path,
    doc_id: str,
    password: str | None = None,
    progress: ProgressCallback | None = None,
    ocr: OcrSettings | None = None,
) -> Extracted:
    """Read ``path`` (in this process); every failure but a cancel becomes a refusal,
    so one bad file never stops the others."""
    from reader.ingest import read_document

    try:
        document, chunks = read_document(
            path, password=password, progress=progress, doc_id=doc_id, ocr=ocr
        )
    except ExtractionCancelled:
        raise
    except ReaderError as error:
        return Extracted(path, doc_id, refusal=str(error))
    except Exception as error:  # a damaged file can trip PyMuPDF in ways it does not name
        return Extracted(
            path,
            doc_id,
            refusal=f"{path.name} could not be read ({type(error).__name__}: {error}); "
            "re-save it from another program and try again.",
        )
    return Extracted(path, doc_id, document=document, chunks=chunks)


def _prepare_worker() -> None:
    # Ctrl+C reaches every process of the terminal's group; the parent decides what
    # stops, and stops the workers itself.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # A parent that is killed cannot stop its workers: each ends itself when its
    # parent is gone, rather than wait for work that will never come.
    parent = multiprocessing.parent_process()
    if parent is not None:
        threading.Thread(target=_exit_with, args=(parent,), daemon=True).start()


def _exit_with(parent: multiprocessing.process.BaseProcess) -> None:
    parent.join()
    os._exit(1)


def _context() -> multiprocessing.context.BaseContext:
    if "forkserver" in multiprocessing.get_all_start_methods():
        context = multiprocessing.get_context("forkserver")
        # Workers fork from a server that has PyMuPDF loaded already.
        context.set_forkserver_preload(["reader.ingest.extract"])
        return context
    return multiprocessing.get_context("spawn")


class ExtractionPool:
    """``workers`` processes reading files; ``submit`` returns a future ``Extracted``."""

    def __init__(self, workers: int) -> None:
        self.workers = workers
        self._executor = self._start()

    def _start(self) -> ProcessPoolExecutor:
        return ProcessPoolExecutor(
            max_workers=self.workers,
            mp_context=_context(),
            initializer=_prepare_worker,
            max_tasks_per_child=DOCUMENTS_PER_WORKER,
        )

    def submit(
        self, path: Path, doc_id: str, password: str | None, ocr: OcrSettings | None = None
    ) -> Future[Extracted]:
        return self._executor.submit(extract_file, path, doc_id, password, None, ocr)

    def restart(self) -> None:
        """Replace a pool whose worker died (killed, out of memory, crashed in C)."""
        self.stop()
        self._executor = self._start()

    def stop(self) -> None:
        """Stop now: queued files are dropped and files being read are abandoned."""
        executor = self._executor
        # The executor has no public way to end a worker in the middle of a file.
        processes = list(getattr(executor, "_processes", {}).values())
        executor.shutdown(wait=False, cancel_futures=True)
        for process in processes:
            if process.is_alive():
                process.terminate()
        for process in processes:
            process.join(5)

    def close(self) -> None:
        self._executor.shutdown(wait=True)
