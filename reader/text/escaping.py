"""Untrusted text made safe to show in a terminal, in Markdown and in the window.

Model output, document text and metadata, and a server's error bodies reach
every renderer. None of them may draw what only reader draws: a verified
footnote, a numbered source line, a link, a badge, a terminal colour. Each
renderer passes such text through one of the functions here, which fold it to
one line (so it can never start a line of its own), drop control characters
and escape what the output format would read as markup.
"""

from __future__ import annotations

import html
import re

# Terminal escape sequences in their 7-bit and 8-bit forms: CSI (colours, cursor
# moves), the string commands OSC (window titles, hyperlinks), DCS, SOS, PM and
# APC up to their terminator (or the end, as a terminal would swallow the rest),
# and the short escapes (charset switches, resets).
_ESCAPE_SEQUENCE = re.compile(
    r"(?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]?"
    r"|(?:\x1b[\]PX^_]|[\x90\x98\x9d\x9e\x9f])[\s\S]*?(?:\x07|\x1b\\|\x9c|\Z)"
    r"|\x1b[ -/]*[0-~]?"
)
_LINE_BREAK = re.compile(r"\r\n|[\n\r\v\f\x1c-\x1e\x85\u2028\u2029]")
# The remaining C0 and C1 controls and DEL, and the bidirectional overrides and
# isolates that reorder what is displayed without changing what is stored.
_INVISIBLE = re.compile(r"[\x00-\x08\x0e-\x1b\x1f\x7f-\x84\x86-\x9f\u202a-\u202e\u2066-\u2069]")


# A byte of a file name that is not UTF-8, as Python decodes it (a lone surrogate):
# it cannot be written to a terminal or a JSON text, so it is shown as "\\xff".
_UNDECODED = re.compile(r"[\ud800-\udfff]")


def _undecoded(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code - 0xDC00:02x}" if 0xDC80 <= code <= 0xDCFF else "\ufffd"


_JSON_UNSAFE = re.compile(r"[\x7f-\x9f\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def json_line(value: object) -> str:
    """``value`` as one line of JSON that is safe on a terminal: UTF-8 even where a
    file name is not (its undecodable bytes are written as the text "\\xff"), and
    with every control character and direction override escaped."""
    import json

    text = json.dumps(value, ensure_ascii=False)
    text = _UNDECODED.sub(lambda match: "\\" + _undecoded(match), text)
    # JSON escapes the C0 controls itself; these it leaves raw, and a terminal acts on
    # them (an 8-bit CSI, a reordering override). Escaped, the value is unchanged.
    return _JSON_UNSAFE.sub(lambda match: f"\\u{ord(match.group()):04x}", text)


def clean(text: str) -> str:
    """``text`` without escape sequences or control characters; line breaks become ``\\n``;
    a file name's bytes that are not UTF-8 are shown escaped ("\\xff")."""
    text = _UNDECODED.sub(_undecoded, text)
    text = _ESCAPE_SEQUENCE.sub("", text)
    text = _LINE_BREAK.sub("\n", text).replace("\t", " ")
    return _INVISIBLE.sub("", text)


def counted(count: int, noun: str) -> str:
    """A count and its noun as a line says them: "1 page", "2 pages"."""
    return f"{count} {noun}" + ("" if count == 1 else "s")


def one_line(text: str, limit: int | None = None) -> str:
    """``text`` cleaned and folded to one line: every run of whitespace is one space.

    With ``limit``, cut to at most that many characters (a server's error page
    quoted in a message, say), marked with an ellipsis.
    """
    if limit is not None:
        text = text[: limit * 4]  # enough to fold down to ``limit``
    flat = " ".join(clean(text).split())
    if limit is None or len(flat) <= limit:
        return flat
    return flat[: limit - 1].rstrip() + "…"


# -- terminal ----------------------------------------------------------------------------

# "[3]" and "[3~]" are reader's claim markers in terminal prose, and its source
# lines begin with one. A "[" before a digit, or at the end of a piece of text
# (where the next piece may begin with one), is escaped.
_TERMINAL_MARKER = re.compile(r"\[(?=\d|\Z)")
# How reader's own lines in ``reader ask`` output begin, besides a marker.
_TERMINAL_LINE_START = re.compile(
    r"(?:- |\(no answer\)|answer:|verification:|note:|not verified|unsupported)", re.IGNORECASE
)


def escape_terminal(line: str) -> str:
    """A line already cleaned by ``one_line``, with no claim-marker look-alikes."""
    return _TERMINAL_MARKER.sub(r"\\[", line)


def guard_terminal_line(line: str) -> str:
    """A backslash before a line that would begin like one of reader's own lines
    (``- ``, ``Verification:``, ``Note:``); the line must come from ``escape_terminal``."""
    return "\\" + line if _TERMINAL_LINE_START.match(line) else line


def terminal_text(text: str) -> str:
    """Untrusted text for the middle of a terminal line: one line, no escapes, no markers."""
    return escape_terminal(one_line(text))


# -- Markdown ----------------------------------------------------------------------------

# Links, images, footnote references, raw HTML, autolinks, entities, code spans,
# emphasis and strikethrough all need one of these characters unescaped.
_MARKDOWN_INLINE = re.compile(r"[\\`*_\[\]<>&~]")
# Block syntax is read only where a line (or a list item's or footnote's
# content) begins: headings, list items, quotes, setext underlines, tables.
_MARKDOWN_BLOCK_MARK = re.compile(r"[#+=|:-]")
_MARKDOWN_ORDERED = re.compile(r"\d{1,9}(?=[.)])")


def escape_markdown(line: str) -> str:
    """A line already cleaned by ``one_line``, with every inline markup character escaped."""
    return _MARKDOWN_INLINE.sub(r"\\\g<0>", line)


def guard_markdown_line(line: str) -> str:
    """``line`` (from ``escape_markdown``) with its start escaped where Markdown would
    read block syntax, so it begins neither a heading nor a list item nor a quote."""
    if _MARKDOWN_BLOCK_MARK.match(line):
        return "\\" + line
    ordered = _MARKDOWN_ORDERED.match(line)
    if ordered:
        return line[: ordered.end()] + "\\" + line[ordered.end() :]
    return line


def markdown_inline(text: str) -> str:
    """Untrusted text for the middle of a Markdown line: one line, markup escaped."""
    return escape_markdown(one_line(text))


def markdown_text(text: str) -> str:
    """Untrusted text that begins a Markdown line or a block's content."""
    return guard_markdown_line(markdown_inline(text))


# -- HTML --------------------------------------------------------------------------------


def html_text(text: str) -> str:
    """Untrusted text for HTML: one line, every tag and entity shown literally."""
    return html.escape(one_line(text))


def rich_text_lines(*lines: str) -> str:
    """Rich text that shows each untrusted line literally, for places Qt reads as rich text
    whenever a string looks like it (tooltips, dialog labels): ``<qt>`` makes that explicit."""
    return "<qt>" + "<br>".join(html_text(line) for line in lines) + "</qt>"
