"""The first answer after the window opens: cold, and prepared while the question is typed.

    python bench/first_answer.py [--model GGUF] [--repeat 2]

What a user waits for at their first question, in a fresh model process each
time (``EmbeddedBackend``, what the window uses), constrained quoting:

- "cold": the question is asked at once; its answer loads the model and reads
  the whole prompt;
- "prepared": ``Answerer.prepare`` runs first (what the window does while the
  question is typed: the model loads and reads the start every question's
  prompt shares), then the question is asked; only the ask is timed, and the
  time prepare took is printed beside it (the typing it hides behind).

Questions alternate sides and order; medians and the prepared/cold ratio are
printed. Time it on an idle machine: another job on two cores slows llama.cpp
about three times.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from reader.library import Library
from reader.models.model_process import EmbeddedBackend

DOCUMENT = "pdf/pdfjs-freeculture-352p.pdf"
QUESTIONS = [
    "How long did copyright last in 1790?",
    "Who was Jack Valenti?",
    "What is a permission culture?",
]


def default_model() -> Path | None:
    fetched = Path.home() / ".cache" / "reader-bench" / "models"
    found = sorted(fetched.glob("qwen2.5-coder-1.5b*.gguf"))
    return found[0] if found else None


def first_answer(
    library: Library, model: Path, doc_id: str, question: str, prepared: bool
) -> tuple[float, float]:
    """(seconds the ask took, seconds prepare took before it) in a fresh process."""
    backend = EmbeddedBackend(model, n_ctx=4096)
    try:
        answerer = library.answerer(backend, mode="constrained", record=False)
        preparing = 0.0
        if prepared:
            started = time.perf_counter()
            answerer.prepare()
            preparing = time.perf_counter() - started
        started = time.perf_counter()
        answerer.ask(question, [doc_id])
        return time.perf_counter() - started, preparing
    finally:
        backend.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    default_corpus = Path(__file__).resolve().parents[1].parent / "shared" / "corpus"
    parser.add_argument("--corpus", type=Path, default=default_corpus)
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--model", type=Path, default=None, help="a GGUF file")
    args = parser.parse_args()
    model = args.model or default_model()
    assert model is not None, "fetch the installer's model first (bench/fetch_models.py)"

    cold: list[float] = []
    prepared: list[float] = []
    preparing: list[float] = []
    with tempfile.TemporaryDirectory() as folder, Library(Path(folder) / "bench.db") as library:
        doc_id = library.ingest(args.corpus / DOCUMENT).doc_id
        for round_number in range(args.repeat):
            for index, question in enumerate(QUESTIONS):
                # Alternate which side goes first, so neither always follows the other.
                sides = (False, True) if (index + round_number) % 2 == 0 else (True, False)
                for side in sides:
                    seconds, before = first_answer(library, model, doc_id, question, side)
                    (prepared if side else cold).append(seconds)
                    if side:
                        preparing.append(before)
                    print(
                        f"{'prepared' if side else 'cold':8} {seconds:6.2f} s"
                        + (f" (prepare {before:.2f} s before it)" if side else "")
                        + f"  {question}",
                        flush=True,
                    )
    cold_median, prepared_median = statistics.median(cold), statistics.median(prepared)
    print(
        f"\nmodel {model.name}: first answer median cold {cold_median:.2f} s, "
        f"prepared {prepared_median:.2f} s (ratio {prepared_median / cold_median:.2f}); "
        f"prepare itself {statistics.median(preparing):.2f} s, while the question is typed"
    )


if __name__ == "__main__":
    main()
