"""One streamed HTTP/1.1 request whose every wait has a deadline and can be cancelled.

urllib waits in blocking calls that nothing can interrupt, and a response it
timed out on cannot be read again. This client drives a non-blocking socket
itself and waits in short slices, so each wait (resolving the host,
connecting, sending, every read) ends within a slice of the user cancelling,
and at its deadline otherwise. It reads chunked, sized and close-delimited
bodies, over plain TCP or TLS.

Everything the server sends is untrusted: sizes are capped, malformed framing
is an error, and any of the server's text that reaches a message is cut to one
short line (``shown``).
"""

from __future__ import annotations

import errno
import os
import re
import selectors
import socket
import ssl
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from reader.errors import Cancelled, ModelError
from reader.models.backends import CancelSignal
from reader.models.endpoint import Endpoint, shown

# How often a wait looks at the cancel signal: cancelling takes at most this long.
SLICE_SECONDS = 0.05
RECEIVE_BYTES = 65536
MAX_HEAD_BYTES = 64 * 1024
MAX_LINE_BYTES = 4 * 1024 * 1024
MAX_BODY_BYTES = 64 * 1024 * 1024
_STATUS_LINE = re.compile(rb"HTTP/1\.[01] +(\d{3})(?: +(.*))?")
_IN_PROGRESS = {errno.EINPROGRESS, errno.EWOULDBLOCK, errno.EALREADY, errno.EAGAIN}
# (family, type, proto, canonical name, address) as getaddrinfo gives them
AddressInfo = tuple[socket.AddressFamily, socket.SocketKind, int, str, Any]


class DeadlinePassed(Exception):
    """A wait on the server reached its deadline."""


@dataclass
class Head:
    """The status line and headers of a response (header names in lower case)."""

    status: int
    reason: str
    headers: dict[str, str] = field(default_factory=dict)


