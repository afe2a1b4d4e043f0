"""Back matter is told from the body by its heading or its shape."""

from __future__ import annotations

import pytest

from reader.records import Chunk
from reader.retrieve.evidence import choose_evidence
from reader.retrieve.question import Question
from reader.text.back_matter import is_back_matter, is_back_matter_heading

# From the index of a real book, as PyMuPDF reads it.
INDEX = (
    "VCRs, 75–76, 77, 158–60, 194, 297, 320n Causby, Thomas Lee, 2, 3, 7, 11, 12, 256, "
    "307n Causby, Tinie, 2, 3, 7, 11, 12, 256, 307n CDs: copy protection on, 160, 318n"
)
CONTENTS = "\n".join(
    [
        "Preface xiii",
        "Introduction 1",
        "1. Creators 21",
        "2. “Mere Copyists” 31",
        "3. Catalogs 48",
        "4. “Pirates” 53",
    ]
)
BODY = (
    "In 1945 Thomas Lee Causby and his wife Tinie lost their chickens to the army's "
    "planes, which flew over their farm at 83 feet; the case reached the Supreme Court "
    "in 1946, and the Court held that the air above a farm is a public highway."
)
TABLE = (
    "Genotype 1 12 weeks 95.2% 98.1% 2.4 mg\nGenotype 2 12 weeks 96.0% 97.3% 2.1 mg\n"
    "Genotype 3 24 weeks 91.5% 94.8% 3.0 mg\nGenotype 4 12 weeks 97.7% 99.0% 2.2 mg\n"
    "Genotype 5 12 weeks 93.1% 95.5% 2.6 mg"
)


@pytest.mark.parametrize(
    "heading",
    [
        "Index",
        "INDEX",
        "General Index",
        "Contents",
        "Table of Contents",
        "List of Figures",
        "List of Tables",
        "References",
        "7. References",
        "Bibliography",
        "Works Cited",
    ],
)
def test_a_heading_naming_back_matter_is_recognised(heading):
    assert is_back_matter_heading(heading)


@pytest.mark.parametrize(
    "heading",
    [
        "Indexing the archive",
        "Contents of the report",
        "A list of tables we kept",
        "Introduction",
        "Referenced works in practice",
    ],
)
def test_a_heading_that_only_starts_like_one_is_not(heading):
    assert not is_back_matter_heading(heading)


def test_an_index_and_contents_are_recognised_by_their_shape():
    assert is_back_matter((), INDEX)
    assert is_back_matter((), CONTENTS)


def test_body_text_and_a_table_of_figures_are_not():
    assert not is_back_matter((), BODY)
    assert not is_back_matter((), TABLE)
    assert not is_back_matter(("Chapter 1", "Property"), BODY)
    assert is_back_matter(("Back matter", "Index"), BODY)


def test_an_index_entry_ranks_below_the_body_sentence_that_answers():
    """Asked about the Causbys, the evidence is the body, never the index line."""
    # The index names both in full; the body sentence only one of them, by surname.
    said = "The farmer Causby lost his chickens to the planes that flew over his farm."
    index = Chunk("i" * 16, "d", 9, 5000, 5000 + len(INDEX), INDEX)
    body = Chunk("b" * 16, "d", 1, 100, 100 + len(said), said)
    question = "Who were Thomas Lee Causby and Tinie Causby?"
    for ranked in ([index, body], [body, index]):
        evidence = choose_evidence(Question.parse(question), ranked)
        assert evidence[0].chunk is body
        assert all(item.chunk is body for item in evidence[:1])
