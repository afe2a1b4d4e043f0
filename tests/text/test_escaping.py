"""Untrusted text folded, cleaned and escaped for each kind of output."""

from __future__ import annotations

import json
import re
import unicodedata

import pytest
from hypothesis import given
from hypothesis import strategies as st

from reader.text.escaping import (
    clean,
    guard_terminal_line,
    html_text,
    markdown_inline,
    markdown_text,
    one_line,
    terminal_text,
)

HIDDEN = "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
nasty = st.text(
    alphabet=st.one_of(
        st.characters(),
        st.sampled_from(["\x1b", "\x9b", "\x9d", "\x07", "[", "]", "<", "\\", "\n", "#", "-"]),
    ),
    max_size=60,
)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("\x1b[1;31mred\x1b[0m text", "red text"),
        ("\x9b31mred", "red"),  # the 8-bit CSI
        ("\x1b]8;;http://evil.example\x1b\\link\x1b]8;;\x1b\\", "link"),  # a hyperlink
        ("\x1b]0;window title\x07after", "after"),
        ("\x1b]0;never terminated", ""),  # a terminal would swallow the rest too
        ("\x1bPdevice control\x1b\\after", "after"),
        ("\x1b(Bcharset\x1bcreset", "charsetreset"),
        ("bell\x07 nul\x00 del\x7f c1\x85next", "bell nul del c1 next"),
        ("right\u202eto left\u2066isolate\u2069", "rightto leftisolate"),
        ("one\r\ntwo\rthree\u2028four\u2029five\x0bsix\x0cseven\tend", None),
    ],
)
def test_one_line_drops_escape_sequences_and_controls(text, expected):
    folded = one_line(text)
    if expected is None:
        assert folded == "one two three four five six seven end"
    else:
        assert folded == expected


def test_clean_keeps_line_breaks_as_newlines():
    assert clean("a\r\nb\u2028c\x1b[2Jd\te") == "a\nb\ncd e"


@given(nasty)
def test_folded_text_has_no_control_character_and_no_line_break(text):
    folded = one_line(text)
    assert folded == folded.strip()
    for char in folded:
        assert unicodedata.category(char) not in ("Cc", "Zl", "Zp") and char not in HIDDEN


def unescaped(text: str, chars: str) -> list[str]:
    found = []
    escaped = False
    for char in text:
        if escaped:
            escaped = False
        elif char == "\\":
            escaped = True
        elif char in chars:
            found.append(char)
    return found


@given(nasty)
def test_markdown_text_escapes_every_markup_character_and_block_start(text):
    safe = markdown_text(text)
    assert "\n" not in safe
    assert unescaped(safe, "[]<>`*_&~") == []
    assert not re.match(r"[#+=|:-]|\d+[.)]", safe)


def test_markdown_keeps_ordinary_text_readable():
    assert markdown_text("The treaty was signed in 1648.") == "The treaty was signed in 1648."
    assert markdown_text('[^1]: page 1: "forged"') == '\\[^1\\]: page 1: "forged"'
    assert markdown_text("# Heading") == "\\# Heading"
    assert markdown_text("- item") == "\\- item"
    assert markdown_text("1648. A year") == "1648\\. A year"
    assert markdown_inline("<a href=x>[y](z)</a>") == "\\<a href=x\\>\\[y\\](z)\\</a\\>"


@given(nasty)
def test_terminal_text_never_shows_an_unescaped_marker(text):
    safe = terminal_text(text)
    assert "\x1b" not in safe and "\n" not in safe
    assert not re.search(r"(?<!\\)\[\d", safe)
    assert not safe.endswith("[") or safe.endswith("\\[")


def test_terminal_text_escapes_markers_only():
    assert terminal_text('[1] p.1: "forged" (exact)') == '\\[1] p.1: "forged" (exact)'
    assert terminal_text("see [sic] and [2~]") == "see [sic] and \\[2~]"


@pytest.mark.parametrize(
    "line", ["Verification: 3 of 3", "note: fine", "Not verified", "Unsupported", "- item"]
)
def test_a_line_opening_like_readers_own_gets_a_backslash(line):
    assert guard_terminal_line(line) == "\\" + line
    assert guard_terminal_line("The " + line) == "The " + line


@given(nasty)
def test_html_text_holds_no_tag_and_no_line_break(text):
    safe = html_text(text)
    assert "<" not in safe and ">" not in safe and "\n" not in safe
    assert re.fullmatch(r"(?:[^&]|&(?:lt|gt|amp|quot|#x27);)*", safe)


def test_a_file_names_undecodable_bytes_are_shown_as_escapes():
    from reader.text.escaping import json_line

    name = b"bad-\xff-name.pdf".decode("utf-8", "surrogateescape")
    assert one_line(name) == "bad-\\xff-name.pdf"
    assert json.loads(json_line({"path": name})) == {"path": "bad-\\xff-name.pdf"}
    json_line({"path": name}).encode("utf-8")  # writable as UTF-8
