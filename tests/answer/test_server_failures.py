"""The server backend against real broken and hostile servers on 127.0.0.1.

Each fake server is a real socket served from a thread: one that never
accepts, never answers, stalls, resets, cuts a chunk, sends wrongly shaped
events or error pages, or streams a megabyte. Timeouts are fractions of a
second, so every wait ends quickly; each case must end in one ModelError line
(or a prompt cancel), never a traceback or a long wait.
"""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from http.server import ThreadingHTTPServer

import pytest

from reader.answer import Answerer, ServerBackend, ServerTimeouts
from reader.errors import Cancelled, ModelError
from tests.answer.fake_server import (
    STREAM_HEAD,
    FakeServer,
    Handler,
    StreamingHandler,
    answering,
    chunked,
    event,
    html_page,
    megabyte_stream,
    read_request,
    sse,
)

QUESTION = "When was the Treaty of Westphalia signed?"
MESSAGES = [{"role": "user", "content": "When?"}]
SHORT = 0.3  # the one wait a test is about
LONG = 30.0  # every other wait: a test that reached it would fail on time


@pytest.fixture
def serve() -> Iterator[Callable[[Handler | None], FakeServer]]:
    servers: list[FakeServer] = []

    def start(handler: Handler | None) -> FakeServer:
        servers.append(FakeServer(handler))
        return servers[-1]

    yield start
    for server in servers:
        server.close()


def backend(url: str, **timeouts: float) -> ServerBackend:
    waits = {
        "connect": LONG,
        "first_token": LONG,
        "between_tokens": LONG,
        "answer": LONG,
        **timeouts,
    }
    return ServerBackend(url, "x", ServerTimeouts(**waits))


def failure(server_url: str, **timeouts: float) -> str:
    """The one-line message generate fails with."""
    with pytest.raises(ModelError) as raised:
        backend(server_url, **timeouts).generate(MESSAGES)
    message = str(raised.value)
    assert "\n" not in message and "\r" not in message
    assert len(message) < 500
    assert server_url in message
    return message


# -- every wait has its own deadline ------------------------------------------------------


def test_a_server_that_never_accepts_times_out_connecting(serve):
    server = serve(None)
    message = failure(server.url, connect=SHORT)
    assert "did not accept a connection within 0.3 s" in message
    assert "Settings or --timeout" in message


@pytest.mark.parametrize(
    "handler",
    [answering(then="stall"), answering(STREAM_HEAD, then="stall")],
    ids=["nothing at all", "headers then nothing"],
)
def test_a_server_that_does_not_start_answering_times_out(serve, handler):
    message = failure(serve(handler).url, first_token=SHORT)
    assert "did not start answering within 0.3 s" in message


def test_a_stall_between_events_times_out(serve):
    handler = answering(
        STREAM_HEAD, chunked(event("The treaty "), event("was signed")), then="stall"
    )
    message = failure(serve(handler).url, between_tokens=SHORT)
    assert "sent nothing for 0.3 s in the middle of an answer" in message


def dripping(piece: str, every: float) -> Handler:
    """A server that answers, and never stops: one event of ``piece`` every ``every``
    seconds, each well within the wait between tokens."""

    def handle(connection: socket.socket, stop: threading.Event) -> None:
        read_request(connection)
        connection.sendall(STREAM_HEAD)
        while not stop.wait(every):
            try:
                connection.sendall(chunked(event(piece)))
            except OSError:
                return

    return handle


@pytest.mark.parametrize("piece", [" ", "The treaty"], ids=["blank tokens", "words"])
def test_a_server_that_drips_forever_ends_at_the_whole_answer_deadline(serve, piece):
    server = serve(dripping(piece, every=0.05))
    message = failure(server.url, between_tokens=1.0, answer=0.6)
    assert "did not finish its answer within 0.6 s" in message
    assert "whole-answer timeout in Settings or --timeout" in message


def test_the_whole_answer_deadline_bounds_the_wait_for_the_first_token(serve):
    handler = answering(STREAM_HEAD, then="stall")
    message = failure(serve(handler).url, first_token=LONG, answer=SHORT)
    assert "did not finish its answer within 0.3 s" in message


