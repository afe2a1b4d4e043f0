"""The embedded model in a process of its own.

llama.cpp is native code reading a file the user chose. If it dies (an
instruction this processor does not have, a damaged model file, the system
killing it when memory runs out), it must not take reader with it: the window,
the library and the question's record stay, the question ends with one line
saying what happened and what to do, and the next question starts a fresh
model process.

``EmbeddedBackend`` is the backend reader answers with. It starts the model
process on first use (checking first that the file is a whole GGUF) and keeps
it for the questions after, so the prompt llama.cpp evaluated last stays
evaluated between questions. The process runs ``InProcessBackend``, so the
grammar, reading quotes in rather than sampling them, and judging claims work
there as they did in reader's own process; tokens stream back through a pipe
as they are made. Cancel is passed on at once; if the model does not stop
within ``CANCEL_GRACE`` seconds (it is in the middle of reading a long
prompt), its process is ended, and the next question starts another.

What the process prints (llama.cpp's messages, the stack ``faulthandler`` dumps
on a crash) goes to ``model-process.log`` in reader's folder, which a crash
report names.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import signal
import threading
import time
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

from reader.config import reader_home
from reader.errors import ModelError, ReaderError
from reader.models.backends import (
    CancelSignal,
    Generation,
    KnownText,
    Messages,
    TokenCallback,
)
from reader.models.gguf import check_model_file
from reader.models.in_process import InProcessBackend
from reader.process_log import send_stderr_to
from reader.text.escaping import one_line

LOG_NAME = "model-process.log"
LOG_LIMIT = 1_000_000
# Seconds a cancelled generation may take to stop before its process is ended.
CANCEL_GRACE = 0.3
# How often the waiting side looks at the user's cancel and the process's life.
_POLL_SECONDS = 0.05
# Seconds the model may take to load (a large model from a slow disk) before giving up.
LOAD_TIMEOUT = 600.0


class ModelCrashedError(ModelError):
    """The model process ended while it was loading or answering."""


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


def crash_message(exitcode: int | None, model_name: str, log: Path) -> str:
    """One line for the user: what ended the model process and what to do."""
    again = "The library is unchanged; ask again to start the model anew."
    if exitcode is not None and exitcode < 0:
        number = -exitcode
        name = _signal_name(number)
        if number == signal.SIGILL:
            return (
                f"The model stopped on an instruction this processor does not have ({name}): "
                "this llama.cpp was built for another processor. Reinstall reader from its "
                f"installer, or rebuild llama-cpp-python on this machine (README). {again}"
            )
        if number == signal.SIGKILL:
            return (
                f"The model process was killed ({name}), most often by the system when memory "
                f"runs out: close other programs or choose a smaller model. {again}"
            )
        if number == signal.SIGTERM:
            return f"The model process was stopped from outside ({name}). {again}"
        return (
            f"The model process crashed ({name}) running {model_name}: the model file may be "
            f"damaged; choose another model or copy it again (details in {log}). {again}"
        )
    return (
        f"The model process ended unexpectedly (exit status {exitcode}) running {model_name} "
        f"(details in {log}). {again}"
    )


def model_log() -> Path:
    """The model process's log, moved aside first when it has grown large."""
    log = reader_home() / LOG_NAME
    with contextlib.suppress(OSError):
        if log.stat().st_size > LOG_LIMIT:
            log.replace(log.with_suffix(".old.log"))
    return log


