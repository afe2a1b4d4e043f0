"""The held-out questions the support check is also judged on, as a SQuAD file.

    python bench/support/heldout.py /tmp/heldout.json
    reader eval /tmp/heldout.json --limit 1000 --model MODEL.gguf --details run.jsonl
    python bench/support/collect.py --set bench/support/heldout.jsonl --model NAME run.jsonl

The claims in ``heldout.jsonl`` were written on these 90 questions from XQuAD
English and SQuAD 2 (16 of them unanswerable), one per paragraph drawn at
random from the corpus, after the support check's rules were last
changed; nobody looked at them while changing the check. ``heldout-questions.json``
names the questions; their paragraphs are read from the corpus, not copied here.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

QUESTIONS = Path(__file__).with_name("heldout-questions.json")
CORPUS = Path(__file__).resolve().parents[3] / "shared" / "corpus" / "qa"


def heldout_set(corpus: Path = CORPUS) -> dict[str, object]:
    wanted = json.loads(QUESTIONS.read_text(encoding="utf-8"))
    data = []
    for name, ids in wanted.items():
        source = json.loads((corpus / name).read_text(encoding="utf-8"))
        for article in source["data"]:
            for paragraph in article["paragraphs"]:
                for question in paragraph["qas"]:
                    if question["id"] in ids:
                        data.append(
                            {
                                "title": article.get("title", ""),
                                "paragraphs": [
                                    {"context": paragraph["context"], "qas": [question]}
                                ],
                            }
                        )
    return {"version": "heldout", "data": data}


if __name__ == "__main__":
    Path(sys.argv[1]).write_text(json.dumps(heldout_set()), encoding="utf-8")
