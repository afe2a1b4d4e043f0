"""Plain text and Markdown files: decoded in the encodings users have, refused when
binary, with page starts at form feeds and headings from Markdown or chapter lines."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from reader.errors import DecodingError, EmptyDocumentError, TooLargeError
from reader.ingest.titles import choose_title
from reader.records import Heading

MAX_TEXT_BYTES = 256 * 1024 * 1024


@dataclass
class PlainText:
    text: str
    page_starts: list[int]
    headings: list[Heading]
    title: str


_BOMS = [
    (b"\xef\xbb\xbf", "utf-8-sig"),
    (b"\xff\xfe\x00\x00", "utf-32"),
    (b"\x00\x00\xfe\xff", "utf-32"),
    (b"\xff\xfe", "utf-16"),
    (b"\xfe\xff", "utf-16"),
]


def decode_text(data: bytes, name: str) -> str:
    """Decode bytes in the encodings users are likely to have; refuse binary data."""
    text = _decode(data)
    if text is not None and "\x00" in text:
        # Valid UTF-8 can hold NUL bytes, but no text file does: this is binary
        # data, or UTF-16 saved without its byte-order mark.
        raise DecodingError(
            f"{name} holds NUL bytes, so it is binary data rather than text (or UTF-16 "
            "without a byte-order mark): save it as UTF-8 text and ingest it again."
        )
    if text is None or _control_characters(text) > 0.01 * len(text):
        raise DecodingError(
            f"{name} is not readable text (binary data, or an encoding reader cannot "
            "recognise): save it as UTF-8 text and ingest it again."
        )
    return text


def _decode(data: bytes) -> str | None:
    for bom, encoding in _BOMS:
        if data.startswith(bom):
            try:
                return data.decode(encoding)
            except UnicodeDecodeError:
                return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        pass
    if b"\x00" in data:
        return None
    try:
        return data.decode("cp1252")
    except UnicodeDecodeError:
        return data.decode("latin-1")


def _control_characters(text: str) -> int:
    """Control characters no text file holds in numbers (ESC is left out: terminal
    logs carry colour codes)."""
    return sum(1 for char in text if ord(char) < 32 and char not in "\t\n\r\f\v\x1b")


_ATX_HEADING = re.compile(r"^(#{1,6})[ \t]+(.+?)[ \t#]*$", re.MULTILINE)
_FENCE = re.compile(r"^(```|~~~)", re.MULTILINE)
_TEXT_HEADING = re.compile(
    r"(?:^|\n[ \t]*\n)[ \t]*((?:(?:chapter|book|part|section|volume|appendix|article|canto)"
    r"\b[^\n]{0,60})|(?:\d+(?:\.\d+)*\.?[ \t]+[A-Z][^\n]{0,70}))[ \t]*(?=\n[ \t]*\n)",
    re.IGNORECASE,
)
_GUTENBERG_TITLE = re.compile(r"^Title:[ \t]*(.+)$", re.MULTILINE)


def read_plain_text(path: Path, kind: str) -> PlainText:
    """A text or Markdown file as reader keeps it; refused when too large, binary or empty."""
    size = path.stat().st_size
    if size > MAX_TEXT_BYTES:
        raise TooLargeError(
            f"{path.name} is {size // (1024 * 1024)} MiB of text, more than reader's limit of "
            f"{MAX_TEXT_BYTES // (1024 * 1024)} MiB: split it into smaller files."
        )
    raw = decode_text(path.read_bytes(), path.name)
    # Line ends are unified; form feeds become line breaks of the same length
    # and mark page starts, as in paginated plain text (RFCs, old manuals).
    text = raw.replace("\r\n", "\n").replace("\r", "\n")
    page_starts = [0] + [match.end() for match in re.finditer("\f", text)]
    text = text.replace("\f", "\n")
    if not text.strip():
        raise EmptyDocumentError(f"{path.name} holds only whitespace: there is nothing to read.")
    headings = _markdown_headings(text) if kind == "markdown" else _text_headings(text)
    title_match = _GUTENBERG_TITLE.search(text[:5000])
    candidates = [title_match.group(1)] if title_match else []
    if kind == "markdown":
        candidates[:0] = [heading.title for heading in headings if heading.offset < 5000]
    return PlainText(text, page_starts, headings, choose_title(candidates, path.name))


def _markdown_headings(text: str) -> list[Heading]:
    fenced_ranges = []
    fences = [match.start() for match in _FENCE.finditer(text)]
    for opening, closing in zip(fences[::2], fences[1::2], strict=False):
        fenced_ranges.append((opening, closing))
    if len(fences) % 2:
        fenced_ranges.append((fences[-1], len(text)))
    headings = []
    for match in _ATX_HEADING.finditer(text):
        if any(start <= match.start() < end for start, end in fenced_ranges):
            continue
        headings.append(Heading(match.start(), len(match.group(1)), match.group(2).strip()))
    return headings


def _text_headings(text: str) -> list[Heading]:
    headings = []
    for match in _TEXT_HEADING.finditer(text):
        title = match.group(1).strip()
        numbered = re.match(r"\d+(?:\.\d+)*", title)
        level = title[: numbered.end()].count(".") + 1 if numbered else 1
        if numbered and title[numbered.end() :].startswith("."):
            level = max(1, level - 1)
        headings.append(Heading(match.start(1), min(level, 3), title))
    return headings