class EmbeddedBackend:
    """A GGUF model run by llama.cpp in a process of its own (see above)."""

    supports_grammar = True
    reads_known_text = True  # see ``KnownText``

    def __init__(
        self, model_path: str | Path, n_ctx: int = 4096, n_threads: int | None = None
    ) -> None:
        self.model_path = Path(model_path)
        self.n_ctx = n_ctx
        self.fixed_threads = n_threads
        # How many threads the last generation used (the model process says).
        self.last_threads = n_threads or max(1, min(os.cpu_count() or 1, 8))
        self.name = self.model_path.stem
        self._process: Any = None
        self._connection: Connection | None = None
        self._stop_event: Any = None
        self._log = reader_home() / LOG_NAME
        self._lock = threading.Lock()

    @property
    def pid(self) -> int | None:
        """The model process's id while it runs."""
        process = self._process
        return process.pid if process is not None and process.is_alive() else None

    def load(self) -> None:
        """Start the model process and load the model now (else on first use)."""
        with self._lock:
            self._start()

    def _start(self) -> None:
        if self._process is not None and self._process.is_alive():
            return
        self._end()
        check_model_file(self.model_path)
        self._log = model_log()
        context = multiprocessing.get_context("spawn")
        ours, theirs = context.Pipe()
        self._stop_event = context.Event()
        process = context.Process(
            target=serve,
            args=(theirs, self._stop_event, str(self.model_path), self.n_ctx, self.fixed_threads),
            kwargs={"log": str(self._log)},
            name="reader-model",
            daemon=True,
        )
        try:
            process.start()
        finally:
            theirs.close()
        # Only a started process is ours to end: one that failed to start cannot be joined.
        self._process = process
        self._connection = ours
        reply = self._receive(deadline=time.monotonic() + LOAD_TIMEOUT)
        if reply is None or reply[0] != "ready":
            self._end()
            raise ModelError(f"{self.name} did not load within {LOAD_TIMEOUT:.0f} seconds.")

    def _end(self, kill: bool = False) -> None:
        """End the model process (asked politely unless ``kill``) and forget it."""
        process, connection = self._process, self._connection
        self._process = self._connection = None
        if connection is not None:
            if not kill and process is not None and process.is_alive():
                with contextlib.suppress(OSError, ValueError):
                    connection.send(("close",))
            connection.close()
        if process is not None:
            process.join(0 if kill else 2.0)
            if process.is_alive():
                process.kill()
                process.join(2.0)

    def _crashed(self) -> ModelCrashedError:
        process = self._process
        exitcode = None
        if process is not None:
            process.join(2.0)
            exitcode = process.exitcode
        self._end(kill=True)
        return ModelCrashedError(crash_message(exitcode, self.model_path.name, self._log))

    def _receive(
        self, deadline: float | None = None, cancel: CancelSignal | None = None
    ) -> tuple[Any, ...] | None:
        """The process's next message; None if ``cancel`` was set and the process did
        not stop in time (it has been ended), or ``deadline`` passed. A message
        "error" is raised as a ModelError; the process's death as ModelCrashedError."""
        connection = self._connection
        assert connection is not None
        cancelled_at: float | None = None
        while True:
            now = time.monotonic()
            if cancel is not None and cancel.is_set():
                if cancelled_at is None:
                    cancelled_at = now
                    self._stop_event.set()
                elif now - cancelled_at > CANCEL_GRACE:
                    self._end(kill=True)
                    return None
            if deadline is not None and now > deadline:
                self._end(kill=True)
                return None
            try:
                if connection.poll(_POLL_SECONDS):
                    message: tuple[Any, ...] = connection.recv()
                    if message[0] == "error":
                        raise ModelError(message[1])
                    return message
            except (EOFError, OSError):
                raise self._crashed() from None
            if not self._process.is_alive() and not connection.poll():
                raise self._crashed()

    def _send(self, *request: Any) -> None:
        """Hand ``request`` to the model process, started first if it is not running."""
        self._start()
        assert self._connection is not None
        self._stop_event.clear()
        try:
            self._connection.send(request)
        except (OSError, ValueError):
            raise self._crashed() from None

    def _request(self, *request: Any) -> tuple[Any, ...]:
        self._send(*request)
        reply = self._receive()
        assert reply is not None
        return reply

    def generate(
        self,
        messages: Messages,
        grammar: str | None = None,
        max_tokens: int = 512,
        on_token: TokenCallback | None = None,
        cancel: CancelSignal | None = None,
        known: KnownText | None = None,
    ) -> Generation:
        with self._lock:  # one generation at a time per model process
            started = time.perf_counter()
            self._send("generate", messages, grammar, max_tokens, known)
            pieces: list[str] = []
            first: float | None = None
            try:
                while True:
                    message = self._receive(cancel=cancel)
                    if message is None:  # cancelled, and the process ended to stop it
                        return Generation(
                            text="".join(pieces),
                            completion_tokens=len(pieces),
                            seconds=time.perf_counter() - started,
                            first_token_seconds=first,
                            cancelled=True,
                        )
                    if message[0] == "token":
                        if cancel is not None and cancel.is_set():
                            continue  # made before the model saw the cancel
                        if first is None:
                            first = time.perf_counter() - started
                        pieces.append(message[1])
                        if on_token is not None:
                            on_token(message[1])
                        continue
                    generation: Generation = message[1]
                    if cancel is not None and cancel.is_set():
                        # What was shown is what was made: no token after the cancel.
                        generation.text = "".join(pieces)
                        generation.completion_tokens = len(pieces)
                        generation.cancelled = True
                    self.last_threads = message[2]
                    generation.seconds = time.perf_counter() - started
                    generation.first_token_seconds = first
                    return generation
            except ModelError:
                raise  # the model refused the request (and waits for the next) or died
            except BaseException:
                # The caller's own failure (in ``on_token``, an interrupt) leaves a
                # process that may still be writing: end it, the next question starts anew.
                if self._process is not None:
                    self._end(kill=True)
                raise

    def read_ahead(self, messages: Messages, cancel: CancelSignal | None = None) -> int:
        """See ``InProcessBackend.read_ahead``; evaluated in the model process (started
        first if it is not running). A cancel before the reading starts reads nothing
        (0); once started, the reading (one batch, a few seconds at most) is waited
        for, so the loaded model is kept."""
        with self._lock:
            if cancel is not None and cancel.is_set():
                return 0
            self._send("read ahead", messages)
            try:
                reply = self._receive()
            except ModelError:
                raise
            except BaseException:
                # Interrupted while the process reads: its reply would be taken for
                # the next request's, so the process ends and the next starts anew.
                if self._process is not None:
                    self._end(kill=True)
                raise
            assert reply is not None
            return int(reply[1])

    def yes_probability(self, messages: Messages) -> float:
        """See ``InProcessBackend.yes_probability``; computed in the model process."""
        with self._lock:
            return float(self._request("yes", messages)[1])

    def forget_prompt_cache(self) -> None:
        """Drop the evaluated prompts, so the next generation starts cold."""
        with self._lock:
            if self._process is not None:
                self._request("forget")

    def close(self) -> None:
        """End the model process."""
        with self._lock:
            self._end()


