"""How llama.cpp's CPU set-up costs: a CPU variant and extra buffer types, side by side.

    python bench/llama_cpu.py [--model GGUF] [--llama DIR] [--repeat 3]
        [--config VARIANT:on|off ...]

Each configuration runs in a fresh process (ggml's backends and llama.cpp's
buffer types are chosen once per process), as reader's model process sets it
up (``reader.models.llama_runtime``), with ``READER_LLAMA_CPU_VARIANT`` and
``READER_LLAMA_EXTRA_BUFFERS`` set; ``--llama DIR`` takes ``llama_cpp`` from
DIR first (``packaging/portable_llama.py`` prints one with every variant).
The same prompt (about 400 tokens) is evaluated and 48 tokens are generated
greedily; prompt and generation speeds are printed per configuration, as
medians of ``--repeat`` interleaved runs, with ratios to the first
configuration. A configuration that dies is reported with its signal.

With ``--asks``, each configuration instead answers the five questions of
``bench/answer.py`` on its document (``Answerer.ask``, constrained, the model in
the configuration's process, the prompt cache emptied before each question),
and the median seconds of a whole answer are compared.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PROMPT = " ".join(
    f"Section {n} of the agreement says that the fee is {n * 3} dollars, due monthly."
    for n in range(25)
)

RUN = """
import json, sys, time
if sys.argv[1]:
    sys.path.insert(0, sys.argv[1])
import llama_cpp
from reader.models.llama_runtime import prepare
prepare(llama_cpp)
llm = llama_cpp.Llama(model_path=sys.argv[2], n_ctx=1024, n_threads=2, verbose=False)
tokens = llm.tokenize(sys.argv[3].encode())
started = time.perf_counter()
llm.eval(tokens)
prompt_seconds = time.perf_counter() - started
started = time.perf_counter()
made = 0
for token in llm.generate([], temp=0.0, reset=False):
    made += 1
    if made == 48:
        break
print(json.dumps({"prompt_tps": len(tokens) / prompt_seconds,
                  "gen_tps": made / (time.perf_counter() - started)}))
"""


ASK = """
import json, statistics, sys
if sys.argv[1]:
    sys.path.insert(0, sys.argv[1])
from pathlib import Path
from reader.models.in_process import InProcessBackend
from reader.answer.pipeline import Answerer
from reader.library import Library
questions = json.loads(sys.argv[5])
backend = InProcessBackend(sys.argv[2], n_ctx=4096, n_threads=2)
seconds = []
with Library(Path(sys.argv[3])) as library:
    answerer = Answerer(library, backend, mode="constrained", record=False)
    for question in questions:
        backend.forget_prompt_cache()
        seconds.append(answerer.ask(question, [sys.argv[4]]).metrics.seconds)
print(json.dumps({"answer_seconds": statistics.median(seconds)}))
"""


def run(
    config: str, model: Path, llama: str, ask: tuple[str, str] | None = None
) -> dict[str, float] | str:
    variant, _, extra = config.partition(":")
    env = dict(os.environ, READER_LLAMA_EXTRA_BUFFERS=extra or "off")
    if variant and variant != "default":
        env["READER_LLAMA_CPU_VARIANT"] = variant
    command = [sys.executable, "-c", RUN, llama, str(model), PROMPT]
    if ask is not None:
        from answer import QUESTIONS  # beside this script

        command = [sys.executable, "-c", ASK, llama, str(model), *ask, json.dumps(QUESTIONS)]
    done = subprocess.run(
        command,
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
    )
    if done.returncode != 0:
        return f"died (exit {done.returncode})"
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", type=Path, required=True)
    parser.add_argument("--llama", default="", help="a folder holding llama_cpp")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--config", action="append", default=[])
    parser.add_argument("--asks", action="store_true", help="time whole answers instead")
    args = parser.parse_args()
    ask = None
    if args.asks:
        import tempfile

        from answer import DOCUMENT  # beside this script

        from reader.library import Library

        folder = tempfile.mkdtemp()
        database = Path(folder) / "bench.db"
        with Library(database) as library:
            corpus = ROOT.parent / "shared" / "corpus"
            ask = (str(database), library.ingest(corpus / DOCUMENT).doc_id)
    configs = args.config or ["default:off"]
    results: dict[str, list[dict[str, float]]] = {c: [] for c in configs}
    failures: dict[str, str] = {}
    for _ in range(args.repeat):
        for config in configs:
            if config in failures:
                continue
            outcome = run(config, args.model, args.llama, ask)
            if isinstance(outcome, str):
                failures[config] = outcome
            else:
                results[config].append(outcome)
    base: dict[str, float] | None = None
    print(f"{args.model.name}, 2 threads, medians of {args.repeat}:")
    for config in configs:
        if config in failures:
            print(f"  {config:24s} {failures[config]}")
            continue
        medians = {k: statistics.median(r[k] for r in results[config]) for k in results[config][0]}
        base = base or medians
        print(
            f"  {config:24s} "
            + ", ".join(
                f"{key} {value:7.2f} ({value / base[key]:.2f}x)" for key, value in medians.items()
            )
        )


if __name__ == "__main__":
    main()