class StreamingConnection:
    """One request and its response over one connection, closed afterwards.

    ``server`` names the server in messages; ``cancel`` is looked at during
    every wait. Waits that pass their deadline raise ``DeadlinePassed`` and
    the caller says which wait it was; a set ``cancel`` raises
    ``Cancelled``; every transport failure is a ``ModelError``.
    """

    def __init__(self, endpoint: Endpoint, server: str, cancel: CancelSignal | None) -> None:
        self.endpoint = endpoint
        self.server = server
        self.cancel = cancel
        self._sock: socket.socket | None = None
        self._selector = selectors.DefaultSelector()
        self._registered: int | None = None
        self._raw = bytearray()  # received, not yet decoded
        self._body = bytearray()  # decoded body, not yet returned
        self._line_scanned = 0  # bytes of ``_body`` known to hold no newline
        self._body_ended = False
        self._received = 0
        self._framing = "close"
        self._left = 0  # bytes left in the body (sized) or in the current chunk

    def __enter__(self) -> StreamingConnection:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def close(self) -> None:
        self._selector.close()
        if self._sock is not None:
            self._sock.close()
            self._sock = None

    # -- connecting -----------------------------------------------------------------

    def connect(self, timeout: float) -> None:
        """Resolve the host and open the connection (and TLS) within ``timeout`` seconds."""
        deadline = time.monotonic() + timeout
        addresses = self._resolve(deadline)
        failure: OSError | None = None
        for family, kind, proto, _, address in addresses:
            candidate = socket.socket(family, kind, proto)
            candidate.setblocking(False)
            try:
                self._connect_one(candidate, address, deadline)
            except OSError as error:
                candidate.close()
                failure = error
                continue
            except BaseException:
                candidate.close()
                raise
            self._sock = candidate
            break
        if self._sock is None:
            reason = failure.strerror if failure and failure.strerror else str(failure)
            raise self._unreachable(reason.lower() if reason else "no address to connect to")
        self._sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        if self.endpoint.scheme == "https":
            self._start_tls(deadline)

    def _resolve(self, deadline: float) -> list[AddressInfo]:
        """getaddrinfo in a helper thread: the lookup itself cannot be interrupted."""
        outcome: list[object] = []
        finished = threading.Event()

        def look_up() -> None:
            try:
                outcome.append(
                    socket.getaddrinfo(
                        self.endpoint.host, self.endpoint.port, type=socket.SOCK_STREAM
                    )
                )
            except (OSError, UnicodeError) as error:
                outcome.append(error)
            finished.set()

        threading.Thread(target=look_up, name="reader-resolve", daemon=True).start()
        self._wait_until(finished.is_set, deadline)
        result = outcome[0]
        if isinstance(result, socket.gaierror | UnicodeError):
            raise self._unreachable(
                f"the host name {shown(self.endpoint.host)} could not be resolved: "
                f"{shown(_reason(result))}"
            )
        if isinstance(result, OSError):
            raise self._unreachable(shown(_reason(result)))
        assert isinstance(result, list)
        return result

    def _connect_one(self, candidate: socket.socket, address: Any, deadline: float) -> None:
        code = candidate.connect_ex(address)
        if code in _IN_PROGRESS:
            self._sock = candidate
            try:
                self._wait(selectors.EVENT_WRITE, deadline)
            finally:
                self._unregister()
                self._sock = None
            code = candidate.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR)
        if code not in (0, errno.EISCONN):
            raise OSError(code, os.strerror(code))

    def _start_tls(self, deadline: float) -> None:
        assert self._sock is not None
        context = ssl.create_default_context()
        self._unregister()
        tls = context.wrap_socket(
            self._sock, server_hostname=self.endpoint.host, do_handshake_on_connect=False
        )
        self._sock = tls
        while True:
            try:
                tls.do_handshake()
                return
            except ssl.SSLWantReadError:
                self._wait(selectors.EVENT_READ, deadline)
            except ssl.SSLWantWriteError:
                self._wait(selectors.EVENT_WRITE, deadline)
            except ssl.SSLCertVerificationError as error:
                raise ModelError(
                    f"The model server at {self.server} has a certificate that cannot be "
                    f"trusted ({shown(error.verify_message or str(error))}); check the URL "
                    "and the server's certificate."
                ) from None
            except (ssl.SSLError, OSError) as error:
                raise ModelError(
                    f"A secure connection to the model server at {self.server} failed "
                    f"({shown(_reason(error))}); check whether the URL should start with "
                    "http:// instead of https://."
                ) from None

    # -- the request and the response's head ------------------------------------------

    def send(self, data: bytes, deadline: float) -> None:
        assert self._sock is not None
        view = memoryview(data)
        while view:
            try:
                sent = self._sock.send(view)
            except ssl.SSLWantReadError:
                self._wait(selectors.EVENT_READ, deadline)
                continue
            except (BlockingIOError, InterruptedError, ssl.SSLWantWriteError):
                self._wait(selectors.EVENT_WRITE, deadline)
                continue
            except OSError as error:
                raise self._lost("while the question was sent", error) from None
            view = view[sent:]

    def read_head(self, deadline: float) -> Head:
        """The response's status and headers (an interim 1xx response is skipped)."""
        read = 0
        while True:
            status_line = self._raw_line(deadline, at_start=True)
            read += len(status_line)
            match = _STATUS_LINE.fullmatch(status_line.rstrip(b"\r\n"))
            if match is None:
                raise ModelError(
                    f"The model server at {self.server} did not answer in HTTP "
                    f"({shown(status_line.decode('latin-1'))!r}); check the URL's port."
                )
            head = Head(int(match.group(1)), (match.group(2) or b"").decode("latin-1").strip())
            while line := self._raw_line(deadline).rstrip(b"\r\n"):
                read += len(line)
                if read > MAX_HEAD_BYTES:
                    raise self._malformed("headers longer than 64 KB")
                name, colon, value = line.decode("latin-1").partition(":")
                if colon:
                    key = name.strip().lower()
                    joined = f"{head.headers[key]}, " if key in head.headers else ""
                    head.headers[key] = joined + value.strip()
            if not 100 <= head.status < 200:
                break
        self._choose_framing(head)
        return head

    def _choose_framing(self, head: Head) -> None:
        if "chunked" in head.headers.get("transfer-encoding", "").lower():
            self._framing, self._left = "chunked", 0
        elif "content-length" in head.headers:
            length = head.headers["content-length"].split(",")[0].strip()
            if not length.isdigit():
                raise self._malformed(f"a Content-Length of {shown(length)!r}")
            self._framing, self._left = "sized", int(length)
            self._body_ended = self._left == 0
        elif head.status in (204, 304):
            self._body_ended = True
        else:
            self._framing = "close"

    # -- the body ---------------------------------------------------------------------

    def read_lines(self, deadline: float) -> list[bytes] | None:
        """The body's next complete lines (at least one, without their newline); None
        once the body has ended. All lines already received come at once."""
        while True:
            first = self._body.find(b"\n", self._line_scanned)
            if first >= 0:
                last = self._body.rfind(b"\n", first)
                block = bytes(self._body[: last + 1])
                del self._body[: last + 1]
                self._line_scanned = 0
                return block.split(b"\n")[:-1]
            self._line_scanned = len(self._body)
            if len(self._body) > MAX_LINE_BYTES:
                raise self._malformed(f"a line longer than {MAX_LINE_BYTES // 2**20} MB")
            if self._body_ended:
                rest, self._body = bytes(self._body), bytearray()
                return [rest] if rest else None
            self._decode_some(deadline)

    def read_body(self, limit: int, deadline: float) -> bytes:
        """The body, or its first ``limit`` bytes (enough for a look at an error page)."""
        while len(self._body) < limit and not self._body_ended:
            self._decode_some(deadline)
        return self.body_so_far(limit)

    def body_so_far(self, limit: int) -> bytes:
        """The first ``limit`` bytes of the body received so far."""
        return bytes(self._body[:limit])

    def _decode_some(self, deadline: float) -> None:
        """Move every received byte of the body into ``_body``, receiving first if none."""
        if not self._raw:
            self._receive(deadline, must_get=self._framing != "close")
            if not self._raw:  # closed: the end of a close-delimited body
                self._body_ended = True
                return
        while self._raw and not self._body_ended:
            self._decode_received(deadline)

    def _decode_received(self, deadline: float) -> None:
        if self._framing == "chunked" and self._left == 0:
            size_line = self._raw_line(deadline).split(b";")[0].strip()
            try:
                self._left = int(size_line, 16)
            except ValueError:
                raise self._malformed(
                    f"a chunk size of {shown(size_line.decode('latin-1'))!r}"
                ) from None
            if self._left < 0:
                raise self._malformed("a negative chunk size")
            if self._left == 0:
                while self._raw_line(deadline).strip():
                    pass  # trailer fields, unused
                self._body_ended = True
            return
        if self._framing == "close":
            taken = len(self._raw)
        else:
            taken = min(self._left, len(self._raw))
            self._left -= taken
        self._body += self._raw[:taken]
        del self._raw[:taken]
        if self._framing == "sized" and self._left == 0:
            self._body_ended = True
        elif self._framing == "chunked" and self._left == 0 and self._raw_line(deadline).strip():
            raise self._malformed("a chunk longer than its size")

    def _raw_line(self, deadline: float, at_start: bool = False) -> bytes:
        """One line of the framing (status, header, chunk size), newline included."""
        scanned = 0
        while (newline := self._raw.find(b"\n", scanned)) < 0:
            scanned = len(self._raw)
            if scanned > MAX_HEAD_BYTES:
                raise self._malformed("a header or chunk line longer than 64 KB")
            self._receive(deadline, must_get=True, at_start=at_start and not self._raw)
        line = bytes(self._raw[: newline + 1])
        del self._raw[: newline + 1]
        return line

    def _receive(self, deadline: float, must_get: bool, at_start: bool = False) -> None:
        """Append what the server sent next; at the end, b"" unless ``must_get``."""
        assert self._sock is not None
        while True:
            try:
                data = self._sock.recv(RECEIVE_BYTES)
                break
            except ssl.SSLWantWriteError:
                self._wait(selectors.EVENT_WRITE, deadline)
            except (BlockingIOError, InterruptedError, ssl.SSLWantReadError):
                self._wait(selectors.EVENT_READ, deadline)
            except OSError as error:
                raise self._lost("before the answer was complete", error) from None
        if not data and must_get:
            if at_start and self._received == 0:
                raise ModelError(
                    f"The model server at {self.server} closed the connection without "
                    "answering; check the server's log and that the URL is right."
                )
            raise ModelError(
                f"The model server at {self.server} closed the connection before the answer "
                "was complete; try again, and check the server's log."
            )
        self._received += len(data)
        if self._received > MAX_BODY_BYTES:
            raise self._malformed(f"more than {MAX_BODY_BYTES // 2**20} MB")
        self._raw += data

    # -- waiting ----------------------------------------------------------------------

    def _wait(self, event: int, deadline: float) -> None:
        """Until the socket is ready for ``event``; raises at the deadline or on cancel."""
        assert self._sock is not None
        if self._registered is None:
            self._selector.register(self._sock, event)
        elif self._registered != event:
            self._selector.modify(self._sock, event)
        self._registered = event
        while True:
            self._check_cancel()
            left = deadline - time.monotonic()
            if left <= 0:
                raise DeadlinePassed
            if self._selector.select(min(left, SLICE_SECONDS)):
                return

    def _wait_until(self, done: Callable[[], bool], deadline: float) -> None:
        while not done():
            self._check_cancel()
            if time.monotonic() >= deadline:
                raise DeadlinePassed
            time.sleep(min(SLICE_SECONDS / 5, max(0.0, deadline - time.monotonic())))

    def _check_cancel(self) -> None:
        if self.cancel is not None and self.cancel.is_set():
            raise Cancelled("The question was cancelled.")

    def _unregister(self) -> None:
        if self._registered is not None and self._sock is not None:
            self._selector.unregister(self._sock)
        self._registered = None

    # -- messages ---------------------------------------------------------------------

    def _unreachable(self, reason: str) -> ModelError:
        return ModelError(
            f"Cannot reach the model server at {self.server} ({reason}); "
            "check that it is running and the URL is right."
        )

    def _lost(self, when: str, error: OSError) -> ModelError:
        return ModelError(
            f"The connection to the model server at {self.server} broke {when} "
            f"({shown(_reason(error))}); try again, and check the server's log."
        )

    def _malformed(self, what: str) -> ModelError:
        return ModelError(
            f"The model server at {self.server} sent a broken response ({what}); "
            "check that the URL is an OpenAI-compatible server."
        )


def _reason(error: BaseException) -> str:
    if isinstance(error, ssl.SSLError) and error.reason:
        return str(error.reason).replace("_", " ").lower()
    if isinstance(error, OSError) and error.strerror:
        return error.strerror.lower()
    return str(error) or type(error).__name__
