import itertools
import re
from dataclasses import replace

import pytest

from reader.ingest.chunking import MAX_CHARS, chunk_text
from reader.records import Heading
from reader.text.sentences import sentence_spans


def sample_text(paragraphs: int = 40) -> str:
    return "\n\n".join(
        f"Paragraph {n} opens here. It continues with a second sentence about item {n}. "
        f"A third sentence, longer than the others, closes paragraph number {n} for now."
        for n in range(paragraphs)
    )


def test_chunks_are_exact_slices_and_cover_all_text():
    text = sample_text()
    chunks = chunk_text("d", text, [0], [])
    assert len(chunks) > 3
    for chunk in chunks:
        assert text[chunk.start : chunk.end] == chunk.text
        assert len(chunk.text) <= MAX_CHARS
        assert chunk.url == f"reader://d#{chunk.start}-{chunk.end}"
    covered = "".join(text[c.start : c.end] for c in chunks)
    assert re.sub(r"\s", "", covered) == re.sub(r"\s", "", text)
    for before, after in itertools.pairwise(chunks):
        assert text[before.end : after.start].strip() == ""


def test_chunks_end_on_sentence_or_paragraph_ends():
    text = sample_text()
    for chunk in chunk_text("d", text, [0], [])[:-1]:
        assert chunk.text.endswith("."), chunk.text[-30:]


def test_a_sentence_longer_than_a_chunk_is_split_at_whitespace():
    text = " ".join(f"word{n}" for n in range(800))
    chunks = chunk_text("d", text, [0], [])
    assert len(chunks) > 1
    for chunk in chunks:
        assert not chunk.text.startswith(" ") and not chunk.text.endswith(" ")
        assert re.fullmatch(r"(word\d+ ?)+", chunk.text)


def test_ids_are_stable_and_do_not_depend_on_position_of_other_text():
    text = sample_text()
    first = chunk_text("d", text, [0], [])
    again = chunk_text("d", text, [0], [])
    assert [c.id for c in first] == [c.id for c in again]
    assert len({c.id for c in first}) == len(first)
    # Text added at the very end leaves earlier chunk ids alone.
    longer = chunk_text("d", text + "\n\nA new closing paragraph.", [0], [])
    assert [c.id for c in longer[:-2]] == [c.id for c in first[:-2]]


def test_identical_passages_get_distinct_ids():
    block = "Repeated boilerplate paragraph that appears often. " * 12
    text = "\n\n".join([block.strip()] * 4)
    chunks = chunk_text("d", text, [0], [])
    assert len({c.text for c in chunks}) < len(chunks)
    assert len({c.id for c in chunks}) == len(chunks)


def test_headings_start_chunks_and_give_paths():
    body = sample_text(6)
    text = f"Part One\n\n{body}\n\nChapter A\n\n{body}\n\nPart Two\n\n{body}"
    headings = [
        Heading(0, 1, "Part One"),
        Heading(text.index("Chapter A"), 2, "Chapter A"),
        Heading(text.index("Part Two"), 1, "Part Two"),
    ]
    chunks = chunk_text("d", text, [0], headings)
    starts = {c.start: c for c in chunks}
    assert text.index("Chapter A") in starts
    assert text.index("Part Two") in starts
    assert chunks[0].heading == ("Part One",)
    assert starts[text.index("Chapter A")].heading == ("Part One", "Chapter A")
    assert chunks[-1].heading == ("Part Two",)


def test_page_ranges_follow_the_page_map():
    pages = [sample_text(3), sample_text(3), sample_text(3)]
    text = "\n\n".join(pages)
    starts = [0, len(pages[0]) + 2, len(pages[0]) + len(pages[1]) + 4]
    chunks = chunk_text("d", text, starts, [])
    assert chunks[0].page_start == 1
    assert chunks[-1].page_end == 3
    for chunk in chunks:
        assert chunk.page_start <= chunk.page_end
        assert starts[chunk.page_start - 1] <= chunk.start


@pytest.mark.parametrize(
    "name", ["pdf/pdfjs-freeculture-352p.pdf", "pdf/pymupdf-mupdf_explored-285p.pdf"]
)
def test_a_new_chunk_reads_as_the_document_reads_there(name):
    """Ingest hands each chunk its text as read, cut from the whole document's
    reading view (the index reads it): character for character what the chunk's
    own view gives, save where the document's view joins a sentence the chunk
    alone cannot see began (a page break at the chunk's start), where it is
    whitespace for whitespace."""
    from reader.ingest import read_document
    from reader.ingest.ocr import OcrSettings
    from reader.text.reading_view import reading_view
    from tests.conftest import corpus_dir

    document, chunks = read_document(corpus_dir() / name, ocr=OcrSettings(mode="never"))
    assert document.furniture, "the test needs a document with running heads"
    whole = reading_view(document.text, document.furniture)
    differing = 0
    for chunk in chunks:
        assert chunk.reading == whole[chunk.start : chunk.end]
        alone = replace(chunk, reading=None).reading_text
        assert len(alone) == len(chunk.reading_text) == len(chunk.text)
        if alone != chunk.reading_text:
            differing += 1
            assert alone.split() == chunk.reading_text.split(), chunk.seq
    assert differing <= 1


def test_chunks_without_furniture_read_as_they_are_read_alone():
    text = "\n".join(
        f"Line {n} of a wrapped paragraph runs on and on and on without end" for n in range(90)
    )
    chunks = chunk_text("doc", text, [0], [])
    assert len(chunks) > 2
    for chunk in chunks:
        assert chunk.reading == replace(chunk, reading=None).reading_text
        assert chunk.reading_text == chunk.reading
        assert "\n" not in chunk.reading_text  # line breaks inside a paragraph are joined


# A layout that puts a blank line after every line, as some PDFs are extracted, and a
# page break inside a sentence: the blank lines there are no paragraph ends.
BLANK_LINED = "\n\n".join(
    f"In trial {n} the pooled cure rates for genotype 3 were low, and after 24 weeks of\n\n"
    f"treatment the rates increased to\n\n9{n % 10}%. The samples of trial {n} were kept at\n\n"
    f"four degrees, and the report on them ends here."
    for n in range(12)
)


def test_a_blank_line_inside_a_sentence_neither_ends_a_chunk_nor_the_sentence():
    chunks = chunk_text("d", BLANK_LINED, [0], [])
    assert len(chunks) > 2
    for chunk in chunks[:-1]:
        assert chunk.text.endswith("."), chunk.text[-40:]
    sentences = [BLANK_LINED[s:e] for s, e in sentence_spans(BLANK_LINED)]
    assert sentences[0].startswith("In trial 0") and sentences[0].endswith("increased to\n\n90%.")
    assert (
        sentences[1]
        == "The samples of trial 0 were kept at\n\nfour degrees, and the report on them ends here."
    )
    # A blank line after a sentence's end still parts paragraphs.
    assert sentence_spans("It ends here.\n\nthen a new one starts.") == [(0, 13), (15, 37)]