# -- in the model process ----------------------------------------------------------


def serve(
    connection: Connection,
    stop: Any,
    model_path: str,
    n_ctx: int,
    n_threads: int | None,
    log: str,
) -> None:
    """The model process: load the model, then answer requests until told to close
    or until reader's end of the pipe closes."""
    # Ctrl+C reaches every process of the terminal's group: reader decides what stops.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    send_stderr_to(log)
    with contextlib.suppress(EOFError, OSError, KeyboardInterrupt):
        try:
            backend = InProcessBackend(model_path, n_ctx=n_ctx, n_threads=n_threads)
            backend.load()
        except Exception as error:
            connection.send(("error", _failure(error)))
            return
        connection.send(("ready",))
        while True:
            request = connection.recv()
            if request[0] == "close":
                backend.close()
                return
            try:
                connection.send(_handle(backend, request, connection, stop))
            except (EOFError, OSError):
                raise
            except Exception as error:
                connection.send(("error", _failure(error)))


def _handle(
    backend: InProcessBackend, request: tuple[Any, ...], connection: Connection, stop: Any
) -> tuple[Any, ...]:
    kind = request[0]
    if kind == "generate":
        _, messages, grammar, max_tokens, known = request
        generation = backend.generate(
            messages,
            grammar,
            max_tokens,
            on_token=lambda piece: connection.send(("token", piece)),
            cancel=stop,
            known=known,
        )
        return ("done", generation, backend.last_threads)
    if kind == "yes":
        return ("value", backend.yes_probability(request[1]))
    if kind == "read ahead":
        return ("value", backend.read_ahead(request[1]))
    if kind == "forget":
        backend.forget_prompt_cache()
        return ("ok",)
    raise ModelError(f"The model process was asked for {kind!r}, which it does not know.")


def _failure(error: Exception) -> str:
    if isinstance(error, ReaderError):
        return str(error)
    return one_line(f"The model failed ({type(error).__name__}: {error}).")
