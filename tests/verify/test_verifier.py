import pytest

from reader.ingest.chunking import chunk_text
from reader.records import Document
from reader.verify import DocumentVerifier


def verifier_for(text: str, page_starts: list[int] | None = None) -> DocumentVerifier:
    document = Document(
        id="doc",
        title="t",
        path="/t",
        kind="text",
        text=text,
        page_starts=page_starts or [0],
        extractor="test",
    )
    return DocumentVerifier(document, chunk_text("doc", text, document.page_starts, []))


def paragraphs(count: int, topic: str) -> str:
    return "\n\n".join(
        f"Paragraph {n} about {topic} has several sentences. It says that item {n} "
        f"weighs {n * 7} kilograms in total. The committee did not approve item {n} "
        f"before the spring of year {2000 + n}."
        for n in range(1, count + 1)
    )


TEXT = (
    "The   report\n\nwas   written   in   haste.  It found that the \ufb01nal "
    "budget rose by 12 per cent, and that the con-\ntract was not renewed. "
    "\u201cNobody expected it,\u201d said the chair.\n\n" + paragraphs(30, "budgets")
)


@pytest.fixture(scope="module")
def verifier() -> DocumentVerifier:
    return verifier_for(TEXT)


def test_exact_span_indexes_canonical_text_after_collapsed_whitespace(verifier):
    result = verifier.verify("It found that the final budget rose by 12 per cent")
    assert result.status == "exact"
    assert (
        TEXT[result.start : result.end] == "It found that the \ufb01nal budget rose by 12 per cent"
    )


def test_exact_within_the_cited_chunk(verifier):
    first = verifier.chunks[0]
    result = verifier.verify('"nobody expected it," said the chair', source=first.id)
    assert result.status == "exact"
    assert result.chunk_id == first.id
    assert TEXT[result.start : result.end] == "\u201cNobody expected it,\u201d said the chair"
    assert result.page == 1
    assert result.occurrences == 1


def test_hyphenated_line_end_and_soft_hyphen_are_exact():
    text = "The con-\ntract was re\u00adnewed in May. " + paragraphs(3, "x")
    verifier = verifier_for(text)
    result = verifier.verify("the contract was renewed in May")
    assert result.status == "exact"
    assert text[result.start : result.end] == "The con-\ntract was re\u00adnewed in May"


def test_wrong_chunk_cited_is_a_miss_that_names_the_right_chunk(verifier):
    target = verifier.chunks[-1]
    wrong = verifier.chunks[0]
    quote = "The committee did not approve item 30"
    result = verifier.verify(quote, source=wrong.id)
    assert result.status == "miss"
    assert result.start is None and result.end is None
    assert result.found_in == (target.id,)
    assert target.id in result.reason


def test_unknown_and_unretrieved_sources_are_misses(verifier):
    quote = "It found that the final budget"
    assert verifier.verify(quote, source="nope").status == "miss"
    first = verifier.chunks[0].id
    result = verifier.verify(quote, source=first, retrieved={"other"})
    assert result.status == "miss"
    assert "not among the passages retrieved" in result.reason
    assert verifier.verify(quote, source=first, retrieved={first}).status == "exact"


@pytest.mark.parametrize(
    "quote",
    [
        "It found that the final budget rose by 13 per cent",  # changed number
        "It found that the final budget rose by 1.2 per cent",  # changed number
        "that the contract was renewed",  # dropped negation
        "It found that the final budget never rose by 12 per cent",  # added negation
        "It found that the budget final rose by 12 per cent",  # swapped words
        "It found that the final budget fell by 12 per cent",  # changed word
        "It found that the final budget rose sharply by 12 per cent",  # added word
        "It found that the budget rose by 12 per cent",  # dropped word
        "It found that the unfinal budget rose by 12 per cent",  # added prefix
        "It found that the finals budget rose by 12 per cent",  # added letter
        "The study showed the last budget went up twelve percent",  # paraphrase
        "Quantum chromodynamics describes the strong interaction.",  # other document
    ],
)
def test_rewritten_quotes_are_misses(verifier, quote):
    result = verifier.verify(quote, source=verifier.chunks[0].id)
    assert result.status == "miss", result
    result = verifier.verify(quote)
    assert result.status == "miss", result


