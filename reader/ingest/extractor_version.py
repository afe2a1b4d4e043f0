"""What read a document, as the library records it beside the document.

One string, so a library stays readable by every version: the text extractor
("pymupdf-1.26.3+mupdf-1.26.3/layout-7", or "text-1" for plain text and
Markdown) and, when pages were read by OCR, ``+ocr-`` and the engine with the
languages it was asked for: "tesseract-5.3.0-eng+deu", or for ``auto``
"tesseract-5.3.0-chi_sim,eng-auto" (the languages each page's script chose).
A document is read again when what would read it now differs.
"""

from __future__ import annotations

from dataclasses import dataclass

_OCR_MARK = "+ocr-"


@dataclass(frozen=True, slots=True)
class ExtractorVersion:
    text: str  # the text extractor
    ocr: str | None = None  # the OCR engine and languages; None: no page was read by OCR

    @classmethod
    def parse(cls, stored: str) -> ExtractorVersion:
        text, mark, ocr = stored.partition(_OCR_MARK)
        return cls(text, ocr if mark else None)

    def format(self) -> str:
        return self.text + (_OCR_MARK + self.ocr if self.ocr else "")

    @property
    def ocr_languages(self) -> str | None:
        """The languages OCR was asked for: Tesseract's codes joined with + ("eng+deu"),
        or "auto"; None when no page was read by OCR."""
        return self.ocr.rsplit("-", 1)[-1] if self.ocr else None
