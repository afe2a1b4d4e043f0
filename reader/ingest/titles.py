"""Which title a document is shown under, and which lines are not its headings.

A PDF's title metadata and its first text are often not its title: a printer's
slug ("jbell on DSKJLSW7X2PROD with PROPOSALS"), the name of the file it was made
from ("pandp.dvi"), the first section's name ("ACKNOWLEDGEMENTS", "Introduction"),
a date, or OCR noise. The title is the first of these that reads as one:

1. the metadata title;
2. the largest type on the first pages (a title page's title), set clearly larger
   than the body text, running across the page, not repeated on page after page,
   and, if read by OCR, read with confidence;
3. the file name, with its separators made spaces.

Each candidate is refused if it is empty of words, mostly symbols, a slug or
machine identifier, a file name, a placeholder ("Document1", "Untitled"), a date
alone, or a generic section name.

PyMuPDF is imported only to read a page, so the library can check a title the user
gives without loading it.
"""

from __future__ import annotations

import os
import re
import unicodedata
from bisect import bisect_right
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from reader.ingest.line_keys import line_key, line_keys
from reader.records import Heading
from reader.text.numbers import ORDINALS, alternation, small_number_words
from reader.text.words import DATE_PARTS, TWO_LETTERS

if TYPE_CHECKING:
    import pymupdf

    from reader.ingest.hocr import ScannedPage
    from reader.ingest.layout import TextBlock

MAX_TITLE = 200
# The pages a title page's title is looked for on, and those the body size is read from.
TITLE_PAGES = 3
BODY_PAGES = 6
# A title is set this much larger than the body text, and in at most this many lines:
# large type running on is a layout (a poster, a cover's blurb), not a title.
TITLE_SCALE = 1.2
TITLE_LINES = 6
# Mean OCR word confidence (0-100) below which text read by OCR is not taken as a title.
OCR_TRUSTED = 80.0

_GENERIC_NAMES = {
    # English front and back matter, section names every document may have
    "abbreviations",
    "abbreviations and acronyms",
    "about the author",
    "about the authors",
    "about this document",
    "abstract",
    "acknowledgement",
    "acknowledgements",
    "acknowledgment",
    "acknowledgments",
    "acronyms",
    "appendix",
    "background",
    "bibliography",
    "conclusion",
    "conclusions",
    "contents",
    "copyright",
    "cover",
    "dedication",
    "disclaimer",
    "epilogue",
    "executive summary",
    "foreword",
    "glossary",
    "glossary of terms",
    "index",
    "introduction",
    "list of figures",
    "list of tables",
    "notes",
    "overview",
    "preface",
    "prologue",
    "references",
    "summary",
    "table of contents",
    "title page",
    # the Federal Register's own sections
    "notices",
    "presidential documents",
    "proposed rules",
    "rules and regulations",
    # other languages
    "avant propos",
    "einleitung",
    "índice",
    "inhalt",
    "inhaltsverzeichnis",
    "introducción",
    "prólogo",
    "sommaire",
    "table des matières",
    "vorwort",
    "zusammenfassung",
    "前言",
    "摘要",
    "目录",
    "目次",
    "序",
    "序言",
}
# "Chapter Twelve", "Part Third": a section numbered in words, one to twelve or
# first to third.
_NUMBER_WORDS = alternation(
    [*small_number_words(1, 12), *(word for word, place in ORDINALS.items() if place <= 3)]
)
_NUMBERED_PART = re.compile(
    r"^(?:chapter|part|section|book|volume|appendix|annex|kapitel|teil|anhang|chapitre)"
    rf"(?: (?:\d+|[ivxlcdm]+|[a-z]|{_NUMBER_WORDS}))?$"
)
# "1", "2.3.", "IV." or "b)" before a section's name; a letter or numeral alone is a word.
_SECTION_NUMBER = re.compile(r"^(?:\d+(?:\.\d+)*[.)]?|(?:[ivxlcdm]+|[a-z])[.)])\s+", re.IGNORECASE)
_APP_PREFIX = re.compile(
    r"^(?:microsoft\s+)?(?:word|excel|powerpoint|publisher)\s+-\s+", re.IGNORECASE
)
_PLACEHOLDER = re.compile(
    r"^(?:document|untitled|book|presentation|slide|no title|new document|draft|"
    r"powerpoint presentation)[\s_-]*\d*$",
    re.IGNORECASE,
)
_FILE_NAME = re.compile(
    r"\.(?:pdf|dvi|ps|eps|docx?|odt|rtf|tex|txt|indd|qxd|qxp|pub|pptx?|xlsx?|html?|xml)$",
    re.IGNORECASE,
)
# "jbell on DSKJLSW7X2PROD with PROPOSALS": who typeset the page, on which machine.
_TYPESETTER_SLUG = re.compile(r"^\S+ on \S+ with \S+$|^VerDate\b|^arXiv:\d", re.IGNORECASE)
# A machine's or a job's identifier: a long run of capitals and digits, both in it.
_IDENTIFIER = re.compile(r"\b(?=[A-Z0-9]*\d)(?=[A-Z0-9]*[A-Z])[A-Z0-9]{10,}\b")
# Characters a title may hold besides letters, digits and spaces.
_TITLE_PUNCTUATION = set(".,:;!?'\"()[]&/+-–—’‘“”«»·#%$€£@*")
_EDGE_PUNCTUATION = " \t-–—_:;,|/·•*~"


