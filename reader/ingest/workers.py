"""Extraction in worker processes: PyMuPDF is not thread-safe, but processes are.

Each worker reads one file at a time and sends back the ``Document`` and its
chunks; the process that started them stores the results (it is the only writer
of the library). Workers are started as ``reader.ingest.forkserver`` says, never
by forking a process that may run threads (a GUI does). They are replaced after a
few documents, so memory a large file took is given back.

Workers import reader from where this process found it, never from the working
directory, and write what they print on stderr (a Python traceback, or the stack
``faulthandler`` dumps on a crash in C) to a log in the library's folder, which
the refusal of a file whose worker died names.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import re
import signal
import threading
import time
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from reader.config import reader_home
from reader.errors import Cancelled, ReaderError
from reader.ingest.forkserver import worker_context
from reader.process_log import send_stderr_to
from reader.records import Chunk, Document
from reader.text.escaping import one_line

if TYPE_CHECKING:
    from reader.ingest.extract import ProgressCallback
    from reader.ingest.ocr import OcrSettings

# Documents a worker reads before it is replaced by a fresh process.
DOCUMENTS_PER_WORKER = 20
MAX_DEFAULT_WORKERS = 4
WORKER_LOG_NAME = "ingest-workers.log"
# A log larger than this is moved aside (one old log is kept) when a pool starts.
WORKER_LOG_LIMIT = 1_000_000
# The line a Python traceback ends with ("ImportError: ...") or faulthandler begins with.
_ERROR_LINE = re.compile(
    r"^(?:Fatal Python error: .+|[A-Za-z_][\w.]*(?:Error|Exception|Exit)(?:: .*)?)$", re.M
)


def default_workers() -> int:
    """As many workers as cores, at most four (beyond that the disk and the single
    writer are the limit, and each worker holds a document in memory)."""
    return max(1, min(os.cpu_count() or 1, MAX_DEFAULT_WORKERS))


@dataclass
class Extracted:
    """What reading one file gave: a document and its chunks, or why it was refused."""

    path: Path
    doc_id: str
    document: Document | None = None
    chunks: list[Chunk] | None = None
    refusal: str | None = None
    # The file's bytes were not those its id was made from: it was saved anew
    # between the plan and the read, or while it was read.
    changed: bool = False


def extract_file(
    path: Path,
    doc_id: str,
    password: str | None = None,
    progress: ProgressCallback | None = None,
    ocr: OcrSettings | None = None,
) -> Extracted:
    """Read ``path`` (in this process); every failure but a cancel becomes a refusal,
    so one bad file never stops the others. A file whose bytes are no longer those
    ``doc_id`` was made from, once read, comes back ``changed``: its text must not
    be stored under that id."""
    from reader.ingest import document_id, read_document

    try:
        document, chunks = read_document(
            path, password=password, progress=progress, doc_id=doc_id, ocr=ocr
        )
    except Cancelled:
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
    try:
        changed = document_id(path) != doc_id
    except OSError:
        changed = True
    if changed:
        return Extracted(path, doc_id, changed=True)
    return Extracted(path, doc_id, document=document, chunks=chunks)


def worker_log_path() -> Path:
    """Where the workers write what they print on stderr, in the library's folder."""
    return reader_home() / WORKER_LOG_NAME


