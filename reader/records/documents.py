"""Documents as the library keeps them: the canonical text, its pages, chunks and
furniture. Offsets are Python string indices into the canonical text."""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from reader.text.back_matter import is_back_matter
from reader.text.reading_view import reading_view


def deep_link(doc_id: str, start: int, end: int) -> str:
    return f"reader://{doc_id}#{start}-{end}"


FurnitureKind = Literal["header", "footer", "page-number", "marker"]


@dataclass(frozen=True, slots=True)
class Furniture:
    """Page furniture at ``[start, end)`` of the canonical text: a running header or
    footer, a page number, a footnote marker. Kept in the text, left out of reading."""

    start: int
    end: int
    kind: FurnitureKind

    def to_json(self) -> list[object]:
        return [self.start, self.end, self.kind]


def furniture_from_json(items: Any) -> tuple[Furniture, ...]:
    return tuple(Furniture(int(start), int(end), kind) for start, end, kind in items or [])


@dataclass(frozen=True, slots=True)
class OcrPageInfo:
    """A page whose text was read from its image by OCR: how sure the engine was
    (mean word confidence, 0 to 100), how far the image was turned to read it,
    and which engine and languages read it."""

    page: int
    confidence: float
    turned: int = 0
    engine: str = ""

    def to_json(self) -> list[object]:
        return [self.page, round(self.confidence, 1), self.turned, self.engine]


@dataclass(frozen=True, slots=True)
class OcrConfidence:
    """How sure OCR was (0 to 100) of the word at ``[start, end)`` of the canonical text."""

    start: int
    end: int
    confidence: float


OcrBox = tuple[float, float, float, float]


@dataclass(frozen=True, slots=True)
class Chunk:
    """A retrievable passage: ``text == canonical[start:end]`` always holds.

    ``furniture`` is the page furniture inside the chunk; ``reading_text`` is
    the chunk as read (see ``reader.text.reading_view``), with the same offsets.
    ``reading`` is that text when ingest has it already, cut from the whole
    document as read (the index reads every chunk of a new document; making each
    chunk's view again was a twentieth of a text PDF's ingest). A chunk read back
    from the library makes its own.
    """

    id: str
    doc_id: str
    seq: int
    start: int
    end: int
    text: str
    heading: tuple[str, ...] = ()
    page_start: int = 1
    page_end: int = 1
    furniture: tuple[Furniture, ...] = ()
    reading: str | None = field(default=None, compare=False, repr=False)

    @property
    def url(self) -> str:
        return deep_link(self.doc_id, self.start, self.end)

    @property
    def reading_text(self) -> str:
        if self.reading is not None:
            return self.reading
        return reading_view(self.text, self.furniture, self.start)

    @property
    def heading_path(self) -> str:
        return " > ".join(self.heading)

    @property
    def pages(self) -> list[int]:
        return list(range(self.page_start, self.page_end + 1))

    @property
    def back_matter(self) -> bool:
        """Whether the chunk is an index, contents, a list of figures or tables, or
        of works cited (``reader.text.back_matter``): judged from its heading and
        text, so a library ingested before this existed needs no repair."""
        return is_back_matter(self.heading, self.text)

    def to_json(self) -> dict[str, object]:
        return {
            "id": self.id,
            "doc_id": self.doc_id,
            "start": self.start,
            "end": self.end,
            "text": self.text,
            "heading": self.heading_path,
            "pages": self.pages,
            "url": self.url,
            "back_matter": self.back_matter,
        }


def page_at(page_starts: Sequence[int], offset: int) -> int:
    """The 1-based page holding ``offset``, given where each page starts."""
    return max(1, bisect_right(page_starts, offset))


def page_name(page: int, label: str | None, short: bool = False) -> str:
    """A page as a reader cites it: "page 12", or where the file prints another number
    on it, that number first: "page xii (PDF page 14)"; ``short``: "p.12",
    "p.xii (PDF p.14)". A label comes from the file: escape it where it is shown."""
    word = "p." if short else "page "
    return f"{word}{page}" if label is None else f"{word}{label} (PDF {word}{page})"


def printed_label(page_labels: Sequence[str], page: int) -> str | None:
    """The number printed on 1-based ``page`` ("xii", "C1"), when the file gives one
    that is not the page's own number; else None."""
    if not 1 <= page <= len(page_labels):
        return None
    label = page_labels[page - 1]
    return label if label and label != str(page) else None


@dataclass(frozen=True, slots=True)
class PageStarts:
    """Where each page of a document starts: enough to say which page an offset is
    on, without the document's text."""

    starts: tuple[int, ...]
    labels: tuple[str, ...] = ()  # the printed page numbers, when the file gives them

    def page_of(self, offset: int) -> int:
        return page_at(self.starts, offset)

    def page_label(self, page: int) -> str | None:
        return printed_label(self.labels, page)


@dataclass(frozen=True, slots=True)
class Heading:
    """A section title located in the canonical text."""

    offset: int
    level: int
    title: str


@dataclass(slots=True)
class Document:
    """A document as the library keeps it."""

    id: str
    title: str
    path: str
    kind: str
    text: str
    page_starts: list[int]
    extractor: str
    headings: list[Heading] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    ingested_at: str = ""
    furniture: list[Furniture] = field(default_factory=list)
    ocr_pages: list[OcrPageInfo] = field(default_factory=list)
    ocr_words: list[OcrConfidence] = field(default_factory=list)
    # Per OCR'd page (1-based), a box per character of the page's text, as PyMuPDF
    # gives for a text layer; filled at ingest and stored, then read back per page
    # (``LibraryStore.ocr_boxes``) when a page is drawn, not with the document.
    ocr_boxes: dict[int, list[OcrBox | None]] = field(default_factory=dict)
    # The number printed on each page, from the PDF's page labels ("i", "ii", ... "1"):
    # empty when the file gives none, or only the pages' own numbers.
    page_labels: list[str] = field(default_factory=list)

    @property
    def pages(self) -> int:
        return len(self.page_starts)

    @property
    def chars(self) -> int:
        return len(self.text)

    def page_of(self, offset: int) -> int:
        """1-based page number holding ``offset``."""
        return page_at(self.page_starts, offset)

    def page_label(self, page: int) -> str | None:
        """The number printed on 1-based ``page``, where it is not ``page`` itself."""
        return printed_label(self.page_labels, page)

    def ocr_page_numbers(self) -> list[int]:
        return [info.page for info in self.ocr_pages]

    def page_range(self, page: int) -> tuple[int, int]:
        """``[start, end)`` offsets of a 1-based page."""
        start = self.page_starts[page - 1]
        end = self.page_starts[page] if page < len(self.page_starts) else len(self.text)
        return start, end


@dataclass(frozen=True, slots=True)
class SearchHit:
    chunk: Chunk
    score: float


@dataclass(frozen=True, slots=True)
class DocumentSummary:
    """A document as the library lists it: what it is, without its text."""

    id: str
    title: str
    path: str
    kind: str
    pages: int
    chars: int
    extractor: str
    ingested_at: str
    chunks: int
    warnings: tuple[str, ...] = ()
    ocr_pages: tuple[int, ...] = ()  # the pages read by OCR

    def to_json(self) -> dict[str, object]:
        return {
            "id": self.id,
            "title": self.title,
            "path": self.path,
            "kind": self.kind,
            "pages": self.pages,
            "chars": self.chars,
            "extractor": self.extractor,
            "ingested_at": self.ingested_at,
            "warnings": list(self.warnings),
            "chunks": self.chunks,
            "ocr_pages": list(self.ocr_pages),
        }