def clean_title(text: str) -> str:
    """One line, without a program's prefix ("Microsoft Word - ") or stray punctuation
    at its ends."""
    text = " ".join(text.split())
    text = _APP_PREFIX.sub("", text)
    return text.strip(_EDGE_PUNCTUATION)


def is_generic_section_name(text: str) -> bool:
    """Whether ``text`` names a kind of section any document has ("Preface", "1.
    Introduction", "Chapter One", "Table of Contents"), not this document."""
    words = _SECTION_NUMBER.sub("", " ".join(text.split()))
    words = " ".join(re.sub(r"[^\w\s]", " ", words.casefold()).split())
    # CJK section names are often set with spaces between their characters.
    if re.fullmatch(r"[\u3000-\u9fff ]+", words):
        words = words.replace(" ", "")
    return words in _GENERIC_NAMES or bool(_NUMBERED_PART.match(words))


def is_real_title(text: str) -> bool:
    """Whether the (cleaned) ``text`` reads as a document's title."""
    if not text or len(text) > 2 * MAX_TITLE or not TWO_LETTERS.search(text):
        return False
    visible = [char for char in text if not char.isspace()]
    symbols = sum(
        1
        for char in visible
        # combining marks are parts of letters (Thai vowels, Devanagari signs)
        if not char.isalnum()
        and not unicodedata.category(char).startswith("M")
        and char not in _TITLE_PUNCTUATION
    )
    if symbols >= 0.2 * len(visible):
        return False
    if _TYPESETTER_SLUG.search(text) or _IDENTIFIER.search(text):
        return False
    if _FILE_NAME.search(text) or _PLACEHOLDER.match(text):
        return False
    if not TWO_LETTERS.search(DATE_PARTS.sub(" ", text)):
        return False  # a date alone: when the file was made, not what it is
    return not is_generic_section_name(text)


def readable_file_name(name: str) -> str:
    """A file name as a title: no extension, underscores (and, in a name without
    spaces, hyphens) read as spaces, and a byte that is not UTF-8 (Python keeps it as
    a surrogate, which no text can show or store) as U+FFFD, the replacement mark."""
    name = os.fsencode(name).decode("utf-8", errors="replace")
    stem = name.rsplit(".", 1)[0] if "." in name.strip(".") else name
    separators = r"[_\s]+" if " " in stem else r"[_\-\s]+"
    return " ".join(re.split(separators, stem)).strip() or name


