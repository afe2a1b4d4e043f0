"""The library: the one object the CLI and the GUI talk to."""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from reader.answer.stats import verification_stats
from reader.config import library_path
from reader.errors import DocumentNotFoundError, IngestError, ReaderError, StoreError
from reader.ingest import document_id, extractor_is_current, read_document
from reader.ingest.files import check_document_file
from reader.ingest.ocr import ocr_settings
from reader.ingest.titles import MAX_TITLE
from reader.library.batch_report import FileOutcome
from reader.records import (
    Answer,
    Chunk,
    Document,
    DocumentSummary,
    OcrBox,
    PageStarts,
    SearchHit,
)
from reader.retrieve import mentions, search, word_counts
from reader.store import LibraryStore
from reader.store.sources import SourceFile, record_source
from reader.verify import DocumentVerifier, PassageVerifier
from reader.verify.ocr import OcrReading

if TYPE_CHECKING:
    from reader.answer.pipeline import Answerer
    from reader.ingest.extract import ProgressCallback
    from reader.ingest.ocr import OcrSettings
    from reader.models.backends import Backend


class Library:
    """Documents, chunks, search and verification over one library database."""

    def __init__(self, path: str | Path | None = None) -> None:
        self.store = LibraryStore(path or library_path())
        self._verifiers: dict[str, DocumentVerifier] = {}

    def close(self) -> None:
        self.store.close()

    def __enter__(self) -> Library:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def ingest(
        self,
        path: str | Path,
        password: str | None = None,
        progress: ProgressCallback | None = None,
        ocr: OcrSettings | None = None,
    ) -> FileOutcome:
        """Add a file to the library; a file already there (same bytes, same
        extractor) is left as it is ("unchanged"). Raises why a file cannot be added."""
        path = check_document_file(path)
        status = os.stat(path)
        doc_id = document_id(path)
        if extractor_is_current(self.store.document_extractor(doc_id), path, ocr):
            record_source(self.store, SourceFile.of(path, doc_id, status))
            return FileOutcome.listed(path, "unchanged", self.store.document_summary(doc_id))
        document, chunks = read_document(
            path, password=password, progress=progress, doc_id=doc_id, ocr=ocr or ocr_settings()
        )
        if document_id(path) != doc_id:  # saved anew while it was read (an editor's save)
            raise IngestError(
                f"{path.name} changed while it was being read; ingest it again once it is saved."
            )
        self.store.add_document(document, chunks, source=SourceFile.of(path, doc_id, status))
        self.forget_verifier(doc_id)
        return FileOutcome.listed(path, "added", self.store.document_summary(doc_id))

    def resolve(self, reference: str, password: str | None = None) -> Document:
        """A document from a file path (ingested first if needed) or a document id."""
        path = Path(reference)
        if os.path.lexists(path):
            # Whatever is there (a file, a folder, a broken link, a pipe), the
            # user named a path: ingest says what is wrong with it, if anything.
            return self.document(self.ingest(path, password=password).doc_id)
        # Ids are hexadecimal: any start of one names the documents whose id it starts.
        hexadecimal = bool(reference) and all(c in "0123456789abcdef" for c in reference.lower())
        matches = self.store.find_document_ids(reference.lower()) if hexadecimal else []
        if len(matches) == 1:
            return self.document(matches[0])
        if len(matches) > 1:
            raise DocumentNotFoundError(
                f"'{reference}' is ambiguous: it starts the ids of {len(matches)} documents; "
                "give more of the id (`reader list` shows them)."
            )
        if "/" in reference or "\\" in reference or path.suffix:
            check_document_file(path)  # raises: nothing is at the path
        raise DocumentNotFoundError(
            f"'{reference}' is neither a file nor a document id in the library; "
            "give a file path, or an id from `reader list`."
        )

    @property
    def path(self) -> Path:
        return self.store.path

    @property
    def read_only_reason(self) -> str | None:
        """Why nothing can be added or recorded (read-only, disk full), or None."""
        return self.store.read_only_reason

    def is_empty(self) -> bool:
        return self.store.is_empty()

    def document(self, doc_id: str) -> Document:
        return self.store.get_document(doc_id)

    def documents(self) -> list[DocumentSummary]:
        return self.store.list_documents()

    def page_map(self, doc_id: str) -> PageStarts:
        """Where each page of the document starts and the number printed on it."""
        return self.store.page_map(doc_id)

    def titles(self, doc_ids: Iterable[str]) -> dict[str, str]:
        """The title of each of ``doc_ids`` still in the library."""
        return self.store.titles(sorted(set(doc_ids)))

    def chunks(self, doc_id: str) -> list[Chunk]:
        return self.store.chunks(doc_id)

    def chunk(self, chunk_id: str) -> Chunk:
        return self.store.chunk(chunk_id)

    def ocr_boxes(self, doc_id: str, page: int) -> list[OcrBox | None] | None:
        """Where each word read by OCR on ``page`` is, or None for a page not read by OCR."""
        return self.store.ocr_boxes(doc_id, page)

    def rename(self, doc_id: str, title: str | None) -> str:
        """Show the document under ``title`` everywhere from now on, also after its file
        is ingested again; ``None`` goes back to the title read from the file. Returns
        the title it now has."""
        if title is not None:
            title = " ".join(title.split())
            if not title:
                raise ReaderError("A document's title cannot be empty: give the new title.")
            if len(title) > MAX_TITLE:
                raise ReaderError(
                    f"That title is {len(title)} characters long; give one of at most {MAX_TITLE}."
                )
        return self.store.rename_document(doc_id, title)

    def remove(self, doc_id: str) -> None:
        self.store.remove_document(doc_id)
        self.forget_verifier(doc_id)

    def forget_verifier(self, doc_id: str) -> None:
        """Drop the kept verifier of a document that was stored again or removed."""
        self._verifiers.pop(doc_id, None)

    def answerer(
        self, backend: Backend | None, mode: str = "auto", record: bool = True
    ) -> Answerer:
        """What answers questions about this library's documents with ``backend``
        (None: evidence sentences only), in ``mode`` (``reader.answer.prompting.MODES``);
        each answer is kept in the history when ``record``."""
        from reader.answer.pipeline import Answerer

        return Answerer(self, backend, mode=mode, record=record)

    def search(self, query: str, doc_id: str | None = None, limit: int = 10) -> list[SearchHit]:
        return search(self.store, query, doc_id=doc_id, limit=limit)

    def unmentioned(self, names: Sequence[str], doc_ids: Sequence[str] | None = None) -> list[str]:
        """The names no chunk of the documents holds (of the whole library for None)."""
        return mentions.unmentioned(self.store, names, doc_ids)

    def term_rarity(self, words: Iterable[str]) -> dict[str, float]:
        """How rare each word is in the library (its inverse document frequency)."""
        return word_counts.term_rarity(self.store, words)

    def passage_verifier(self, doc_id: str, retrieved: Sequence[Chunk]) -> PassageVerifier:
        """A verifier for quotes cited from ``retrieved`` (chunks of the document): it
        reads those chunks and their neighbours, never the whole document."""
        pages = self.store.page_map(doc_id)
        return PassageVerifier(
            pages,
            lambda first, last: self.store.chunks_between(doc_id, first, last),
            [chunk for chunk in retrieved if chunk.doc_id == doc_id],
            ocr=OcrReading(lambda: self.store.ocr_words(doc_id)),
        )

    def verifier(self, doc_id: str) -> DocumentVerifier:
        """A verifier for the document, kept for reuse within this process."""
        if doc_id not in self._verifiers:
            self._verifiers[doc_id] = DocumentVerifier(self.document(doc_id), self.chunks(doc_id))
        return self._verifiers[doc_id]

    # -- answers -------------------------------------------------------------------------

    def keep_answer(self, answer: Answer) -> None:
        """Keep the answer in the history; an answer that cannot be kept (a read-only
        library, a full disk, a damaged file) says why in ``not_recorded``."""
        if self.store.read_only:
            answer.not_recorded = f"this answer is not recorded: {self.store.read_only_reason}"
            return
        try:
            self.store.add_answer(answer)
        except StoreError as error:
            answer.not_recorded = str(error)

    def answers(self, doc_id: str | None = None, limit: int = 50) -> list[Answer]:
        """The newest answers first, about ``doc_id`` or about anything."""
        return self.store.answers(doc_id, limit=limit)

    def answer(self, answer_id: int) -> Answer | None:
        return self.store.answer(answer_id)

    def verification_stats(self) -> dict[str, Any]:
        """The recorded answers' figures: overall, by model, by document and by day."""
        return verification_stats(self.store.answer_rows())
