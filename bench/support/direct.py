"""Direct answers (words a model chose from its quote) from `reader eval --details`
files, to label blind, and their precision once labelled.

    reader eval /tmp/heldout.json --limit 1000 --model MODEL.gguf --details run.jsonl
    python bench/support/direct.py collect --model NAME run.jsonl > to-label.jsonl
    python bench/support/direct.py measure bench/support/direct.jsonl
    python bench/support/direct.py confidence --details run.jsonl bench/support/direct.jsonl

Each claim a model wrote in constrained quoting becomes one line: the question,
the sentence it quoted and the words it chose from it (``chosen``). A reader
labels each line by `DIRECT.md` ("supported" when the sentence says that the
chosen words answer the question), seeing nothing else. ``measure`` runs
reader's own checks of chosen words (``reader.answer.spans``) on each line again
and reports, per model, the precision of what they let stand as a direct answer
(supported / shown) and their recall (shown / supported), so a change to the
checks is measured on the labels as they are. A line that carries the model's
``confidence`` (``reader.answer.confidence``) is also held to its floor.

``confidence`` joins labelled lines to the model's confidence in a fresh run on
the same questions (``--details``) and reports, for each measure of it, how well
it tells supported from unsupported lines among those the checks let stand (the
area under the ROC curve) and the floor with the best F0.5 (precision counted
twice as much as recall).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from collections import defaultdict
from pathlib import Path

from reader.answer import confidence as model_confidence
from reader.answer.spans import NOT_ANSWERED_TEXT, span_grounding
from reader.retrieve.question import Question

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
                        "confidence": claim.get("confidence"),
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
            str(line["chosen"]), str(line["quote"]), Question.parse(str(line["question"]))
        )
        is_supported = line["label"] == "supported"
        stands = grounding.grounded and not _unsure(line)
        figures["lines"] += 1
        figures["supported"] += is_supported
        figures["shown"] += stands
        figures["shown_supported"] += stands and is_supported
    for figures in counts.values():
        shown, supported = figures["shown"], figures["supported"]
        figures["precision"] = round(figures["shown_supported"] / shown, 3) if shown else 0.0
        figures["recall"] = round(figures["shown_supported"] / supported, 3) if supported else 0.0
    return dict(counts)


def _unsure(line: dict[str, object]) -> bool:
    """The model guessed a word of it, by reader's floor (when the line says)."""
    floor = model_confidence.UNSURE_LOG_PROBABILITY
    known = line.get("confidence")
    least = known.get("least") if isinstance(known, dict) else None
    return floor is not None and least is not None and least < floor


def _area_under_curve(scores: list[tuple[float, bool]]) -> float:
    """The chance a supported line scores above an unsupported one (ties half)."""
    good = [score for score, supported in scores if supported]
    bad = [score for score, supported in scores if not supported]
    if not good or not bad:
        return float("nan")
    wins = sum((g > b) + 0.5 * (g == b) for g in good for b in bad)
    return wins / (len(good) * len(bad))


def _best_floor(scores: list[tuple[float, bool]]) -> dict[str, float]:
    """The floor (a line below it is not shown) with the best F0.5 over the lines."""
    supported_all = sum(supported for _, supported in scores)
    best = {"f05": -1.0}
    for floor in sorted({score for score, _ in scores}):
        kept = [supported for score, supported in scores if score >= floor]
        hits = sum(kept)
        precision = hits / len(kept) if kept else 0.0
        recall = hits / supported_all if supported_all else 0.0
        f05 = 1.25 * precision * recall / (0.25 * precision + recall) if hits else 0.0
        if f05 > best["f05"]:
            best = {"floor": floor, "f05": f05, "precision": precision, "recall": recall}
    return {name: round(value, 3) for name, value in best.items()}


def calibrate(labelled: list[dict[str, object]], details: list[Path]) -> dict[str, object]:
    """Per measure of confidence, on labelled lines the checks let stand and a fresh
    run gave a confidence for: the area under the ROC curve and the best floor."""
    fresh: dict[str, dict[str, float]] = {}
    for line in collect("", details):
        if line["confidence"]:
            key = _line_id("", str(line["question"]), str(line["chosen"]), str(line["quote"]))
            fresh[key] = line["confidence"]  # type: ignore[assignment]
    scored: dict[str, list[tuple[float, bool]]] = defaultdict(list)
    joined = 0
    for line in labelled:
        key = _line_id("", str(line["question"]), str(line["chosen"]), str(line["quote"]))
        known = fresh.get(key)
        grounding, _ = span_grounding(
            str(line["chosen"]), str(line["quote"]), Question.parse(str(line["question"]))
        )
        if known is None or not grounding.grounded:
            continue
        joined += 1
        for name, value in known.items():
            if value is not None:
                scored[name].append((value, line["label"] == "supported"))
    report: dict[str, object] = {"lines": len(labelled), "joined_and_shown": joined}
    for name, scores in sorted(scored.items()):
        report[name] = {
            "lines": len(scores),
            "auc": round(_area_under_curve(scores), 3),
            **_best_floor(scores),
        }
    return report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    gather = commands.add_parser("collect")
    gather.add_argument("--model", required=True)
    gather.add_argument("details", nargs="+", type=Path)
    figures = commands.add_parser("measure")
    figures.add_argument("labelled", nargs="?", type=Path, default=SET)
    sure = commands.add_parser("confidence")
    sure.add_argument("--details", nargs="+", type=Path, required=True)
    sure.add_argument("labelled", nargs="?", type=Path, default=SET)
    args = parser.parse_args()
    if args.command == "collect":
        for line in collect(args.model, args.details):
            sys.stdout.write(json.dumps(line, ensure_ascii=False) + "\n")
    elif args.command == "confidence":
        labelled = [json.loads(line) for line in args.labelled.read_text("utf-8").splitlines()]
        json.dump(calibrate(labelled, args.details), sys.stdout, indent=1)
        sys.stdout.write("\n")
    else:
        labelled = [json.loads(line) for line in args.labelled.read_text("utf-8").splitlines()]
        json.dump(measure(labelled), sys.stdout, indent=1)
        sys.stdout.write("\n")


if __name__ == "__main__":
    main()
