"""What the window says about OCR: ingest progress while pages are read by OCR,
which pages of a document were, and the names of Tesseract's languages."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from reader.records import Document
from reader.text.escaping import counted

# Tesseract's codes for the languages people ask for most; any other code is shown as is.
LANGUAGE_NAMES = {
    "eng": "English",
    "deu": "German",
    "fra": "French",
    "spa": "Spanish",
    "ita": "Italian",
    "por": "Portuguese",
    "nld": "Dutch",
    "pol": "Polish",
    "rus": "Russian",
    "ukr": "Ukrainian",
    "tur": "Turkish",
    "ara": "Arabic",
    "heb": "Hebrew",
    "hin": "Hindi",
    "jpn": "Japanese",
    "kor": "Korean",
    "chi_sim": "Chinese (simplified)",
    "chi_tra": "Chinese (traditional)",
}


def language_name(code: str) -> str:
    name = LANGUAGE_NAMES.get(code)
    return f"{name} ({code})" if name else code


@dataclass(frozen=True, slots=True)
class IngestStep:
    """One progress report of a file's ingest.

    The extractor counts the pages read from the text layer (``total`` is the
    page count), then the pages read by OCR on top of them (``total`` grows by
    their number). ``pages``, the first total reported, tells the two apart.
    """

    done: int
    total: int
    pages: int

    @property
    def ocr(self) -> tuple[int, int] | None:
        """``(pages read by OCR so far, pages to read by OCR)``, once OCR has begun."""
        if self.total <= self.pages:
            return None
        return min(self.done - self.pages, self.total - self.pages), self.total - self.pages


def ingest_line(name: str, step: IngestStep) -> str:
    """The label under the library while ``name`` is read."""
    ocr = step.ocr
    if ocr is None:
        return f"Reading {name}: page {step.done} of {step.total}…"
    done, count = ocr
    reading = min(done + 1, count)  # the page being read, not the pages finished
    scanned = "" if count == step.pages else "scanned "
    return f"Reading {name}: {scanned}page {reading} of {count} by OCR…"


def page_list(pages: Sequence[int]) -> str:
    """``[1, 2, 3, 5]`` as "1–3 and 5"."""
    runs: list[list[int]] = []
    for page in sorted(pages):
        if runs and page == runs[-1][-1] + 1:
            runs[-1].append(page)
        else:
            runs.append([page])
    parts: list[str] = []
    for run in runs:
        parts += [f"{run[0]}–{run[-1]}"] if len(run) > 2 else [str(page) for page in run]
    return parts[0] if len(parts) == 1 else f"{', '.join(parts[:-1])} and {parts[-1]}"


def library_pages(ocr_pages: Sequence[int], pages: int) -> str:
    """The library entry's page count, with how many OCR read: "12 pages, 3 by OCR"."""
    count = counted(pages, "page")
    if not ocr_pages:
        return count
    return f"{count}, {'all' if len(ocr_pages) >= pages else len(ocr_pages)} by OCR"


def document_note(document: Document) -> str:
    """The viewer title's note on which pages were read by OCR, or ""."""
    numbers = document.ocr_page_numbers()
    if not numbers:
        return ""
    if len(numbers) >= document.pages:
        return "read by OCR"
    return f"{'page' if len(numbers) == 1 else 'pages'} {page_list(numbers)} read by OCR"


def page_note(document: Document, page: int) -> str:
    """What to say about ``page`` when it is shown: read by OCR and how surely, or ""."""
    info = next((item for item in document.ocr_pages if item.page == page), None)
    if info is None:
        return ""
    turned = f", turned {info.turned}°" if info.turned else ""
    return (
        f"Page {page} was read by OCR (mean word confidence {info.confidence:.0f}%{turned}): "
        "the text and the boxes are what OCR read from the image."
    )
