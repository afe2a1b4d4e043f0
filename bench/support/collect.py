"""Gather real model claims from `reader eval --details` files into the labelled set.

    reader eval bench/qa/long-documents.json --model MODEL.gguf --details run.jsonl
    python bench/support/collect.py --model qwen2.5-coder-1.5b run.jsonl [more.jsonl]

Each claim a model wrote (not the evidence sentences shown beside them) becomes
one line of ``bench/support/claims.jsonl``: the question, the claim as the
model wrote it, and the quote it cited; a claim that was re-anchored adds a
second line with the sentence it was linked to. A pair already in the file
keeps its line and its label; new pairs come with ``"label": null``, to be
labelled by hand ("supported" when the claim says only what the quote says,
paraphrase allowed; else "unsupported"). ``reader eval bench/support/claims.jsonl``
then reports the support check's precision and recall per model.
"""

from __future__ import annotations

import argparse
import hashlib
import json
from pathlib import Path

SET = Path(__file__).with_name("claims.jsonl")


def _pair_id(model: str, question: str, claim: str, quote: str) -> str:
    key = "\x00".join([model, question, claim, " ".join(quote.split())])
    return hashlib.sha256(key.encode("utf-8")).hexdigest()[:12]


def collect(model: str, detail_files: list[Path], mode: str) -> list[dict[str, object]]:
    pairs = []
    for path in detail_files:
        for line in path.read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            for claim in row["claims"]:
                if claim.get("origin") != "model":
                    continue
                quotes = [("cited", claim.get("cited_quote") or claim["quote"])]
                if claim.get("cited_quote"):
                    quotes.append(("reanchored", claim["quote"]))
                for kind, quote in quotes:
                    pairs.append(
                        {
                            "id": _pair_id(model, row["question"], claim["model"], quote),
                            "model": model,
                            "mode": mode,
                            "question_id": row["id"],
                            "question": row["question"],
                            "claim": claim["model"],
                            "quote": quote,
                            "pair": kind,
                            "label": None,
                        }
                    )
    return pairs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", help="the model's short name")
    parser.add_argument("--mode", default="constrained")
    parser.add_argument(
        "--merge", type=Path, action="append", default=[], help="JSON lines of {id, label, note}"
    )
    parser.add_argument(
        "--set", type=Path, default=SET, help=f"the labelled set to add to (default: {SET.name})"
    )
    parser.add_argument("details", nargs="*", type=Path)
    args = parser.parse_args()
    labelled_set: Path = args.set
    existing = []
    if labelled_set.exists():
        existing = [
            json.loads(line) for line in labelled_set.read_text(encoding="utf-8").splitlines()
        ]
    by_id = {row["id"]: row for row in existing}
    for labels in args.merge:
        for line in labels.read_text(encoding="utf-8").splitlines():
            label = json.loads(line)
            row = by_id[label["id"]]
            row["label"] = label["label"]
            if label.get("note"):
                row["note"] = label["note"]
    known = set(by_id)
    added = 0
    if args.details and not args.model:
        parser.error("--model names the model that wrote the claims")
    for pair in collect(args.model or "", args.details, args.mode):
        if pair["id"] not in known:
            known.add(str(pair["id"]))
            existing.append(pair)
            added += 1
    labelled_set.write_text(
        "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in existing), encoding="utf-8"
    )
    unlabelled = sum(row["label"] is None for row in existing)
    print(
        f"{added} new pairs; {len(existing)} in {labelled_set.name}, {unlabelled} not labelled yet"
    )


if __name__ == "__main__":
    main()