def ocr_threads_per_worker(workers: int) -> int:
    """Tesseracts each of ``workers`` processes runs at once: together one per core.

    Each Tesseract keeps a core busy (see ``reader.ingest.ocr``); two workers each
    running the two a lone reader runs would put four on two cores, and the
    scanned files would take longer than with one worker.
    """
    return max(1, (os.cpu_count() or 1) // max(1, workers))


def _prepare_worker(log: str, ocr_threads: int | None = None) -> None:
    # Ctrl+C reaches every process of the terminal's group; the parent decides what
    # stops, and stops the workers itself.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    send_stderr_to(log)
    if ocr_threads is not None:
        from reader.ingest import ocr

        # This process reads files for the pool alone: its share of the cores.
        ocr.OCR_WORKERS = ocr_threads
    # A parent that is killed cannot stop its workers: each ends itself when its
    # parent is gone, rather than wait for work that will never come.
    parent = multiprocessing.parent_process()
    if parent is not None:
        threading.Thread(target=_exit_with, args=(parent,), daemon=True).start()


def _exit_with(parent: multiprocessing.process.BaseProcess) -> None:
    parent.join()
    os._exit(1)


LOST_STATUS = 255


class _Executor(ProcessPoolExecutor):
    """A process pool that, when a worker cannot be started, says so instead of
    raising where it started it.

    Workers are forked by the forkserver; if that server is gone (killed, as the
    out-of-memory killer may kill any process), starting one reads an end of file
    ("unexpected EOF"), in ``submit`` or in the pool's manager thread as it replaces
    a worker. Raised there, it would end the run as if the user had pressed Ctrl+C,
    or kill the manager thread and leave the pool waiting for ever. Kept here, the
    pool is taken as broken and started afresh, which starts a new server.
    """

    start_failure: BaseException | None = None

    def _spawn_process(self) -> None:
        try:
            super()._spawn_process()  # type: ignore[misc]
        except (EOFError, OSError) as error:
            self.start_failure = error


class ExtractionPool:
    """``workers`` processes reading files; ``submit`` returns a future ``Extracted``.

    The workers' stderr goes to ``log`` (by default ``worker_log_path()``).
    """

    def __init__(self, workers: int, log: Path | None = None) -> None:
        self.workers = workers
        self.log = log or worker_log_path()
        _move_aside_if_large(self.log)
        self._executor = self._start()

    def _start(self) -> _Executor:
        # What the workers of this pool write begins here: a death is read from there on.
        self._log_start = _size(self.log)
        return _Executor(
            max_workers=self.workers,
            mp_context=worker_context(str(self.log)),
            initializer=_prepare_worker,
            initargs=(str(self.log), ocr_threads_per_worker(self.workers)),
            max_tasks_per_child=DOCUMENTS_PER_WORKER,
        )

    def submit(
        self, path: Path, doc_id: str, password: str | None, ocr: OcrSettings | None = None
    ) -> Future[Extracted]:
        try:
            future = self._executor.submit(extract_file, path, doc_id, password, None, ocr)
        except OSError as error:
            # The executor wakes its manager thread through a pipe that thread closes
            # once a worker died; met in between, the pipe says "handle is closed".
            raise BrokenProcessPool(
                f"the pool broke as a file was handed to it ({error})"
            ) from error
        failure = self._executor.start_failure
        if failure is not None:
            raise BrokenProcessPool(f"a worker could not be started ({failure})") from failure
        return future

    def died_reading(self, path: Path, doc_id: str) -> Extracted:
        """The refusal of ``path``, lost when a worker died (call it before ``restart``):
        the error the worker printed, or the signal that killed it, and where the log is."""
        codes = self._exit_codes()
        signals = [-code for code in codes if code < 0]
        statuses = [code for code in codes if code > 0]
        error = _last_error(_read_from(self.log, self._log_start))
        killed = f"killed by {_signal_name(signals[0])}" if signals else ""
        how = f"ended with status {statuses[0]}" if statuses else "ended"
        stamp = time.strftime("%Y-%m-%d %H:%M:%S")
        ending = f"was {killed}" if killed else how
        logged = _append_line(self.log, f"{stamp} {path}: the process reading it {ending}")
        where = f"; what it printed is in {self.log}" if logged else ""
        # 255 is what the forkserver reports when it lost a worker's status (its pipe
        # closed first): with nothing printed, a worker that vanished was killed.
        vanished = statuses == [LOST_STATUS] and not error
        if killed or vanished or (error or "").startswith("Fatal Python error"):
            # Killed or crashed in C, most often by the file itself.
            return Extracted(
                path,
                doc_id,
                refusal=f"{path.name} stopped the process reading it ("
                + (f"{killed}: " if killed else "")
                + "out of memory, or a file damaged in a way that crashes PyMuPDF); "
                f"ingest it alone, or re-save it{where}.",
            )
        said = f"failed ({one_line(error, limit=160)})" if error else f"{how} without saying why"
        return Extracted(
            path,
            doc_id,
            refusal=f"{path.name} was not read: the process reading it {said}{where}; "
            "report it if it happens again.",
        )

    def _exit_codes(self) -> list[int]:
        """How this pool's ended workers ended, those the executor stopped itself left out
        (it ends the others with SIGTERM once one has died)."""
        processes = list(getattr(self._executor, "_processes", {}).values())
        codes = [process.exitcode for process in processes]
        ended = [code for code in codes if code is not None and code != 0]
        return [code for code in ended if code != -signal.SIGTERM] or ended

    def has_live_worker(self) -> bool:
        processes = list(getattr(self._executor, "_processes", {}).values())
        return any(process.is_alive() for process in processes)

    def lost_a_worker(self) -> bool:
        """Whether a worker of this pool ended abnormally (killed, crashed, failed).

        The executor says so itself, except when the worker died in the middle of
        sending its result: its manager thread then waits for the rest of the
        message for ever, and a worker that finished its own file waits for ever
        for the lock the dead one held to send it back.
        """
        if self._executor.start_failure is not None:
            return True
        processes = list(getattr(self._executor, "_processes", {}).values())
        return any(process.exitcode not in (None, 0) for process in processes)

    def restart(self) -> None:
        """Replace a pool whose worker died (killed, out of memory, crashed in C)."""
        self.stop()
        self._executor = self._start()

    def stop(self) -> None:
        """Stop now: queued files are dropped and files being read are abandoned.

        Nothing of the pool is left for the interpreter to wait for as it exits: it
        joins the pool's manager thread, and that thread joins every worker.
        """
        executor = self._executor
        # The executor has no public way to end a worker in the middle of a file. Its
        # manager thread keeps the same dict of workers after shutdown, and may start
        # one (a worker that read its share is replaced) while this stops the others.
        processes: dict[int, multiprocessing.process.BaseProcess] = (
            getattr(executor, "_processes", None) or {}
        )
        manager: threading.Thread | None = getattr(executor, "_executor_manager_thread", None)
        results = getattr(executor, "_result_queue", None)
        with contextlib.suppress(OSError):  # a broken pool's wakeup pipe may be closed
            executor.shutdown(wait=False, cancel_futures=True)
        _end_processes(processes)
        if results is not None:
            # A worker stopped while it sent a result leaves half a message in the
            # results pipe, and the manager thread waits for the rest for ever (this
            # process holds the pipe's other end, so it never reads an end of file).
            # With that end closed too, it reads one, takes the pool as broken and ends.
            with contextlib.suppress(OSError):
                results._writer.close()
        if manager is not None:
            manager.join(STOP_SECONDS)
        _end_processes(processes)  # any the manager thread started while this stopped

    def close(self) -> None:
        self._executor.shutdown(wait=True)


# How long stopping a pool waits for its workers, and then for its manager thread.
STOP_SECONDS = 5.0


def _end_processes(processes: dict[int, multiprocessing.process.BaseProcess]) -> None:
    """SIGTERM, then SIGKILL for those that outlast ``STOP_SECONDS``; ``processes`` is
    read again each round, as the pool's manager thread may add one meanwhile."""
    deadline = time.monotonic() + STOP_SECONDS
    alive = list(processes.values())
    while alive and time.monotonic() < deadline:
        for process in alive:
            process.terminate()
        for process in alive:
            process.join(0.5)
        alive = [process for process in list(processes.values()) if process.is_alive()]
    for process in alive:
        process.kill()
        process.join(1)


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0


def _move_aside_if_large(log: Path) -> None:
    # A log that cannot be moved is only a large log.
    if _size(log) > WORKER_LOG_LIMIT:
        with contextlib.suppress(OSError):
            log.replace(log.with_name(log.name + ".old"))


def _read_from(log: Path, offset: int) -> str:
    try:
        with log.open("rb") as handle:
            handle.seek(offset)
            return handle.read(WORKER_LOG_LIMIT).decode("utf-8", errors="replace")
    except OSError:
        return ""


def _last_error(text: str) -> str | None:
    """The last error line in what workers printed: the exception a traceback ends with,
    or the first line of faulthandler's report on a crash."""
    errors = _ERROR_LINE.findall(text)
    return errors[-1] if errors else None


def _append_line(log: Path, line: str) -> bool:
    """Add one line to ``log``; whether it could be written (the log exists then)."""
    try:
        with log.open("a", encoding="utf-8") as handle:
            handle.write(line + "\n")
    except OSError:
        return False
    return True


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"
