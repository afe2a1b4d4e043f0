"""Quotes as a person reads them, on the corpus's long PDFs: how many verify, where.

``bench/qa/reader-quotes.json`` holds quotes made by hand from the printed
pages: sentences quoted across a page break with the running head, footer or
page number between their halves left out, quotes without their footnote
markers, a few that keep the furniture, and negative controls (a number,
negation or word changed). For each positive quote the right span is
``span_text`` located in the canonical text. A positive passes when it
verifies (exact or fuzzy) with exactly that span; a negative passes when it
does not verify. Printed per document and kind, with the same figures for
the verifier that matches the text as printed only (the baseline, in the
same run).

    python bench/reader_quotes.py [--json]
"""

from __future__ import annotations

import json
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

from reader.ingest import read_document
from reader.text.normalize import normalize
from reader.verify import DocumentVerifier
from reader.verify.verifier import QuoteMatcher

ROOT = Path(__file__).resolve().parents[1]
QUOTES = ROOT / "bench" / "qa" / "reader-quotes.json"
CORPUS = ROOT.parent / "shared" / "corpus" / "pdf"


def evaluate(items: list[dict[str, Any]]) -> dict[str, Any]:
    by_document: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for item in items:
        by_document[item["document"]].append(item)
    tally: dict[tuple[str, str], dict[str, int]] = defaultdict(
        lambda: {"items": 0, "reader": 0, "printed": 0}
    )
    failures = []
    for name, group in by_document.items():
        document, chunks = read_document(CORPUS / name)
        verifier = DocumentVerifier(document, chunks)
        printed = QuoteMatcher(document, chunks, normalize(document.text), [(0, document.text)])
        for item in group:
            row = tally[(name, item["kind"])]
            row["items"] += 1
            expected = None
            if "span_text" in item:
                start = document.text.find(item["span_text"])
                expected = (start, start + len(item["span_text"]))
            for label, check in (("reader", verifier.verify), ("printed", printed.verify)):
                result = check(item["quote"])
                found = (result.start, result.end)
                if expected is None:
                    passed = result.status == "miss"
                else:
                    passed = result.status != "miss" and found == expected
                row[label] += passed
                if label == "reader" and not passed:
                    failures.append(
                        {
                            "document": name,
                            "kind": item["kind"],
                            "quote": item["quote"],
                            "status": result.status,
                            "found": found,
                            "expected": expected,
                        }
                    )
    return {"tally": tally, "failures": failures}


def main() -> int:
    items = json.loads(QUOTES.read_text(encoding="utf-8"))["items"]
    outcome = evaluate(items)
    tally = outcome["tally"]
    if "--json" in sys.argv:
        print(json.dumps({f"{d} {k}": v for (d, k), v in tally.items()}, indent=1))
        return 0
    print(f"{'document':58} {'kind':16} {'items':>5} {'reader':>7} {'printed':>8}")
    totals: dict[str, dict[str, int]] = defaultdict(lambda: {"items": 0, "reader": 0, "printed": 0})
    for (name, kind), row in sorted(tally.items()):
        group = "negative" if kind == "negative" else "positive"
        for key in row:
            totals[group][key] += row[key]
        print(f"{name:58} {kind:16} {row['items']:5} {row['reader']:7} {row['printed']:8}")
    for group, row in totals.items():
        share = row["reader"] / row["items"]
        baseline = row["printed"] / row["items"]
        print(
            f"{group}: {row['reader']}/{row['items']} pass ({share:.1%}); "
            f"as printed only: {row['printed']}/{row['items']} ({baseline:.1%})"
        )
    for failure in outcome["failures"]:
        print("FAIL", json.dumps(failure, ensure_ascii=False)[:300])
    return 0


if __name__ == "__main__":
    sys.exit(main())