def test_a_tls_handshake_that_stalls_times_out_connecting(serve):
    server = serve(lambda connection, stop: stop.wait())
    https = server.url.replace("http://", "https://")
    assert "did not accept a connection within 0.3 s" in failure(https, connect=SHORT)


# -- cancel ends every wait promptly ------------------------------------------------------


WAITS = {
    "connecting": None,
    "the first byte": answering(then="stall"),
    "between events": answering(STREAM_HEAD, chunked(event("So far")), then="stall"),
}


@pytest.mark.parametrize("wait", WAITS)
def test_cancel_ends_each_wait_promptly(serve, wait):
    server = serve(WAITS[wait])
    cancel = threading.Event()
    cancelled_at: list[float] = []

    def press_cancel() -> None:
        cancelled_at.append(time.monotonic())
        cancel.set()

    timer = threading.Timer(0.3, press_cancel)
    timer.start()
    generation = backend(server.url).generate(MESSAGES, cancel=cancel)
    returned = time.monotonic()
    timer.join()
    assert generation.cancelled
    assert generation.text == ("So far" if wait == "between events" else "")
    assert returned - cancelled_at[0] < 1.0  # the waits are 30 s


def test_cancel_reaches_the_server_wait_through_the_pipeline(serve, treaty):
    library, doc_id = treaty
    server = serve(answering(then="stall"))
    cancel = threading.Event()
    threading.Timer(0.3, cancel.set).start()
    started = time.monotonic()
    with pytest.raises(Cancelled):
        Answerer(library, backend(server.url), mode="constrained").ask(
            QUESTION, [doc_id], cancel=cancel
        )
    assert time.monotonic() - started < 5.0  # the first-token wait is 30 s


# -- every transport failure is one line ----------------------------------------------------


def free_port_url() -> str:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{probe.getsockname()[1]}"


def test_a_refused_connection(serve):
    message = failure(free_port_url())
    assert "Cannot reach the model server" in message and "connection refused" in message


def test_a_host_name_that_does_not_resolve():
    assert "could not be resolved" in failure("http://no-such-host.invalid:8080")


