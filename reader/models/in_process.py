"""A GGUF model run by llama-cpp-python in this process: ``InProcessBackend``.

reader runs it in a process of its own (``reader.models.model_process``), so a
crash in llama.cpp never takes reader down; benchmarks and tests also run it
here. Greedy sampling under a grammar goes through ``LazyGrammarSampler``, and
the threads it uses are the cores other work leaves free.
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
from collections.abc import Generator, Iterator
from pathlib import Path
from typing import Any

from reader.errors import ModelError
from reader.models.backends import (
    JUDGE_CONTEXT,
    REPEAT_PENALTY,
    CancelSignal,
    Generation,
    KnownText,
    Messages,
    TokenCallback,
    collect_pieces,
)

__all__ = ["InProcessBackend", "free_cores"]


def _cpu_times() -> tuple[int, int] | None:
    """(busy, total) jiffies over all cores since boot, on Linux; None elsewhere."""
    try:
        with open("/proc/stat", encoding="ascii") as stat:
            fields = [int(v) for v in stat.readline().split()[1:]]
    except (OSError, ValueError):
        return None
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0)
    return sum(fields) - idle, sum(fields)


def free_cores(cores: int, sample_seconds: float = 0.05) -> int:
    """How many of ``cores`` no other program is busy on right now (at least 1).

    llama.cpp's threads wait for each other at every step: one thread on a
    core that another program also wants stalls them all (about 3x slower
    with one of two cores busy). Running on the free cores only keeps the
    answer time close to the idle one.
    """
    before = _cpu_times()
    if before is None:
        try:
            busy = os.getloadavg()[0]
        except (AttributeError, OSError):
            return cores
        return max(1, min(cores, round(cores - busy + 0.3)))
    time.sleep(sample_seconds)
    after = _cpu_times()
    if after is None or after[1] <= before[1]:
        return cores
    busy_share = (after[0] - before[0]) / (after[1] - before[1])
    machine = os.cpu_count() or cores
    busy_cores = busy_share * machine
    return max(1, min(cores, machine - int(busy_cores + 0.6)))


def _sample_grammar_lazily(llm: Any) -> None:
    """Make ``llm`` sample greedily under a grammar with ``LazyGrammarSampler``.

    llama-cpp-python builds its sampler chain in ``Llama._init_sampler`` for each
    generation; greedy sampling with a grammar and no logits processor is
    replaced, and anything else is left to the chain.
    """
    chain = getattr(llm, "_init_sampler", None)
    if chain is None or not hasattr(llm, "_model"):
        return

    def init_sampler(**options: Any) -> Any:
        grammar = options.get("grammar")
        if (
            grammar is None
            or options.get("temp") != 0.0
            or options.get("logits_processor") is not None
            or options.get("frequency_penalty")
            or options.get("presence_penalty")
        ):
            return chain(**options)
        from reader.models.lazy_grammar import LazyGrammarSampler

        return LazyGrammarSampler(
            llm,
            grammar,
            options.get("repeat_penalty", 1.0),
            llm.last_n_tokens_size,
            # llama-cpp-python builds the sampler inside create_completion, so the
            # list to record into reaches it through the model object.
            chosen=getattr(llm, "reader_chosen", None),
        )

    llm._init_sampler = init_sampler


class InProcessBackend:
    """A GGUF model run by llama.cpp in this process; loaded once and reused.

    reader runs it in the model process (``EmbeddedBackend``), where a crash of
    llama.cpp ends that process and not reader.

    llama-cpp-python keeps the evaluated prompt in its context, so a follow-up
    whose prompt starts like the previous one (a retry, a second question on
    the same passages) only evaluates the new tokens.
    """

    supports_grammar = True
    reads_known_text = True  # see ``KnownText``

    def __init__(
        self, model_path: str | Path, n_ctx: int = 4096, n_threads: int | None = None
    ) -> None:
        self.model_path = Path(model_path)
        self.n_ctx = n_ctx
        # A thread count the user set is kept; otherwise each generation uses
        # the cores that are free at that moment (see ``free_cores``).
        self.fixed_threads = n_threads
        self.n_threads = n_threads or max(1, min(os.cpu_count() or 1, 8))
        self.last_threads = self.n_threads
        self.name = self.model_path.stem
        self._llm: Any = None
        self._judging: Any = None
        self._lock = threading.Lock()
        self._yes_no: tuple[set[int], set[int]] | None = None

    def load(self) -> None:
        """Load the model now (it is otherwise loaded on first use)."""
        if self._llm is None:
            self._llm = self._open(self.n_ctx)

    def _open(self, n_ctx: int) -> Any:
        from reader.models.gguf import check_model_file

        check_model_file(self.model_path)
        import llama_cpp

        from reader.models.llama_runtime import prepare

        prepare(llama_cpp)
        try:
            llm = llama_cpp.Llama(
                model_path=str(self.model_path),
                n_ctx=n_ctx,
                n_threads=self.n_threads,
                verbose=False,
            )
        except (ValueError, RuntimeError, OSError) as error:
            raise ModelError(
                f"{self.model_path.name} could not be loaded as a GGUF model ({error}); "
                "check that the file is complete and is a GGUF model."
            ) from None
        _sample_grammar_lazily(llm)
        return llm

    def _judging_context(self) -> Any:
        """A second context on the same weights, for judging claims.

        Each context keeps the prompt it evaluated last. With one context the
        judge's prompt displaced the answer's, and the next question evaluated its
        system prompt again; with two, both instructions stay evaluated. The
        weights are mapped from the file, so the second costs its cache, not
        another copy of the model.
        """
        if self._judging is None:
            self._judging = self._open(JUDGE_CONTEXT)
        return self._judging

    def close(self) -> None:
        """Free the model now (llama-cpp-python's own finaliser can fail at exit)."""
        with self._lock:
            for llm in (self._llm, self._judging):
                close = getattr(llm, "close", None)
                if close is not None:
                    close()
            self._llm = self._judging = None

    def forget_prompt_cache(self) -> None:
        """Drop the evaluated prompts, so the next generation starts cold."""
        with self._lock:
            for llm in (self._llm, self._judging):
                if llm is not None:
                    llm.reset()

    def generate(
        self,
        messages: Messages,
        grammar: str | None = None,
        max_tokens: int = 512,
        on_token: TokenCallback | None = None,
        cancel: CancelSignal | None = None,
        known: KnownText | None = None,
    ) -> Generation:
        with self._lock:  # one generation at a time per loaded model
            self.load()
            started = time.perf_counter()
            if self.fixed_threads is None:
                self.last_threads = free_cores(self.n_threads)
                self._llm._ctx.set_n_threads(self.last_threads, self.last_threads)
            read_in = [0]
            sampled: list[tuple[int, int, float]] = []
            try:
                if known is not None and grammar and _chat_template(self._llm):
                    pieces = self._reading_known(
                        messages, grammar, max_tokens, known, read_in, sampled
                    )
                else:
                    pieces = self._chat_pieces(messages, grammar, max_tokens)
                # Closed here, not when collected: a generation stopped early (a cancel,
                # the repetition guard) places its last tokens before they are read.
                with contextlib.closing(pieces):
                    generation = collect_pieces(pieces, on_token, cancel, started)
            except ValueError as error:  # e.g. the prompt exceeds the context
                raise ModelError(f"The model could not take this prompt ({error}).") from None
            finally:
                self._llm.reader_chosen = None
            generation.completion_tokens -= read_in[0]
            generation.token_log_probabilities = tuple(
                item for item in sampled if item[1] <= len(generation.text)
            )
            generation.prompt_tokens = max(0, self._llm.n_tokens - generation.completion_tokens)
            return generation

    def _chat_pieces(
        self, messages: Messages, grammar: str | None, max_tokens: int
    ) -> Generator[str, None, None]:
        import llama_cpp

        compiled = llama_cpp.LlamaGrammar.from_string(grammar, verbose=False) if grammar else None
        stream = self._llm.create_chat_completion(
            messages=messages,
            grammar=compiled,
            max_tokens=max_tokens,
            temperature=0.0,
            repeat_penalty=REPEAT_PENALTY,
            stream=True,
        )
        try:
            for chunk in stream:
                yield chunk["choices"][0].get("delta", {}).get("content") or ""
        finally:
            stream.close()

    def _reading_known(
        self,
        messages: Messages,
        grammar: str,
        max_tokens: int,
        known: KnownText,
        read_in: list[int],
        sampled: list[tuple[int, int, float]],
    ) -> Generator[str, None, None]:
        """Sample until the output reaches text ``known`` can tell, read that text in
        as one batch, and sample on under the grammar of what follows it.

        Each sampled token's characters in the output and its log-probability go to
        ``sampled`` (text read in has none: the model did not choose it)."""
        import llama_cpp

        llm = self._llm
        formatted = _chat_formatter(llm)(messages=messages)
        prompt = llm.tokenize(
            formatted.prompt.encode("utf-8"), add_bos=not formatted.added_special, special=True
        )
        written = ""
        budget = max_tokens
        while budget > 0:
            tokens = prompt + llm.tokenize(written.encode("utf-8"), add_bos=False, special=False)
            chosen: list[tuple[int, float]] = []
            llm.reader_chosen = chosen
            segment_start = len(written)
            stream = llm.create_completion(
                tokens,
                grammar=llama_cpp.LlamaGrammar.from_string(grammar, verbose=False),
                max_tokens=budget,
                temperature=0.0,
                repeat_penalty=REPEAT_PENALTY,
                stop=formatted.stop,
                stream=True,
            )
            filled = None
            try:
                for chunk in stream:
                    piece = chunk["choices"][0]["text"]
                    if not piece:
                        continue
                    budget -= 1
                    written += piece
                    yield piece
                    filled = known.after(written)
                    if filled is not None:
                        break
            finally:
                stream.close()
                sampled.extend(_placed_tokens(llm, chosen, segment_start, len(written)))
            if filled is None:
                return
            text, grammar = filled
            written += text
            read_in[0] += 1
            yield text

    def read_ahead(self, messages: Messages, cancel: CancelSignal | None = None) -> int:
        """Evaluate the prompt of ``messages`` now and keep it, so a later generation
        whose prompt starts the same way evaluates only what follows; the number of
        tokens evaluated (none when the context holds that prompt already).

        A question's prompt starts with what every question's does (the system
        prompt and, in constrained quoting, the reply's shape): read while the
        user types, it is not read when the answer is wanted (``Answerer.prepare``).
        The prompt is laid out and cut into tokens as ``generate`` does, so the two
        share its tokens.
        """
        with self._lock:
            self.load()
            llm = self._llm
            if self.fixed_threads is None:
                self.last_threads = free_cores(self.n_threads)
                llm._ctx.set_n_threads(self.last_threads, self.last_threads)
            if not _chat_template(llm):
                # Without a template of its own llama-cpp-python lays the prompt out
                # its own way: what would be read here might not start it.
                return 0
            formatted = _chat_formatter(llm)(messages=messages)
            tokens = llm.tokenize(
                formatted.prompt.encode("utf-8"), add_bos=not formatted.added_special, special=True
            )
            if len(tokens) >= self.n_ctx:
                raise ModelError("The prompt to read ahead is longer than the model's context.")
            # One batch, which cannot be stopped halfway: a cancel counts before it.
            if cancel is not None and cancel.is_set():
                return 0
            shared = 0
            for before, now in zip(llm.input_ids[: llm.n_tokens], tokens, strict=False):
                if before != now:
                    break
                shared += 1
            llm.n_tokens = shared
            llm.eval(tokens[shared:])
            return len(tokens) - shared

    def yes_probability(self, messages: Messages) -> float:
        """P("yes") / (P("yes") + P("no")) for the model's first word of a reply.

        One forward pass over the prompt, no sampling, in the judging context;
        the tokens it shares with the prompt that context evaluated last (the
        judge's instructions) are not evaluated again.
        """
        import numpy

        with self._lock:
            llm = self._judging_context()
            if self.fixed_threads is None:
                llm._ctx.set_n_threads(self.last_threads, self.last_threads)
            if self._yes_no is None:
                self._yes_no = _answer_tokens(llm)
            prompt = _chat_prompt(llm, messages).encode("utf-8")
            tokens = llm.tokenize(prompt, add_bos=False, special=True)
            if len(tokens) >= JUDGE_CONTEXT:
                raise ModelError("The claim and its quote are too long for the model's context.")
            shared = 0
            for before, now in zip(llm.input_ids[: llm.n_tokens], tokens, strict=False):
                if before != now:
                    break
                shared += 1
            llm.n_tokens = min(shared, len(tokens) - 1)
            llm.eval(tokens[llm.n_tokens :])
            logits = numpy.ctypeslib.as_array(llm._ctx.get_logits(), shape=(llm.n_vocab(),))
            top = float(logits.max())
            yes, no = (float(numpy.exp(logits[list(ids)] - top).sum()) for ids in self._yes_no)
            return yes / (yes + no) if yes + no > 0 else 0.5


def _placed_tokens(
    llm: Any, chosen: list[tuple[int, float]], start: int, end: int
) -> Iterator[tuple[int, int, float]]:
    """Sampled tokens as (first character, end character, log-probability) in the
    output, from character ``start``; none past ``end``, what was shown (a token
    the stream held back and never gave out is not part of the output).

    A token may hold part of a character (a rare letter split into bytes): it
    is placed on every character its bytes touch, so the token that chose a
    character is never left out of it."""
    written = b""
    for token, log_probability in chosen:
        before = len(written.decode("utf-8", errors="ignore"))  # a split character's start
        written += llm.detokenize([token])
        after = len(written.decode("utf-8", errors="replace"))  # a split character counts
        if start + after > end:
            return
        yield start + before, start + after, log_probability


def _answer_tokens(llm: Any) -> tuple[set[int], set[int]]:
    """The tokens a reply may start "yes" or "no" with (cased, with a space or not)."""

    def first_tokens(*forms: str) -> set[int]:
        return {llm.tokenize(form.encode(), add_bos=False, special=False)[0] for form in forms}

    return first_tokens("yes", "Yes", " yes", " Yes"), first_tokens("no", "No", " no", " No")


def _chat_template(llm: Any) -> str | None:
    return llm.metadata.get("tokenizer.chat_template") or None


def _chat_formatter(llm: Any) -> Any:
    """The model's own chat template, as llama-cpp-python's chat completion uses it."""
    from llama_cpp.llama_chat_format import Jinja2ChatFormatter

    template = _chat_template(llm)
    if not template:
        raise ModelError("The model has no chat template, so it cannot judge claims.")

    def text_of(token: int) -> str:
        return str(llm._model.token_get_text(token)) if token >= 0 else ""

    return Jinja2ChatFormatter(
        template=template, eos_token=text_of(llm.token_eos()), bos_token=text_of(llm.token_bos())
    )


def _chat_prompt(llm: Any, messages: Messages) -> str:
    """The messages as the model's own chat template lays them out, ready for its reply."""
    chat: Any = messages
    return str(_chat_formatter(llm)(messages=chat).prompt)
