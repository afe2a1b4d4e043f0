"""Typed records passed between the stages of reader.

Offsets everywhere are Python string indices into a document's canonical text:
the exact string the viewer shows.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

VerificationStatus = Literal["exact", "fuzzy", "miss"]


@dataclass(frozen=True, slots=True)
class Span:
    """A half-open character range ``[start, end)`` of one document's canonical text."""

    doc_id: str
    start: int
    end: int

    @property
    def url(self) -> str:
        return deep_link(self.doc_id, self.start, self.end)


def deep_link(doc_id: str, start: int, end: int) -> str:
    return f"reader://{doc_id}#{start}-{end}"


@dataclass(frozen=True, slots=True)
class Chunk:
    """A retrievable passage: ``text == canonical[start:end]`` always holds."""

    id: str
    doc_id: str
    seq: int
    start: int
    end: int
    text: str
    heading: tuple[str, ...] = ()
    page_start: int = 1
    page_end: int = 1

    @property
    def url(self) -> str:
        return deep_link(self.doc_id, self.start, self.end)

    @property
    def heading_path(self) -> str:
        return " > ".join(self.heading)

    @property
    def pages(self) -> list[int]:
        return list(range(self.page_start, self.page_end + 1))

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
        }


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

    @property
    def pages(self) -> int:
        return len(self.page_starts)

    @property
    def chars(self) -> int:
        return len(self.text)

    def page_of(self, offset: int) -> int:
        """1-based page number holding ``offset``."""
        from bisect import bisect_right

        return max(1, bisect_right(self.page_starts, offset))

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
class Verification:
    """The outcome of checking one quote against its cited source."""

    status: VerificationStatus
    reason: str
    chunk_id: str | None = None
    start: int | None = None
    end: int | None = None
    page: int | None = None
    score: float = 0.0
    occurrences: int = 0
    found_in: tuple[str, ...] = ()

    @property
    def verified(self) -> bool:
        return self.status != "miss"

    def to_json(self) -> dict[str, object]:
        return {
            "status": self.status,
            "reason": self.reason,
            "chunk_id": self.chunk_id,
            "start": self.start,
            "end": self.end,
            "page": self.page,
            "score": round(self.score, 2),
            "occurrences": self.occurrences,
            "found_in": list(self.found_in),
        }
