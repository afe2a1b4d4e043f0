"""What a repair salvages from a damaged library, row by row.

Any query on a damaged file may fail on a damaged page, so every read goes
through ``Salvage``, which turns a failure into "nothing here". Each document
is kept from its stored text when that reads back whole and agrees with its old
chunks, else read again from its file when that still has its bytes, else
reported lost; answers are copied as they were.
"""

from __future__ import annotations

import json
import os
import sqlite3
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from reader.errors import ReaderError
from reader.ingest import ExtractorVersion, document_id, read_document
from reader.ingest.chunking import chunk_text
from reader.ingest.ocr import OcrSettings, ocr_settings
from reader.records import Chunk, Document
from reader.store import LibraryStore
from reader.store.history import ANSWER_COLUMNS
from reader.store.rows import (
    DOCUMENT_META_COLUMNS,
    document_from_row,
    ocr_boxes_from_blob,
    ocr_pages_from_json,
    ocr_words_from_blob,
    path_from_value,
)
from reader.store.sources import SourceFile

Progress = Callable[[str], None]
# Rowids probed one by one past the last readable one, when a table cannot be
# listed whole: enough for the rows a damaged page can hide.
_PROBE_PAST = 5000
# An answer is copied with its id: the rows citing it name that id.
_ANSWER_COLUMNS = f"id, {ANSWER_COLUMNS}"


@dataclass
class RepairReport:
    """What a repair kept, rebuilt and lost."""

    path: Path
    damage: str | None
    kept: list[str] = field(default_factory=list)
    reextracted: list[str] = field(default_factory=list)
    lost: list[str] = field(default_factory=list)
    chunks: int = 0
    chunk_ids_compared: int = 0
    chunk_ids_changed: int = 0
    answers_kept: int = 0
    answers_lost: int = 0
    damaged_copy: Path | None = None
    recovered: str | None = None  # how a missing library file was recovered

    def lines(self) -> list[str]:
        first = [self.recovered] if self.recovered else []
        if self.damage is None and self.recovered and not self.chunks:
            return first
        if self.damage is None:
            return [
                *first,
                f"The library at {self.path} is not damaged; its full-text index was rebuilt "
                f"({self.chunks} chunks).",
            ]
        lines = [
            *first,
            f"Repaired the library at {self.path}.",
            f"Documents: {len(self.kept)} kept from the library, {len(self.reextracted)} "
            f"re-read from their files, {len(self.lost)} lost.",
        ]
        lines += [f"  re-read from its file: {title}" for title in self.reextracted]
        lines += [f"  lost: {item}" for item in self.lost]
        compared = self.chunk_ids_compared
        if compared:
            lines.append(
                f"Chunk ids: {compared - self.chunk_ids_changed} of {compared} old ids "
                "found again"
                + (
                    " (answers citing the others re-anchor by quote)."
                    if self.chunk_ids_changed
                    else "."
                )
            )
        lines.append(f"Answers: {self.answers_kept} kept, {self.answers_lost} lost.")
        if self.damaged_copy is not None:
            lines.append(f"The damaged file is kept at {self.damaged_copy}.")
        return lines


class Salvage:
    """Reads what it can from a damaged file: any query may fail on a damaged page."""

    def __init__(self, connection: sqlite3.Connection) -> None:
        self.connection = connection

    def row(self, sql: str, parameters: list[Any]) -> tuple[Any, ...] | None:
        try:
            row = self.connection.execute(sql, parameters).fetchone()
        except (ReaderError, sqlite3.Error):
            return None
        return tuple(row) if row is not None else None

    def rows(self, sql: str, parameters: list[Any]) -> list[tuple[Any, ...]] | None:
        try:
            return [tuple(row) for row in self.connection.execute(sql, parameters).fetchall()]
        except (ReaderError, sqlite3.Error):
            return None

    def rowids(self, table: str) -> Iterator[int]:
        """Every rowid of ``table`` that can be read, listed or else probed."""
        listed: list[int] = []
        try:
            for (rowid,) in self.connection.execute(f"SELECT rowid FROM {table} ORDER BY rowid"):
                listed.append(rowid)
            yield from listed
            return
        except (ReaderError, sqlite3.Error):
            pass
        seen = set(listed)
        yield from listed
        last = max(listed, default=0)
        rowid = 0
        while rowid < last + _PROBE_PAST:
            rowid += 1
            if rowid in seen:
                continue
            if self.row(f"SELECT 1 FROM {table} WHERE rowid = ?", [rowid]) is not None:
                last = max(last, rowid)
                yield rowid


