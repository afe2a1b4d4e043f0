"""An OpenAI-compatible chat-completions server as a backend, hardened against broken ones.

The server is outside reader's control: it may be down, slow, hung, or not
the kind of server the URL was meant for. Each wait has its own deadline
(``ServerTimeouts``), every wait ends promptly when the user cancels, and
whatever the server sends, however broken, ends in one ``ModelError`` line
saying what happened and what to do.
"""

from __future__ import annotations

import contextlib
import html
import json
import re
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from reader import __version__
from reader.config import DEFAULTS
from reader.errors import Cancelled, ModelError
from reader.models.backends import CancelSignal, Generation, Messages, TokenCallback, collect_pieces
from reader.models.endpoint import Endpoint, shown
from reader.models.http_stream import DeadlinePassed, Head, StreamingConnection

ERROR_BODY_BYTES = 4096
MAX_ANSWER_BYTES = 16 * 2**20  # a whole answer from a server that ignored "stream"
# Markup, script and style blocks, and a tag cut off at the end of what was read.
_TAGS = re.compile(r"<(script|style)\b.*?</\1\s*>|<[^>]*(?:>|$)", re.DOTALL | re.IGNORECASE)


@dataclass(frozen=True)
class ServerTimeouts:
    """Seconds reader waits on a model server at each step before giving up.

    - ``connect``: to open the connection. A reachable server accepts in
      milliseconds; 10 s allows a slow VPN, and a wrong address fails in 10 s
      instead of the minutes the system would take.
    - ``first_token``: from sending the question to the first event of the
      answer. The server evaluates the whole prompt first, and a busy one
      queues the request behind others: a few thousand prompt tokens on a
      loaded GPU, or on a CPU-only server, take tens of seconds, so 120 s.
    - ``between_tokens``: the longest silence once the answer has started.
      Tokens come many times a second; a minute of nothing means a hung
      server or a dropped connection.
    - ``answer``: the whole answer, from sending the question to its last
      token. Each wait above can be kept short by a server that sends a byte
      or a blank token now and then; this one it cannot. An answer of a few
      hundred tokens from a CPU-only server takes a minute or two: 10 minutes.
    """

    connect: float = DEFAULTS.server_connect_timeout
    first_token: float = DEFAULTS.server_first_token_timeout
    between_tokens: float = DEFAULTS.server_between_tokens_timeout
    answer: float = DEFAULTS.server_answer_timeout

    @classmethod
    def all(cls, seconds: float) -> ServerTimeouts:
        """One limit for every wait and for the whole answer (``--timeout``)."""
        return cls(seconds, seconds, seconds, seconds)


