"""The server backend against a real llama.cpp server started on 127.0.0.1."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator

import pytest

from reader.answer import Answerer, ServerBackend
from reader.errors import ModelError
from reader.models.files import embedded_model_path
from reader.text.normalize import normalize_key

pytestmark = [pytest.mark.model, pytest.mark.slow]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture(scope="module")
def server_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    port = free_port()
    # The server logs every request; a file, not a pipe nobody reads, takes it.
    log = (tmp_path_factory.mktemp("server") / "server.log").open("w+b")
    # llama.cpp set up as reader's model process sets it up (on an AMX processor its
    # extra buffer types kill the server: see reader.models.llama_runtime).
    start = (
        "import runpy, sys, llama_cpp; from reader.models.llama_runtime import prepare; "
        "prepare(llama_cpp); sys.argv[0] = 'llama_cpp.server'; "
        "runpy.run_module('llama_cpp.server', run_name='__main__', alter_sys=True)"
    )
    process = subprocess.Popen(
        [
            sys.executable,
            "-c",
            start,
            "--model",
            str(embedded_model_path()),
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--n_ctx",
            "4096",
            "--model_alias",
            "smollm2",
        ],
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                with urllib.request.urlopen(f"{url}/v1/models", timeout=2) as response:
                    if json.load(response)["data"]:
                        break
            except OSError:
                if process.poll() is not None or time.monotonic() > deadline:
                    log.seek(0)
                    raise RuntimeError(log.read().decode()[-2000:]) from None
                time.sleep(0.5)
        yield url
    finally:
        process.terminate()
        process.wait(timeout=30)
        log.close()


@pytest.mark.parametrize("mode", ["constrained", "free"])
def test_answers_through_an_openai_compatible_server(treaty, server_url, mode):
    library, doc_id = treaty
    backend = ServerBackend(server_url, "smollm2")
    tokens = []
    answer = Answerer(library, backend, mode=mode).ask(
        "When was the Treaty of Westphalia signed?",
        [doc_id],
        on_event=lambda event: tokens.append(event),
    )
    assert answer.model == f"smollm2@{server_url}"
    assert answer.metrics.completion_tokens > 0
    assert len(tokens) > 3  # streamed
    text = library.document(doc_id).text
    for item in answer.claims:
        check = item.verification
        if item.verified and check.status == "exact":
            assert normalize_key(text[check.start : check.end]) == normalize_key(item.claim.quote)
        if not item.verified:
            assert check.start is None
    if mode == "constrained":
        assert answer.claims and all(item.verified for item in answer.claims)


def test_an_unreachable_server_is_a_readable_error(treaty):
    library, doc_id = treaty
    backend = ServerBackend(f"http://127.0.0.1:{free_port()}", "smollm2")
    with pytest.raises(ModelError, match="Cannot reach the model server"):
        Answerer(library, backend).ask("When was it signed?", [doc_id])
