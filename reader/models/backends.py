"""Language-model backends behind one small interface.

- ``EmbeddedBackend`` (in ``reader.models.model_process``): a local GGUF file
  run by llama.cpp in a process of its own (the default), which there runs
  ``InProcessBackend`` (``reader.models.in_process``);
- ``ServerBackend`` (in ``reader.models.server_client``): any OpenAI-compatible
  server (llama.cpp server, vLLM, Ollama), the only code in reader that opens
  a network connection, and only to the URL the user configured;
- ``ScriptedBackend``: replays queued outputs, for deterministic tests.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, Protocol

from reader.errors import ModelError

Messages = list[dict[str, str]]
# Measured on the long-document question set (bench/qa): see the CHANGELOG.
REPEAT_PENALTY = 1.1
TokenCallback = Callable[[str], None]
# Tokens a judgement may take: a claim, its quote (one or two sentences) and the
# question, with the judge's instructions.
JUDGE_CONTEXT = 2048


@dataclass
class Generation:
    """What one call to a model produced."""

    text: str
    prompt_tokens: int = 0
    completion_tokens: int = 0
    seconds: float = 0.0
    first_token_seconds: float | None = None
    cancelled: bool = False
    # Each sampled token's characters in ``text`` and its log-probability under the
    # model's own distribution, where the backend can tell (a model run by reader
    # reading known text in); text read in, and other backends, have none.
    token_log_probabilities: tuple[tuple[int, int, float], ...] = ()


class CancelSignal(Protocol):
    """How a generation notices it should stop: a ``threading.Event``, or anything
    with ``is_set`` (the pipeline combines the user's cancel with its own stop)."""

    def is_set(self) -> bool: ...


class AnyOf:
    """A cancel signal that is set when any of its events is."""

    def __init__(self, *events: threading.Event | None) -> None:
        self.events = [event for event in events if event is not None]

    def is_set(self) -> bool:
        return any(event.is_set() for event in self.events)


class KnownText(Protocol):
    """Text the output is certain to continue with at some points (a quote, once its
    passage is named): ``after(output so far)`` gives it and the grammar for what
    follows it, or None. A backend that can read text in does so instead of
    sampling it; the others sample it under the grammar as usual."""

    def after(self, text: str) -> tuple[str, str] | None: ...


class Backend(Protocol):
    name: str
    supports_grammar: bool

    def generate(
        self,
        messages: Messages,
        grammar: str | None = None,
        max_tokens: int = 512,
        on_token: TokenCallback | None = None,
        cancel: CancelSignal | None = None,
    ) -> Generation: ...


def collect_pieces(
    pieces: Iterable[str],
    on_token: TokenCallback | None,
    cancel: CancelSignal | None,
    started: float,
) -> Generation:
    """A generation from the text pieces a model streams, stopped at ``cancel``."""
    parts: list[str] = []
    first: float | None = None
    count = 0
    cancelled = False
    for piece in pieces:
        if cancel is not None and cancel.is_set():
            cancelled = True
            break
        if not piece:
            continue
        if first is None:
            first = time.perf_counter() - started
        parts.append(piece)
        count += 1
        if on_token is not None:
            on_token(piece)
    return Generation(
        text="".join(parts),
        completion_tokens=count,
        seconds=time.perf_counter() - started,
        first_token_seconds=first,
        cancelled=cancelled,
    )


@dataclass
class ScriptedBackend:
    """Replays queued outputs in order; records what it was asked.

    An output may be a string (streamed a few characters at a time) or an
    exception to raise.
    """

    outputs: deque[str | Exception] = field(default_factory=deque)
    name: str = "scripted"
    supports_grammar: bool = True
    requests: list[dict[str, Any]] = field(default_factory=list)
    piece_size: int = 7

    def enqueue(self, *outputs: str | Exception) -> ScriptedBackend:
        self.outputs.extend(outputs)
        return self

    def generate(
        self,
        messages: Messages,
        grammar: str | None = None,
        max_tokens: int = 512,
        on_token: TokenCallback | None = None,
        cancel: CancelSignal | None = None,
    ) -> Generation:
        self.requests.append({"messages": messages, "grammar": grammar, "max_tokens": max_tokens})
        if not self.outputs:
            raise ModelError("The scripted backend has no output left.")
        output = self.outputs.popleft()
        if isinstance(output, Exception):
            raise output
        pieces = (
            output[index : index + self.piece_size]
            for index in range(0, len(output), self.piece_size)
        )
        generation = collect_pieces(pieces, on_token, cancel, time.perf_counter())
        generation.prompt_tokens = sum(len(m["content"]) // 4 for m in messages)
        return generation