class ServerBackend:
    """An OpenAI-compatible chat-completions server at a URL the user gave.

    The GBNF grammar is sent in the ``grammar`` field, which llama.cpp's
    servers honour; others ignore it, and the parser and verifier then handle
    whatever comes back.
    """

    supports_grammar = True

    def __init__(
        self,
        url: str,
        model: str,
        timeouts: ServerTimeouts | None = None,
        api_key: str | None = None,
    ) -> None:
        self.url = url.rstrip("/")
        if not self.url.endswith("/v1"):
            self.url += "/v1"
        self.model = model
        self.name = f"{model}@{url}"
        self.timeouts = timeouts or ServerTimeouts()
        self.api_key = api_key

    def generate(
        self,
        messages: Messages,
        grammar: str | None = None,
        max_tokens: int = 512,
        on_token: TokenCallback | None = None,
        cancel: CancelSignal | None = None,
    ) -> Generation:
        endpoint = Endpoint.parse(self.url)
        started = time.perf_counter()
        usage: dict[str, int] = {}
        with StreamingConnection(endpoint, self.url, cancel) as connection:
            try:
                try:
                    connection.connect(self.timeouts.connect)
                except DeadlinePassed:
                    raise self._timed_out("connect") from None
                now = time.monotonic()
                last_deadline = now + self.timeouts.answer
                first_deadline = now + self.timeouts.first_token
                try:
                    waiting = min(first_deadline, last_deadline)
                    connection.send(self._request(endpoint, messages, grammar, max_tokens), waiting)
                    head = connection.read_head(waiting)
                except DeadlinePassed:
                    wait = _which("first_token", first_deadline, last_deadline)
                    raise self._timed_out(wait) from None
            except Cancelled:
                return Generation(text="", seconds=time.perf_counter() - started, cancelled=True)
            self._check_head(connection, head)
            pieces = self._pieces(connection, head, usage, first_deadline, last_deadline)
            generation = collect_pieces(pieces, on_token, cancel, started)
        if cancel is not None and cancel.is_set():
            generation.cancelled = True
        generation.prompt_tokens = usage.get("prompt_tokens", 0)
        generation.completion_tokens = usage.get("completion_tokens", generation.completion_tokens)
        return generation

    def _request(
        self, endpoint: Endpoint, messages: Messages, grammar: str | None, max_tokens: int
    ) -> bytes:
        body: dict[str, Any] = {
            "model": self.model,
            "messages": messages,
            "max_tokens": max_tokens,
            "temperature": 0.0,
            "stream": True,
            "stream_options": {"include_usage": True},
        }
        if grammar:
            body["grammar"] = grammar
        else:
            body["response_format"] = {"type": "json_object"}
        data = json.dumps(body).encode()
        headers = {
            "Host": endpoint.host_header,
            "User-Agent": f"reader/{__version__}",
            "Content-Type": "application/json",
            "Accept": "text/event-stream",
            "Content-Length": str(len(data)),
            "Connection": "close",
        }
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        path = f"{endpoint.path}/chat/completions"
        head = [f"POST {path} HTTP/1.1", *(f"{k}: {v}" for k, v in headers.items())]
        return ("\r\n".join(head) + "\r\n\r\n").encode("latin-1") + data

    # -- the response -----------------------------------------------------------------

    def _check_head(self, connection: StreamingConnection, head: Head) -> None:
        """A ModelError unless the response is a stream (or one JSON object) of events."""
        if 300 <= head.status < 400:
            where = shown(head.headers.get("location", "another address"))
            raise ModelError(
                f"The model server at {self.url} redirected the request to {where} "
                f"({head.status}); use the address it names as the server URL."
            )
        if not 200 <= head.status < 300:
            detail = self._error_detail(connection, head)
            status = shown(f"{head.status} {head.reason}".strip(), 60)
            if head.status >= 500:
                raise ModelError(
                    f"The model server at {self.url} failed to answer ({status}: {detail}); "
                    "check the server's log, or try again."
                )
            raise ModelError(
                f"The model server at {self.url} refused the request ({status}: {detail}); "
                "check the URL and the model name."
            )
        if "text/html" in head.headers.get("content-type", "").lower():
            raise ModelError(
                f"The model server at {self.url} answered with a web page, not a stream of "
                "answer events; check that the URL is the server's API address."
            )

    def _error_detail(self, connection: StreamingConnection, head: Head) -> str:
        """The reason an error response gives, cut to one short line."""
        deadline = time.monotonic() + min(5.0, self.timeouts.between_tokens)
        # A page that stalls or breaks off still shows what did arrive.
        with contextlib.suppress(DeadlinePassed, Cancelled, ModelError):
            connection.read_body(ERROR_BODY_BYTES, deadline)
        text = connection.body_so_far(ERROR_BODY_BYTES).decode("utf-8", "replace")
        detail: object = None
        try:
            document = json.loads(text)
        except (ValueError, RecursionError):
            document = None
        if isinstance(document, dict):
            error = document.get("error", document)
            detail = error.get("message", error.get("detail")) if isinstance(error, dict) else error
        if not isinstance(detail, str) or not detail.strip():
            detail = html.unescape(_TAGS.sub(" ", text)) if "<" in text else text
        return shown(detail) or shown(head.reason) or "no reason given"

    def _pieces(
        self,
        connection: StreamingConnection,
        head: Head,
        usage: dict[str, int],
        first_deadline: float,
        last_deadline: float,
    ) -> Iterator[str]:
        """The content of each event as it arrives, until [DONE] or the end of the body;
        no wait goes past ``last_deadline``, the whole answer's."""
        if "application/json" in head.headers.get("content-type", "").lower():
            # A server that ignored "stream": the whole answer in one object.
            try:
                body = connection.read_body(MAX_ANSWER_BYTES, min(first_deadline, last_deadline))
            except DeadlinePassed:
                wait = _which("first_token", first_deadline, last_deadline)
                raise self._timed_out(wait) from None
            except Cancelled:
                return
            yield from self._event_pieces(body.decode("utf-8", "replace"), usage)
            return
        deadline, waiting_for = first_deadline, "first_token"
        while True:
            try:
                lines = connection.read_lines(min(deadline, last_deadline))
            except DeadlinePassed:
                raise self._timed_out(_which(waiting_for, deadline, last_deadline)) from None
            except Cancelled:
                return
            if lines is None:
                return
            for line in lines:
                if not line.startswith(b"data:"):
                    continue  # blank separators, comments, "event:" and "id:" fields
                data = line[5:].strip().decode("utf-8", "replace")
                if data == "[DONE]":
                    return
                if data:
                    deadline = time.monotonic() + self.timeouts.between_tokens
                    waiting_for = "between"
                    yield from self._event_pieces(data, usage)

    def _event_pieces(self, data: str, usage: dict[str, int]) -> Iterator[str]:
        """The text one event carries; a ModelError if it is not a chat-completion chunk."""
        try:
            event = json.loads(data)
        except (ValueError, RecursionError):
            raise self._wrong_shape("it is not JSON", data) from None
        if not isinstance(event, dict):
            raise self._wrong_shape("it is not a JSON object", data)
        if event.get("error") is not None:
            error = event["error"]
            message = error.get("message", error) if isinstance(error, dict) else error
            raise ModelError(
                f"The model server at {self.url} reported an error "
                f"({shown(str(message))}); check the server's log."
            )
        if isinstance(event.get("usage"), dict):
            usage.update(
                {
                    key: value
                    for key, value in event["usage"].items()
                    if isinstance(value, int) and not isinstance(value, bool) and value >= 0
                }
            )
        choices = event.get("choices")
        if choices is None:
            return
        if not isinstance(choices, list):
            raise self._wrong_shape("its choices are not a list", data)
        for choice in choices:
            if not isinstance(choice, dict):
                raise self._wrong_shape("a choice is not an object", data)
            # "delta" in a stream; "message" in a whole answer from a server that ignored it.
            delta = choice.get("delta", choice.get("message"))
            if delta is None:
                continue
            if not isinstance(delta, dict):
                raise self._wrong_shape("a choice's delta is not an object", data)
            content = delta.get("content")
            if content is not None and not isinstance(content, str):
                raise self._wrong_shape("a choice's content is not text", data)
            if content:
                yield content

    # -- messages ---------------------------------------------------------------------

    def _timed_out(self, wait: str) -> ModelError:
        if wait == "connect":
            return ModelError(
                f"The model server at {self.url} did not accept a connection within "
                f"{self.timeouts.connect:g} s; check that it is running and reachable, or "
                "allow longer with the connect timeout in Settings or --timeout."
            )
        if wait == "answer":
            return ModelError(
                f"The model server at {self.url} did not finish its answer within "
                f"{self.timeouts.answer:g} s; it may be overloaded: try again, or allow longer "
                "with the whole-answer timeout in Settings or --timeout."
            )
        if wait == "first_token":
            return ModelError(
                f"The model server at {self.url} did not start answering within "
                f"{self.timeouts.first_token:g} s; it may be busy: try again, or allow longer "
                "with the first-token timeout in Settings or --timeout."
            )
        return ModelError(
            f"The model server at {self.url} sent nothing for {self.timeouts.between_tokens:g} s "
            "in the middle of an answer; try again, or allow longer with the timeout between "
            "tokens in Settings or --timeout."
        )

    def _wrong_shape(self, problem: str, data: str) -> ModelError:
        return ModelError(
            f"The model server at {self.url} sent an event reader cannot read ({problem}: "
            f"{shown(data, 80)}); check that the URL is an OpenAI-compatible "
            "chat-completions server."
        )


def _which(wait: str, deadline: float, last_deadline: float) -> str:
    """The limit that ran out: the wait's own, or the whole answer's if it came first."""
    return "answer" if last_deadline < deadline else wait
