"""The held-out questions the support check is also judged on, as a SQuAD file.

    python bench/support/heldout.py /tmp/heldout.json [QUESTIONS.json]
    reader eval /tmp/heldout.json --limit 1000 --model MODEL.gguf --details run.jsonl
    python bench/support/collect.py --set bench/support/heldout.jsonl --model NAME run.jsonl

The claims in ``heldout.jsonl`` were written on these 90 questions from XQuAD
English and SQuAD 2 (16 of them unanswerable), one per paragraph drawn at
random from the corpus, after the support check's rules were last
changed; nobody looked at them while changing the check. ``heldout-questions.json``
names the questions; their paragraphs are read from the corpus, not copied here.

``heldout2-questions.json`` names a second draw of 90 (45 from each file, none
from a paragraph of the first draw), whose claims, in ``heldout2.jsonl``, were
written and labelled after the rules had been changed from reading the first
held-out set's failures: the first set is no longer blind, the second was
until rules came from reading its failures too.

``heldout3-questions.json`` names a third draw of 90: 60 from XQuAD English,
one per paragraph no earlier draw used, and 30 from SQuAD 2 (17 unanswerable),
of which the 10 paragraphs no earlier draw used give one each and 20 are other
questions of used paragraphs (none asked before). Its claims, in
``heldout3.jsonl``, were written by the 1.5B model and labelled blind after
the rules had changed from reading the second draw.

``heldout6-questions.json`` names a sixth draw of 150 (100 from XQuAD English,
50 from SQuAD 2), none asked in an earlier draw and at most one per paragraph;
the 1.5B model's direct answers on it, with its confidence, were labelled
blind into ``direct6.jsonl`` (see README.md, "How sure the model was").
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

QUESTIONS = Path(__file__).with_name("heldout-questions.json")
CORPUS = Path(__file__).resolve().parents[3] / "shared" / "corpus" / "qa"


def heldout_set(corpus: Path = CORPUS, questions: Path = QUESTIONS) -> dict[str, object]:
    wanted = json.loads(questions.read_text(encoding="utf-8"))
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
    named = Path(sys.argv[2]) if len(sys.argv) > 2 else QUESTIONS
    Path(sys.argv[1]).write_text(json.dumps(heldout_set(questions=named)), encoding="utf-8")