def choose_title(candidates: Iterable[str], file_name: str) -> str:
    """The first candidate that reads as a title (cleaned), else the file's name."""
    for candidate in candidates:
        cleaned = clean_title(candidate)
        if is_real_title(cleaned):
            return cleaned[:MAX_TITLE]
    return readable_file_name(file_name)[:MAX_TITLE]


# -- a title page's title --------------------------------------------------------------


@dataclass(frozen=True)
class TitleLine:
    """A line of a document's first pages as title choice sees it: its text, its size
    (the font size for a text layer, the line's height for a page read by OCR), its
    page (0-based) and, if OCR read it, OCR's mean confidence in its words."""

    text: str
    size: float
    page: int
    confidence: float | None = None


def first_pages_title(
    document: pymupdf.Document,
    page_block_lists: Sequence[Sequence[TextBlock]],
    read_by_ocr: dict[int, ScannedPage],
    raw_blocks: dict[int, list[dict]] | None = None,
) -> str:
    """The title set on the document's first pages (see ``title_page_title``).

    ``raw_blocks`` are pages' ``dict`` extractions the caller made already
    (``layout.page_dict_blocks``); other pages are extracted here.
    """
    lines: list[TitleLine] = []
    for number in range(min(BODY_PAGES, len(page_block_lists))):
        if number in read_by_ocr:
            lines += scanned_lines(read_by_ocr[number], number)
            continue
        try:
            blocks = (raw_blocks or {}).get(number)
            lines += text_layer_lines(document[number], number, blocks)
        except Exception:  # a damaged page was left empty; it has no title either
            continue
    return title_page_title(lines, repeated_lines(page_block_lists), len(page_block_lists))


def text_layer_lines(
    page: pymupdf.Page, number: int, raw_blocks: list[dict] | None = None
) -> list[TitleLine]:
    """The page's lines that run the way most of its text runs (a line set across them,
    in a margin, is a stamp or a slug), each with its largest font size.

    ``raw_blocks``: the page's ``dict`` extraction, when the caller has it."""
    import pymupdf  # here: the library reads titles without loading PyMuPDF

    from reader.ingest.layout import page_dict_blocks

    if raw_blocks is None:
        raw_blocks = page_dict_blocks(page)
    # Asked once: each read asks MuPDF again. An upright page's boxes are as shown.
    rotation = None if page.rotation % 360 == 0 else page.rotation_matrix
    lines: list[tuple[TitleLine, bool]] = []
    for block in raw_blocks:
        for line in block.get("lines", []):
            spans = [span for span in line["spans"] if span["text"].strip()]
            if not spans:
                continue
            text = " ".join("".join(span["text"] for span in line["spans"]).split())
            # What ``Rect(bbox) * rotation``, normalised, gives, without the two
            # rectangles it builds on the way (a fifth of the title's time on forms).
            if rotation is None:
                x0, y0, x1, y1 = line["bbox"]
            else:
                x0, y0, x1, y1 = pymupdf.util_transform_rect(line["bbox"], rotation)
                if x1 < x0:
                    x0, x1 = x1, x0
                if y1 < y0:
                    y0, y1 = y1, y0
            size = max(span["size"] for span in spans)
            lines.append((TitleLine(text, size, number), max(0, y1 - y0) > max(0, x1 - x0)))
    return _with_the_grain(lines)


def scanned_lines(page: ScannedPage, number: int) -> list[TitleLine]:
    """An OCR'd page's lines with their heights and OCR's mean confidence in them."""
    lines: list[tuple[TitleLine, bool]] = []
    offset = 0  # where each line starts in the page's text (see ``scanned_page``)
    for block in page.blocks:
        for text, box in zip(block.lines, block.line_boxes, strict=False):
            found = [c for start, _, c in page.words if offset <= start < offset + len(text)]
            confidence = sum(found) / len(found) if found else 0.0
            width, height = box[2] - box[0], box[3] - box[1]
            lines.append((TitleLine(text, height, number, confidence), height > width))
            offset += len(text) + 1
        offset += 1  # blocks are joined by a blank line, one more than a line break
    return _with_the_grain(lines)


