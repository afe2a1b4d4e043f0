"""Verifying quotes against a whole document, as a person reads it and as printed."""

from __future__ import annotations

from collections.abc import Collection, Sequence

from reader.records import Chunk, Document, Verification
from reader.text.normalize import normalize
from reader.text.reading_view import reading_view
from reader.verify.ocr import OcrReading
from reader.verify.verifier import QuoteMatcher, as_read_or_printed


class DocumentVerifier:
    """Verifies quotes against one document and its chunks, as read and as printed.

    A quote is matched first against the document as a person reads it: page
    furniture (running heads, page numbers, footnote markers) left out, so a
    sentence quoted across a page break, or without its footnote marker,
    verifies, and its span runs from its first quoted character to its last.
    A quote that keeps the furniture is matched against the text as printed.
    Build one per document and reuse it: normalising a long document is the
    expensive part, matching a quote afterwards is cheap.
    """

    def __init__(self, document: Document, chunks: Sequence[Chunk]) -> None:
        self.document = document
        self._chunks = chunks
        self._ocr = OcrReading.of(document.ocr_words) if document.ocr_words else None
        # Without furniture the reading view normalises to the same key as the text.
        as_read = (
            reading_view(document.text, document.furniture) if document.furniture else document.text
        )
        self._read = QuoteMatcher(
            document, chunks, normalize(as_read), [(0, document.text)], ocr=self._ocr
        )
        self.chunks = self._read.chunks
        self._printed: QuoteMatcher | None = None if document.furniture else self._read

    @property
    def printed(self) -> QuoteMatcher:
        """The matcher on the text as printed, furniture included, built on first use."""
        if self._printed is None:
            text = self.document.text
            self._printed = QuoteMatcher(
                self.document, self._chunks, normalize(text), [(0, text)], ocr=self._ocr
            )
        return self._printed

    def prepare(self) -> None:
        self._read.prepare()

    def verify(
        self,
        quote: str,
        source: str | None = None,
        retrieved: Collection[str] | None = None,
    ) -> Verification:
        """Check ``quote`` against chunk ``source`` (or the whole document if None).

        ``retrieved`` names the chunks the model was shown; citing any other
        chunk is a miss even if the quote is there.
        """
        return as_read_or_printed(self._read, lambda: self.printed, quote, source, retrieved)

    def find_all(self, quote: str) -> list[tuple[int, int]]:
        """Every ``[start, end)`` span of the canonical text matching ``quote`` exactly."""
        spans = set(self._read.find_all(quote))
        if self.printed is not self._read:
            spans.update(self.printed.find_all(quote))
        return sorted(spans)
