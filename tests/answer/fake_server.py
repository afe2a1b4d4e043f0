"""Fake model servers on 127.0.0.1, broken or well-behaved, for the server backend's tests."""

from __future__ import annotations

import json
import select
import socket
import struct
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler

STREAM_HEAD = (
    b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n"
)

Handler = Callable[[socket.socket, threading.Event], None]


class FakeServer:
    """A TCP server on 127.0.0.1 that runs ``handler`` on each connection in a thread.

    Without a handler it never accepts: its backlog is filled, so a new
    connection attempt waits and never completes.
    """

    def __init__(self, handler: Handler | None) -> None:
        self.listener = socket.create_server(("127.0.0.1", 0), backlog=0 if handler is None else 8)
        self.url = f"http://127.0.0.1:{self.listener.getsockname()[1]}"
        self.stop = threading.Event()
        self.sockets: list[socket.socket] = []
        if handler is None:
            self._fill_backlog()
        else:
            self.handler = handler
            threading.Thread(target=self._accept, daemon=True).start()

    def _fill_backlog(self) -> None:
        for _ in range(64):
            filler = socket.socket()
            filler.setblocking(False)
            filler.connect_ex(self.listener.getsockname())
            self.sockets.append(filler)
            _, writable, _ = select.select([], [filler], [], 0.2)
            if not writable:
                return  # this one waits: the backlog is full
        raise RuntimeError("connections to a server that never accepts kept completing")

    def _accept(self) -> None:
        self.listener.settimeout(0.05)
        while not self.stop.is_set():
            try:
                connection, _ = self.listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            self.sockets.append(connection)
            threading.Thread(target=self._serve, args=(connection,), daemon=True).start()

    def _serve(self, connection: socket.socket) -> None:
        try:
            self.handler(connection, self.stop)
        except OSError:
            pass  # the client went away, as some tests mean it to
        finally:
            connection.close()

    def close(self) -> None:
        self.stop.set()
        self.listener.close()
        for sock in self.sockets:
            sock.close()


def read_request(connection: socket.socket) -> dict:
    """The JSON body of the request reader sent (after checking its framing)."""
    data = b""
    while b"\r\n\r\n" not in data:
        received = connection.recv(65536)
        if not received:
            raise ConnectionError("the client closed before sending its request")
        data += received
    head, _, body = data.partition(b"\r\n\r\n")
    assert head.startswith(b"POST /v1/chat/completions HTTP/1.1\r\n")
    length = next(
        int(line.split(b":")[1])
        for line in head.split(b"\r\n")
        if line.lower().startswith(b"content-length")
    )
    while len(body) < length:
        body += connection.recv(65536)
    return json.loads(body)


def event(content: object) -> bytes:
    chunk = {"choices": [{"delta": {"content": content}}]}
    return b"data: " + json.dumps(chunk, ensure_ascii=False).encode() + b"\n\n"


def chunked(*parts: bytes) -> bytes:
    return b"".join(b"%x\r\n%s\r\n" % (len(part), part) for part in parts)


def answering(*sends: bytes, then: str = "close") -> Handler:
    """A handler that reads the request, sends each part, then closes, stalls or resets."""

    def handle(connection: socket.socket, stop: threading.Event) -> None:
        read_request(connection)
        for data in sends:
            connection.sendall(data)
        if then == "stall":
            stop.wait()
        elif then == "reset":
            connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))

    return handle


def html_page(status: str, size: int = 0) -> bytes:
    body = (
        f"<html><head><title>{status}</title><script>var x = '<b>';\n</script></head>\n"
        f"<body>\n<h1>{status}</h1>\n<p>The upstream &amp; the model crashed.</p>"
        + "<p>padding</p>\n" * (size // 15)
        + "</body></html>"
    ).encode()
    return (
        f"HTTP/1.1 {status}\r\nContent-Type: text/html\r\nContent-Length: {len(body)}\r\n\r\n"
    ).encode() + body


def sse(pieces: list[str], end: bytes = b"data: [DONE]\n\n") -> bytes:
    usage = b'data: {"choices": [], "usage": {"prompt_tokens": 11, "completion_tokens": 9}}\n\n'
    return b"".join(event(piece) for piece in pieces) + usage + end


def megabyte_stream(tail: str = "") -> tuple[list[str], bytes]:
    """Events of distinct words, 1 MB in all (the guard has nothing to stop)."""
    pieces: list[str] = ["<think>"]
    size = 0
    while size < 1_000_000:
        pieces.append(f" w{len(pieces):06d}")
        size += len(event(pieces[-1]))
    pieces.append(tail)
    return pieces, sse(pieces)


class StreamingHandler(BaseHTTPRequestHandler):
    """The standard library's HTTP server: it also checks that reader's request is HTTP."""

    protocol_version = "HTTP/1.1"
    body = b""

    def log_message(self, *_: object) -> None:
        pass

    def do_POST(self) -> None:
        request = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        assert request["stream"] is True and request["messages"]
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        lines = self.body.split(b"\n\n")
        self.wfile.write(chunked(*(line + b"\n\n" for line in lines if line)) + b"0\r\n\r\n")