def salvage_documents(old: Salvage, new: LibraryStore, report: RepairReport, say: Progress) -> None:
    accounted: set[str] = set()  # kept, re-read or already reported lost
    for rowid in old.rowids("documents"):
        meta = old.row(f"SELECT {DOCUMENT_META_COLUMNS} FROM documents WHERE rowid = ?", [rowid])
        if meta is None:
            continue  # reported below, by the ids its chunks and answers still name
        doc_id, title = str(meta[0]), str(meta[1])
        accounted.add(doc_id)
        say(f"document: {title}")
        old_chunks = old.rows(
            'SELECT id, start, "end", text FROM chunks WHERE doc_id = ? ORDER BY seq', [doc_id]
        )
        stored = _stored_document(old, rowid, meta, old_chunks)
        if stored is not None:
            report.kept.append(title)
        else:
            stored, reason = _reread(Path(path_from_value(meta[2])), doc_id, str(meta[4]))
            if stored is None:
                report.lost.append(f"{title} ({doc_id}): {reason}")
                continue
            stored[0].ingested_at = str(meta[5])
            report.reextracted.append(title)
        _store(new, report, *stored, old_chunks)
    # Documents whose record is unreadable are still named by their chunks and the
    # answers citing them: each is read again from a file recorded for it that still
    # has its bytes. (The file records alone do not name documents: they outlive the
    # documents replaced by a new version of their file.)
    named: set[str] = set()
    for query in (
        "SELECT DISTINCT doc_id FROM chunks",
        "SELECT DISTINCT doc_id FROM answer_documents",
    ):
        named.update(row[0] for row in old.rows(query, []) or [])
    for doc_id in sorted(named - accounted):
        files = old.rows("SELECT path FROM source_files WHERE doc_id = ? ORDER BY path", [doc_id])
        reason = "its record is unreadable and no file of it is recorded"
        for (recorded,) in files or []:
            stored, reason = _reread(Path(path_from_value(recorded)), doc_id, None)
            if stored is not None:
                say(f"document: {stored[0].title}")
                report.reextracted.append(stored[0].title)
                old_chunks = old.rows("SELECT id FROM chunks WHERE doc_id = ?", [doc_id])
                _store(new, report, *stored, old_chunks)
                break
        else:
            report.lost.append(f"{doc_id}: {reason}; ingest its file again")


def _store(
    new: LibraryStore,
    report: RepairReport,
    document: Document,
    chunks: list[Chunk],
    old_chunks: list[tuple[Any, ...]] | None,
) -> None:
    """Write a salvaged document to the new library, comparing its chunk ids with the old."""
    if old_chunks is not None:
        old_ids = {row[0] for row in old_chunks}
        report.chunk_ids_compared += len(old_ids)
        report.chunk_ids_changed += len(old_ids - {chunk.id for chunk in chunks})
    # The file is recorded without its size and time: the next folder ingest
    # reads it once to be sure it is still this document.
    new.add_document(
        document,
        chunks,
        source=SourceFile(os.path.realpath(document.path), document.id, None, None),
    )
    report.chunks += len(chunks)