def _with_the_grain(lines: Sequence[tuple[TitleLine, bool]]) -> list[TitleLine]:
    """The lines (each with whether it runs upright) that run as most of the page's
    characters do; a line of two characters or fewer runs either way."""
    upright = sum(len(line.text) for line, up in lines if up)
    across = sum(len(line.text) for line, up in lines if not up)
    grain = upright > across
    return [line for line, up in lines if up == grain or len(line.text) <= 2]


def repeated_lines(page_block_lists: Sequence[Sequence[TextBlock]]) -> set[str]:
    """Lines printed on at least three pages and on half of them: running heads,
    slugs and table headers, not titles."""
    pages_with: Counter[str] = Counter()
    for blocks in page_block_lists:
        pages_with.update(set(line_keys([text for block in blocks for text in block.lines])))
    pages = len(page_block_lists)
    return {text for text, seen in pages_with.items() if seen >= 3 and seen * 2 >= pages}


def title_page_title(lines: Sequence[TitleLine], repeated: set[str], pages: int) -> str:
    """The title set on the first pages: per page, the runs of clearly large type from
    the largest down, the first that reads as a title; "" if none does.

    Type is "clearly large" against the body text of lines of its own kind: a text
    layer's font sizes and OCR's line heights are not on one scale.
    """
    bodies = {
        read_by_ocr: _body_size(
            [line for line in lines if (line.confidence is None) != read_by_ocr]
        )
        for read_by_ocr in (False, True)
    }
    for page in range(min(TITLE_PAGES, pages)):
        large = []
        for line in lines:
            body = bodies[line.confidence is not None]
            if (
                line.page == page
                and body is not None
                and line.size >= body * TITLE_SCALE
                and line.size >= body + 1.5
                and line_key(line.text) not in repeated
            ):
                large.append(line)
        for run in sorted(_runs(large), key=lambda run: -run[0].size):
            if len(run) > TITLE_LINES:
                continue
            text = clean_title(" ".join(line.text for line in run))
            trusted = all(line.confidence is None or line.confidence >= OCR_TRUSTED for line in run)
            if trusted and is_real_title(text):
                return text
    return ""


def _runs(lines: Sequence[TitleLine]) -> list[list[TitleLine]]:
    """Consecutive lines of the same size (within a tenth) as one run: a title set
    on several lines."""
    runs: list[list[TitleLine]] = []
    for line in lines:
        if runs and abs(runs[-1][-1].size - line.size) <= 0.1 * line.size:
            runs[-1].append(line)
        else:
            runs.append([line])
    return runs


def _body_size(lines: Sequence[TitleLine]) -> float | None:
    """The size most of the text is set in (rounded to half a point)."""
    sizes: Counter[float] = Counter()
    for line in lines:
        sizes[round(line.size * 2) / 2] += len(line.text)
    return sizes.most_common(1)[0][0] if sizes else None


# -- headings ------------------------------------------------------------------------------


def without_running_lines(headings: list[Heading], page_starts: list[int]) -> list[Heading]:
    """The headings less those whose text is a heading on three pages or more and on
    half of them: a slug or a running head set large, not a section."""
    pages_of: dict[str, set[int]] = {}
    for heading in headings:
        pages_of.setdefault(line_key(heading.title), set()).add(
            bisect_right(page_starts, heading.offset)
        )
    pages = len(page_starts)
    running = {text for text, seen in pages_of.items() if len(seen) >= 3 and len(seen) * 2 >= pages}
    return [heading for heading in headings if line_key(heading.title) not in running]
