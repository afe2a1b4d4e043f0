"""What a batch ingest tells: each file's outcome, the progress so far, and the
report at the end (also what the CLI and the window show)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from reader.records import DocumentSummary
from reader.text.escaping import counted


@dataclass
class FileOutcome:
    """What happened to one file: added, unchanged, changed (added beside the old
    version), updated (replaced the old version) or refused (with the reason)."""

    path: Path
    state: str
    doc_id: str = ""  # none for a refused file
    title: str = ""
    pages: int = 0
    chars: int = 0
    chunks: int = 0
    warnings: list[str] = field(default_factory=list)
    ocr_pages: int = 0  # pages read by OCR
    reason: str | None = None
    replaced: list[str] = field(default_factory=list)  # old versions' ids
    answers_moved: int = 0

    @classmethod
    def listed(cls, path: Path, state: str, document: DocumentSummary) -> FileOutcome:
        """The outcome for a file whose document the library holds as ``document``."""
        return cls(
            path,
            state,
            doc_id=document.id,
            title=document.title,
            pages=document.pages,
            chars=document.chars,
            chunks=document.chunks,
            warnings=list(document.warnings),
            ocr_pages=len(document.ocr_pages),
        )

    @property
    def added(self) -> bool:
        """Whether the file's text was read into the library in this run."""
        return self.state in ("added", "changed", "updated")

    def to_json(self) -> dict[str, object]:
        if self.state == "refused":
            return {"path": str(self.path), "state": self.state, "error": self.reason}
        return {
            "path": str(self.path),
            "state": self.state,
            "doc_id": self.doc_id,
            "title": self.title,
            "pages": self.pages,
            "chars": self.chars,
            "chunks": self.chunks,
            "ocr_pages": self.ocr_pages,
            "added": self.added,
            "warnings": self.warnings,
            "replaced": self.replaced,
            "answers_moved": self.answers_moved,
        }


@dataclass
class BatchProgress:
    """How far a batch is: files done of the total, pages read, and how fast."""

    files_done: int
    files_total: int
    pages: int
    seconds: float
    # Within the file being read in this process: pages done and their total (pages
    # read by OCR count on top of the text layer's; see ``extract``).
    file_pages: tuple[int, int] | None = None

    @property
    def rate(self) -> float:
        """Pages read per second so far."""
        return self.pages / self.seconds if self.seconds > 0 else 0.0

    @property
    def eta(self) -> float | None:
        """Seconds left at the pace so far; None until a file is done."""
        if not self.files_done:
            return None
        return self.seconds / self.files_done * (self.files_total - self.files_done)

    def line(self) -> str:
        eta = self.eta
        left = "" if eta is None else f", {_duration(eta)} left"
        within = ""
        if self.file_pages is not None:
            within = f"; this file: {self.file_pages[0]} of {self.file_pages[1]} pages"
        return (
            f"{self.files_done}/{self.files_total} files, {self.pages} pages, "
            f"{self.rate:.1f} pages/s{left}{within}"
        )


@dataclass
class BatchReport:
    outcomes: list[FileOutcome] = field(default_factory=list)
    cancelled: bool = False
    seconds: float = 0.0

    def count(self, state: str) -> int:
        return sum(1 for outcome in self.outcomes if outcome.state == state)

    @property
    def refused(self) -> list[FileOutcome]:
        return [outcome for outcome in self.outcomes if outcome.state == "refused"]

    @property
    def pages(self) -> int:
        return sum(o.pages for o in self.outcomes if o.state in ("added", "changed", "updated"))

    def summary(self) -> str:
        parts = [f"{self.count('added')} added"]
        for state in ("updated", "changed"):
            if self.count(state):
                parts.append(f"{self.count(state)} {state}")
        parts.append(f"{self.count('unchanged')} unchanged")
        parts.append(f"{len(self.refused)} refused")
        rate = f", {self.pages / self.seconds:.1f} pages/s" if self.seconds > 0 else ""
        pages = counted(self.pages, "page")
        return f"{', '.join(parts)} ({pages} in {_duration(self.seconds)}{rate})"


def _duration(seconds: float) -> str:
    seconds = max(0, round(seconds))
    if seconds < 60:
        return f"{seconds} s"
    if seconds < 3600:
        return f"{seconds // 60} min {seconds % 60:02d} s"
    return f"{seconds // 3600} h {seconds % 3600 // 60:02d} min"
