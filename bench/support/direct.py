"""Direct answers (words a model chose from its quote) from `reader eval --details`
files, to label blind, and their precision once labelled.

    reader eval /tmp/heldout.json --limit 1000 --model MODEL.gguf --details run.jsonl
    python bench/support/direct.py collect --model NAME run.jsonl > to-label.jsonl
    python bench/support/direct.py measure bench/support/direct.jsonl

Each claim a model wrote in constrained quoting becomes one line: the question,
the sentence it quoted and the words it chose from it (``chosen``). A reader
labels each line by `DIRECT.md` ("supported" when the sentence says that the
chosen words answer the question), seeing nothing else. ``measure`` runs
reader's own checks of chosen words (``reader.answer.spans``) on each line again
and reports, per model, the precision of what they let stand as a direct answer
(supported / shown) and their recall (shown / supported), so a change to the
checks is measured on the labels as they are.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from collections import defaultdict
from pathlib import Path

from reader.answer.spans import NOT_ANSWERED_TEXT, span_grounding

SET = Path(__file__).with_name("direct.jsonl")


def _line_id(model: str, question: str, chosen: str, quote: str) -> str:
    key = "\x00".join([model, question, chosen, " ".join(quote.split())])
    return hashlib.sha256(key.encode("utf-8")).hexdigest()[:12]


def collect(model: str, detail_files: list[Path]) -> list[dict[str, object]]:
    lines = []
    for path in detail_files:
        for row in map(json.loads, path.read_text(encoding="utf-8").splitlines()):
            for claim in row["claims"]:
                chosen = claim["model"]
                if claim.get("origin") != "model" or chosen == NOT_ANSWERED_TEXT:
                    continue
                if claim.get("status") not in ("exact", "fuzzy"):
                    continue  # not linked: nothing to label
                lines.append(
                    {
                        "id": _line_id(model, row["question"], chosen, claim["quote"]),
                        "model": model,
                        "question_id": row["id"],
                        "question": row["question"],
                        "quote": " ".join(claim["quote"].split()),
                        "chosen": chosen,
                        "label": None,
                    }
                )
    return lines


def measure(labelled: list[dict[str, object]]) -> dict[str, dict[str, float | int]]:
    """Per model: lines, supported, shown as direct answers, and those shown that are
    supported; with precision and recall."""
    counts: dict[str, dict[str, float | int]] = defaultdict(
        lambda: {"lines": 0, "supported": 0, "shown": 0, "shown_supported": 0}
    )
    for line in labelled:
        if line.get("label") not in ("supported", "unsupported"):
            continue
        figures = counts[str(line["model"])]
        grounding, _ = span_grounding(
            str(line["chosen"]), str(line["quote"]), str(line["question"])
        )
        supported = line["label"] == "supported"
        figures["lines"] += 1
        figures["supported"] += supported
        figures["shown"] += grounding.grounded
        figures["shown_supported"] += grounding.grounded and supported
    for figures in counts.values():
        shown, supported = figures["shown"], figures["supported"]
        figures["precision"] = round(figures["shown_supported"] / shown, 3) if shown else 0.0
        figures["recall"] = round(figures["shown_supported"] / supported, 3) if supported else 0.0
    return dict(counts)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    gather = commands.add_parser("collect")
    gather.add_argument("--model", required=True)
    gather.add_argument("details", nargs="+", type=Path)
    figures = commands.add_parser("measure")
    figures.add_argument("labelled", nargs="?", type=Path, default=SET)
    args = parser.parse_args()
    if args.command == "collect":
        for line in collect(args.model, args.details):
            sys.stdout.write(json.dumps(line, ensure_ascii=False) + "\n")
    else:
        labelled = [json.loads(line) for line in args.labelled.read_text("utf-8").splitlines()]
        json.dump(measure(labelled), sys.stdout, indent=1)
        sys.stdout.write("\n")


if __name__ == "__main__":
    main()