def test_a_plain_server_behind_an_https_url_is_a_tls_failure(serve):
    def plain_http(connection: socket.socket, stop: threading.Event) -> None:
        connection.recv(65536)  # the TLS hello, which a plain server reads as a bad request
        connection.sendall(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n")

    server = serve(plain_http)
    message = failure(server.url.replace("http://", "https://"))
    assert "secure connection" in message and "http://" in message


BROKEN_TRANSPORT = {
    "reset before answering": (answering(then="reset"), "broke"),
    "reset mid-stream": (answering(STREAM_HEAD, chunked(event("a")), then="reset"), "broke"),
    "closed without answering": (answering(), "closed the connection without answering"),
    "closed mid-chunk": (
        answering(STREAM_HEAD, b"1f4\r\n" + event("cut")[:20]),
        "before the answer was complete",
    ),
    "closed before the last chunk": (
        answering(STREAM_HEAD, chunked(event("a"))),
        "before the answer was complete",
    ),
    "short body": (
        answering(b"HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n" + event("a")),
        "before the answer was complete",
    ),
    "a bad chunk size": (answering(STREAM_HEAD, b"zz\r\n"), "a chunk size of"),
    "a chunk longer than its size": (
        answering(STREAM_HEAD, b"2\r\nabcdef\r\n"),
        "a chunk longer than its size",
    ),
    "not HTTP": (answering(b"SSH-2.0-OpenSSH_9.6\r\n\r\n"), "did not answer in HTTP"),
    "a bad Content-Length": (
        answering(b"HTTP/1.1 200 OK\r\nContent-Length: lots\r\n\r\n"),
        "a Content-Length of",
    ),
    "endless header lines": (
        answering(b"HTTP/1.1 200 OK\r\n" + b"X-A: a\r\n" * 20_000),
        "headers longer than 64 KB",
    ),
    "an endless header": (
        answering(b"HTTP/1.1 200 OK\r\nX-A: " + b"a" * 100_000),
        "longer than 64 KB",
    ),
}


@pytest.mark.parametrize("case", BROKEN_TRANSPORT)
def test_a_broken_transport_is_one_clear_line(serve, case):
    handler, words = BROKEN_TRANSPORT[case]
    assert words in failure(serve(handler).url, first_token=5.0, between_tokens=5.0)


def test_an_html_500_page_becomes_its_words_on_one_line(serve):
    message = failure(serve(answering(html_page("500 Internal Server Error"))).url)
    assert "failed to answer (500 Internal Server Error: 500 Internal Server Error" in message
    assert "The upstream & the model crashed." in message
    assert "<" not in message and "var x" not in message


def test_a_huge_error_page_is_cut_short(serve):
    message = failure(serve(answering(html_page("502 Bad Gateway", size=5_000_000))).url)
    assert "(502 Bad Gateway: 502 Bad Gateway" in message and "padding" in message
    assert message.count("padding") < 30


def test_an_error_page_that_never_ends_still_gives_the_status(serve):
    handler = answering(
        b"HTTP/1.1 503 Busy\r\nContent-Length: 9999\r\n\r\nqueue full", then="stall"
    )
    message = failure(serve(handler).url, between_tokens=SHORT)
    assert "(503 Busy: queue full)" in message


def test_a_json_error_with_newlines_is_one_line(serve):
    body = json.dumps({"error": {"message": "model 'x' not found\nTry: llama-server -m\r\nnow"}})
    response = f"HTTP/1.1 404 Not Found\r\nContent-Length: {len(body)}\r\n\r\n{body}".encode()
    message = failure(serve(answering(response)).url)
    assert "refused the request (404 Not Found: model 'x' not found Try: llama-server" in message
    assert "check the URL and the model name" in message


def test_a_web_page_with_status_200_is_not_an_answer(serve):
    page = html_page("200 OK")
    assert "answered with a web page" in failure(serve(answering(page)).url)


def test_a_redirect_names_where_it_points(serve):
    response = b"HTTP/1.1 307 Temporary Redirect\r\nLocation: https://elsewhere/v1\r\n\r\n"
    assert "redirected the request to https://elsewhere/v1" in failure(
        serve(answering(response)).url
    )


# -- every wrongly shaped event is one line ---------------------------------------------------

WRONG_EVENTS = {
    "a list": (b"data: [1, 2]\n\n", "it is not a JSON object"),
    "a string": (b'data: "text"\n\n', "it is not a JSON object"),
    "a number": (b"data: 42\n\n", "it is not a JSON object"),
    "not JSON": (b"data: {oops\n\n", "it is not JSON"),
    "deeply nested": (b"data: " + b"[" * 100_000 + b"\n\n", "it is not JSON"),
    "an integer content": (event(7), "a choice's content is not text"),
    "a list content": (event(["a"]), "a choice's content is not text"),
    "choices not a list": (b'data: {"choices": {"delta": {}}}\n\n', "its choices are not a list"),
    "a choice not an object": (b'data: {"choices": [1]}\n\n', "a choice is not an object"),
    "delta not an object": (
        b'data: {"choices": [{"delta": "x"}]}\n\n',
        "a choice's delta is not an object",
    ),
    "a huge string": (b'data: "' + b"x" * 200_000 + b'"\n\n', "it is not a JSON object"),
}


@pytest.mark.parametrize("case", WRONG_EVENTS)
def test_a_wrongly_shaped_event_is_one_clear_line(serve, case):
    data, problem = WRONG_EVENTS[case]
    handler = answering(STREAM_HEAD, chunked(event("fine so far"), data))
    message = failure(serve(handler).url)
    assert f"sent an event reader cannot read ({problem}:" in message


def test_an_error_event_mid_stream_gives_the_server_s_words(serve):
    error = b'data: {"error": {"code": 400, "message": "the request exceeds\\nthe context"}}\n\n'
    message = failure(serve(answering(STREAM_HEAD, chunked(event("a"), error))).url)
    assert "reported an error (the request exceeds the context)" in message


# -- well-formed streams, however framed, give the whole text -------------------------------


FRAMINGS = {
    "chunks cut anywhere": lambda body: (
        STREAM_HEAD + chunked(*(body[i : i + 5] for i in range(0, len(body), 5))) + b"0\r\n\r\n"
    ),
    "content-length": lambda body: (
        b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n" % len(body) + body
    ),
    "until close, CRLF lines": lambda body: (
        b"HTTP/1.0 200 OK\r\n\r\n" + body.replace(b"\n", b"\r\n")
    ),
    "after a 100 Continue": lambda body: (
        b"HTTP/1.1 100 Continue\r\n\r\n" + STREAM_HEAD + chunked(body) + b"0\r\n\r\n"
    ),
}


@pytest.mark.parametrize("framing", FRAMINGS)
def test_each_framing_gives_the_whole_text(serve, framing):
    pieces = ["The Treaty ", "of Westphalia ", "was signed in 1648 — “in” Münster."]
    server = serve(answering(FRAMINGS[framing](sse(pieces, end=b""))))
    tokens: list[str] = []
    generation = backend(server.url).generate(MESSAGES, on_token=tokens.append)
    assert generation.text == "".join(pieces) and tokens == pieces
    assert (generation.prompt_tokens, generation.completion_tokens) == (11, 9)
    assert not generation.cancelled


def test_a_server_that_ignores_stream_gives_one_json_answer(serve):
    body = json.dumps({"choices": [{"message": {"role": "assistant", "content": "Whole."}}]})
    response = f"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {len(body)}"
    server = serve(answering(f"{response}\r\n\r\n{body}".encode()))
    assert backend(server.url).generate(MESSAGES).text == "Whole."


@pytest.fixture
def megabyte_server() -> Iterator[Callable[[bytes], str]]:
    servers: list[ThreadingHTTPServer] = []

    def start(body: bytes) -> str:
        handler = type("Handler", (StreamingHandler,), {"body": body})
        server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        servers.append(server)
        return f"http://127.0.0.1:{server.server_address[1]}"

    yield start
    for server in servers:
        server.shutdown()
        server.server_close()


def test_a_megabyte_of_events_is_read_in_linear_time(megabyte_server):
    pieces, body = megabyte_stream()
    url = megabyte_server(body)
    # CPU time of this thread: the cost of reading, not of the server or other programs.
    started = time.thread_time()
    generation = backend(url).generate(MESSAGES)
    spent = time.thread_time() - started
    assert generation.text == "".join(pieces)
    assert spent < 1.0, f"reading 1 MB of events took {spent:.2f} s of CPU"


def test_a_megabyte_answer_goes_through_the_pipeline_in_linear_time(megabyte_server, treaty):
    library, doc_id = treaty
    claim = {
        "text": "It was signed in 1648.",
        "source_id": "c1",
        "quote": "The Treaty of Westphalia was signed in 1648.",
    }
    tail = '</think>{"answer": "1648", "claims": [' + json.dumps(claim) + "]}"
    _, body = megabyte_stream(tail)
    answerer = Answerer(library, backend(megabyte_server(body)), mode="constrained")
    started = time.thread_time()
    answer = answerer.ask(QUESTION, [doc_id])
    spent = time.thread_time() - started
    assert answer.problem is None, answer.problem
    model_claims = [c for c in answer.claims if not c.from_evidence]
    assert [c.claim.quote for c in model_claims] == [claim["quote"]]
    assert model_claims[0].verified
    assert spent < 1.0, f"answering from 1 MB of events took {spent:.2f} s of CPU"


# -- --timeout on the command line ------------------------------------------------------------


def test_the_cli_timeout_ends_a_stalled_server_with_one_error_line(serve, treaty):
    _, doc_id = treaty
    server = serve(answering(then="stall"))
    completed = subprocess.run(
        [
            sys.executable,
            "-m",
            "reader.cli",
            "ask",
            doc_id,
            QUESTION,
            "--url",
            server.url,
            "--model-name",
            "x",
            "--mode",
            "constrained",
            "--timeout",
            "0.5",
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert completed.returncode == 2, completed
    lines = completed.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), completed.stderr
    assert "did not start answering within 0.5 s" in lines[0]
    assert "Traceback" not in completed.stderr


@pytest.mark.parametrize("command", ["ask", "eval"])
def test_timeout_is_documented_and_checked(command):
    from click.testing import CliRunner

    from reader.cli import cli

    help_text = " ".join(CliRunner().invoke(cli, [command, "--help"]).output.split())
    assert "--timeout SECONDS" in help_text and "and for the whole answer" in help_text
    refused = CliRunner().invoke(cli, [command, "--timeout", "0", "x"])
    assert refused.exit_code == 2 and "--timeout" in refused.output
