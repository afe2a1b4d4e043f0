"""Terminal and Markdown output: only the verifier's outcomes make reader's marks.

Whatever a model writes (claim text, quotes, unsupported items, prose) and
whatever a document's title holds, the only footnote definitions, source lines,
summary lines, links and markup in the output are the ones reader wrote.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from reader.answer.render import render_markdown, render_text
from reader.library import Library
from reader.records import Answer
from tests.answer.hostile import hostile_answer, hostile_text, ingest_source, model_outputs

PROPERTY_SETTINGS = settings(
    max_examples=120,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)


@pytest.fixture(scope="module")
def treaty_library(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Library, str]]:
    folder: Path = tmp_path_factory.mktemp("escaping")
    with Library(folder / "library.db") as library:
        yield library, ingest_source(library, folder)


def assert_no_control_characters(output: str) -> None:
    for char in output:
        assert char == "\n" or unicodedata.category(char) not in ("Cc", "Zl", "Zp"), repr(char)
        assert char not in "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"


def unescaped(line: str, chars: str) -> list[int]:
    """Positions of ``chars`` in a Markdown line that no backslash escapes."""
    positions = []
    escaped = False
    for position, char in enumerate(line):
        if escaped:
            escaped = False
        elif char == "\\":
            escaped = True
        elif char in chars:
            positions.append(position)
    return positions


def verified_numbers(answer: Answer) -> list[int]:
    return list(range(1, sum(item.verified for item in answer.claims) + 1))


def verified_claims(answer: Answer) -> list:
    return [item for item in answer.claims if item.verified]


@PROPERTY_SETTINGS
@given(
    output=model_outputs,
    prose=hostile_text,
    problem=st.none() | hostile_text,
    title=hostile_text,
)
def test_markdown_footnotes_links_and_markup_are_only_readers(
    treaty_library, output, prose, problem, title
):
    library, doc_id = treaty_library
    answer = hostile_answer(library, doc_id, output, prose, problem)
    markdown = render_markdown(answer, {doc_id: title})
    assert_no_control_characters(markdown)
    lines = markdown.split("\n")
    numbers = verified_numbers(answer)
    verified = verified_claims(answer)
    failed = [item for item in answer.claims if not item.verified]

    # Footnote definitions: one per verified claim, in order, nothing else.
    definitions = [
        (index, match)
        for index, line in enumerate(lines)
        if (match := re.match(r" {0,3}\[\^([^\]]*)\]:", line))
    ]
    assert [match.group(1) for _, match in definitions] == [str(n) for n in numbers]
    for (index, _), item in zip(definitions, verified, strict=True):
        assert f'page {item.verification.page}: "' in lines[index]
        assert lines[index].endswith(")")

    # Every unescaped "[" is a marker or a definition of a verified claim; no "<" at all,
    # so no link, image, footnote reference, tag or autolink of the model's survives.
    for line in lines:
        assert unescaped(line, "<") == []
        for position in unescaped(line, "["):
            marker = re.match(r"\[\^(\d+)\]", line[position:])
            assert marker and int(marker.group(1)) in numbers, line
    prose_line = lines[2]
    assert len(set(re.findall(r"(?<!\\)\[\^(\d+)\]", prose_line))) == len(
        re.findall(r"(?<!\\)\[\^(\d+)\]", prose_line)
    )

    # Line starts: only reader's heading, list items, bold headers and summary line.
    items = [line for line in lines if line.startswith(("- ", "* ", "+ "))]
    assert len(items) == len(failed) + len(answer.unsupported)
    assert [line for line in lines if line.lstrip().startswith("#")] == [lines[0]]
    summary = [line for line in lines if line.startswith("_") and line != "_No answer._"]
    assert summary == [lines[-2]] and unescaped(lines[-2], "_") == [0, len(lines[-2]) - 1]
    own_headers = {
        "**Not verified:**",
        "**Unsupported (the model's own list, and claims their quotes do not say):**",
    }
    for line in lines:
        assert not re.match(r"\s|>|=|\||:|\d+[.)]", line), line
        if line not in own_headers and line != "_No answer._" and line != lines[-2]:
            assert unescaped(line, "*_`~&") == [], line


@PROPERTY_SETTINGS
@given(
    output=model_outputs,
    prose=hostile_text,
    problem=st.none() | hostile_text,
    titles=st.tuples(hostile_text, hostile_text),
)
def test_terminal_source_lines_and_summary_are_only_readers(
    treaty_library, output, prose, problem, titles
):
    library, doc_id = treaty_library
    answer = hostile_answer(library, doc_id, output, prose, problem)
    # Two titles, so the source lines name the document (a hostile title among them).
    text = render_text(answer, {doc_id: titles[0], "another-document": titles[1]})
    assert_no_control_characters(text)
    assert "\x1b" not in text and "\x9b" not in text
    lines = text.split("\n")
    numbers = verified_numbers(answer)
    verified = verified_claims(answer)
    failed = [item for item in answer.claims if not item.verified]

    # "[n] " source lines: one per verified claim, in order, on its page.
    sources = [(line, m) for line in lines if (m := re.match(r"\s*\[(\d+)~?\]", line))]
    assert [int(m.group(1)) for _, m in sources] == numbers
    for (line, _), item in zip(sources, verified, strict=True):
        assert f"p.{item.verification.page}: " in line
        assert line.endswith(")")

    # An unescaped "[" before a digit is a source line's or a verified claim's marker.
    for line in lines:
        for match in re.finditer(r"(?<!\\)\[(\d+)", line):
            if match.start() == 0:
                continue
            assert line[match.start() - 1] == " " and int(match.group(1)) in numbers, line
            assert re.match(r"\[\d+\]", line[match.start() :]), line

    # Reader's own line openings are reader's alone.
    def starting(*openings: str) -> list[str]:
        return [line for line in lines if line.lower().lstrip().startswith(openings)]

    assert starting("verification:") == [lines[-1]]
    assert len(starting("note:")) == (1 if answer.problem else 0)
    assert len(starting("not verified")) == (1 if failed else 0)
    assert len(starting("unsupported")) == (1 if answer.unsupported else 0)
    assert len(starting("- ")) == len(failed) + len(answer.unsupported)
    assert starting("(no answer)") == ([lines[0]] if lines[0] == "(no answer)" else [])