@pytest.mark.parametrize(
    ("quote", "expected"),
    [
        # the source lost a ligature in extraction; the quote has the letters
        ("The final budget rose", "The nal budget rose"),
        # a word split in two by extraction
        ("the budget rose by 12 per cent", "the bud get rose by 12 per cent"),
        # two words run together by extraction
        ("the budget rose by 12 per cent", "the budgetrose by 12 per cent"),
        # a glyph without a Unicode mapping
        ("the final budget rose", "the \ufffdnal budget rose"),
    ],
)
def test_extraction_damage_is_fuzzy_with_the_damaged_span(quote, expected):
    text = f"Preface sentence here. {expected} in that year. " + paragraphs(2, "x")
    verifier = verifier_for(text)
    result = verifier.verify(quote, source=verifier.chunks[0].id)
    assert result.status == "fuzzy", result
    assert text[result.start : result.end].lower() == expected.lower()
    assert 0 < result.score < 100
    assert "up to extraction damage" in result.reason


def test_a_quote_without_the_sources_quotation_marks_is_not_called_damage():
    text = (
        "Preface sentence here. The opposite of a free culture is a\n\u201cpermission "
        "culture\u201d\u2014a culture in which creators need permission. " + paragraphs(2, "x")
    )
    verifier = verifier_for(text)
    result = verifier.verify(
        "The opposite of a free culture is a permission culture", source=verifier.chunks[0].id
    )
    assert result.status == "fuzzy", result
    # Before: "the quote matches the source up to extraction damage (similarity 99%)".
    assert result.reason.startswith("the quote matches the source but for quotation marks")


def test_damaged_quote_with_changed_number_is_still_a_miss():
    text = "Preface. The nal budget rose by 12 per cent in that year. " + paragraphs(2, "x")
    verifier = verifier_for(text)
    result = verifier.verify("The final budget rose by 15 per cent", source=verifier.chunks[0].id)
    assert result.status == "miss"


def test_occurrences_count_repeated_boilerplate():
    boilerplate = "All rights reserved by the publisher."
    text = "\n\n".join(
        f"Section {n}. {boilerplate} Content of section {n} follows here in detail." * 3
        for n in range(12)
    )
    verifier = verifier_for(text)
    result = verifier.verify(boilerplate)
    assert result.status == "exact"
    assert result.occurrences == 36
    assert len(verifier.find_all(boilerplate)) == 36


def test_quote_across_a_chunk_boundary_verifies_against_either_chunk():
    text = paragraphs(40, "maps")
    verifier = verifier_for(text)
    first, second = verifier.chunks[0], verifier.chunks[1]
    tail = text[first.end - 40 : first.end]
    head = text[second.start : second.start + 40]
    quote = tail + " " + head
    for chunk in (first, second):
        result = verifier.verify(quote, source=chunk.id)
        assert result.status == "exact", result
        assert result.start == first.end - 40
        assert result.end == second.start + 40


def test_empty_quote_is_a_miss(verifier):
    assert verifier.verify("  \n ").status == "miss"


def test_page_of_the_span_comes_from_the_page_map():
    text = "First page text here.\n\nSecond page has the target sentence."
    verifier = verifier_for(text, page_starts=[0, text.index("Second")])
    result = verifier.verify("the target sentence")
    assert result.page == 2


def test_a_run_of_dashes_is_covered_whole():
    text = "Hypertext Transfer Protocol -- HTTP/1.1 is described here. " + paragraphs(2, "x")
    verifier = verifier_for(text)
    result = verifier.verify("Transfer Protocol \u2014")
    assert text[result.start : result.end] == "Transfer Protocol --"