def _stored_document(
    old: Salvage,
    rowid: int,
    meta: tuple[Any, ...],
    old_chunks: list[tuple[Any, ...]] | None,
) -> tuple[Document, list[Chunk]] | None:
    """The document as stored, if its text reads back whole and agrees with its chunks."""
    text_row = old.row("SELECT text, chars FROM documents WHERE rowid = ?", [rowid])
    if text_row is None or not isinstance(text_row[0], str) or len(text_row[0]) != text_row[1]:
        return None
    text = text_row[0]
    if old_chunks is not None and any(
        text[start:end] != body for _, start, end, body in old_chunks
    ):
        return None
    try:
        stored = old.row("SELECT furniture FROM documents WHERE rowid = ?", [rowid])
        # A library from before page labels has no such column: its pages keep numbers.
        labels = old.row("SELECT page_labels FROM documents WHERE rowid = ?", [rowid])
        document = document_from_row(
            meta,
            text,
            furniture=stored[0] if stored else "[]",
            page_labels=labels[0] if labels else "[]",
        )
        if not _salvage_ocr(old, rowid, document):
            return None  # its pages read by OCR lost their words or boxes: read it again
    except (TypeError, ValueError, zlib.error):
        return None
    chunks = chunk_text(
        document.id, text, document.page_starts, document.headings, document.furniture
    )
    return document, chunks


def _salvage_ocr(old: Salvage, rowid: int, document: Document) -> bool:
    """Fill in what OCR read on the document's scanned pages; False if it is unreadable."""
    if ExtractorVersion.parse(document.extractor).ocr is None:
        return True  # no page was read by OCR (or the library predates OCR)
    listed = old.row("SELECT ocr FROM documents WHERE rowid = ?", [rowid])
    if listed is None:
        return False
    document.ocr_pages = ocr_pages_from_json(listed[0])
    for info in document.ocr_pages:
        row = old.row(
            "SELECT words, boxes FROM ocr_pages WHERE doc_id = ? AND page = ?",
            [document.id, info.page],
        )
        if row is None:
            return False
        document.ocr_words.extend(ocr_words_from_blob(row[0]))
        document.ocr_boxes[info.page] = ocr_boxes_from_blob(row[1])
    return True


def _reread(
    path: Path, doc_id: str, extractor: str | None
) -> tuple[tuple[Document, list[Chunk]] | None, str]:
    """The document re-extracted from its file (scanned pages read by OCR in the
    languages they were read in before; with the extractor unknown, as the settings
    say), or why it cannot be."""
    damage = "its stored text is damaged" if extractor is not None else "its record is unreadable"
    try:
        if not path.is_file():
            return None, f"{damage} and its file {path} is gone"
        if document_id(path) != doc_id:
            return None, f"{damage} and its file {path} has changed"
        ocr: OcrSettings | None = ocr_settings()
        if extractor is not None:
            languages = ExtractorVersion.parse(extractor).ocr_languages
            ocr = OcrSettings.parse("auto", languages) if languages else None
        return read_document(path, doc_id=doc_id, ocr=ocr), ""
    except ReaderError as error:
        return None, f"{damage} and its file cannot be read again ({error})"
    except OSError as error:
        return None, f"{damage} and its file cannot be read ({error.strerror})"


def salvage_answers(old: Salvage, new: LibraryStore, report: RepairReport, say: Progress) -> None:
    say("answers")
    connection = new.writing()
    for rowid in old.rowids("answers"):
        row = old.row(f"SELECT {_ANSWER_COLUMNS} FROM answers WHERE rowid = ?", [rowid])
        links = old.rows("SELECT doc_id FROM answer_documents WHERE answer_id = ?", [rowid])
        if row is None:
            report.answers_lost += 1
            continue
        if links is None:
            links = [(doc_id,) for doc_id in json.loads(row[3] or "[]")]
        with connection:
            connection.execute(
                f"INSERT INTO answers ({_ANSWER_COLUMNS}) VALUES ({', '.join('?' * 17)})", row
            )
            connection.executemany(
                "INSERT INTO answer_documents (answer_id, doc_id) VALUES (?, ?)",
                [(row[0], doc_id) for (doc_id,) in links],
            )
        report.answers_kept += 1
