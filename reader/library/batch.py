"""Ingesting many files: folders walked, unchanged files skipped, extraction in parallel.

A file whose size and modification time are those recorded when it was ingested
is skipped without reading it; any other file is hashed, and content already in
the library is only recorded at its new path. The rest is extracted in worker
processes (``reader.ingest.workers``) while this process, the only writer, stores
each document in its own transaction as it arrives: an interrupted run loses
nothing finished, and running it again goes on where it stopped.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from reader.errors import Cancelled, IngestError, LibraryReadOnlyError, ReaderError, StoreError
from reader.ingest import document_id, extractor_is_current
from reader.ingest.files import check_document_file
from reader.ingest.folders import FileSelection, select_files
from reader.ingest.ocr import ocr_settings
from reader.ingest.workers import (
    Extracted,
    ExtractionPool,
    extract_file,
)
from reader.library.batch_report import BatchProgress, BatchReport, FileOutcome
from reader.library.library import Library
from reader.library.stale import stale_documents
from reader.store import file_guard
from reader.store.database import LibraryStore
from reader.text.escaping import one_line

if TYPE_CHECKING:
    from reader.ingest.ocr import OcrSettings

from reader.store.sources import (
    SourceFile,
    record_source,
    recorded_file,
    replace_document,
)

CHANGED_NOTE = "changed since it was ingested; --update replaces the old version"
# How often a wait for workers looks at the cancel flag, in seconds.
_CANCEL_POLL = 0.2
# A pool with files in flight and no worker alive for this long has died unnoticed.
_DEAD_POOL_SECONDS = 5.0


PROGRESS_INTERVAL = 0.5  # seconds between reports of pages within one file

# A batch that grows a large library by a tenth or more ends by merging its
# index (see ``LibraryStore.merge_index``); adding a few files does not pay for it.
MERGE_FROM_CHUNKS = 20_000
MERGE_GROWTH = 0.1


def _worth_merging(indexed_before: int, store: LibraryStore) -> bool:
    if store.read_only:
        return False
    indexed = store.indexed_chunks()
    return indexed >= MERGE_FROM_CHUNKS and indexed - indexed_before >= MERGE_GROWTH * indexed


@dataclass
class _Planned:
    """A file to extract, with what the library knew of it."""

    index: int  # its place in the list, so outcomes are told in order
    path: Path
    doc_id: str
    source: SourceFile
    previous: list[str]  # versions it replaces (--update) or stands beside


class BatchIngest:
    """One run over a list of files and folders, into ``library``."""

    def __init__(
        self,
        library: Library,
        workers: int = 1,
        password: str | None = None,
        update: bool = False,
        on_file: Callable[[FileOutcome], None] | None = None,
        on_progress: Callable[[BatchProgress], None] | None = None,
        cancel: threading.Event | None = None,
        ocr: OcrSettings | None = None,
    ) -> None:
        self.library = library
        # OCR settings asked for in this run (None: the user's settings, and documents
        # already in the library are taken as they were read).
        self.ocr_asked = ocr
        self.ocr = ocr or ocr_settings()
        self.store = library.store
        self.workers = workers
        self.password = password
        self.update = update
        self.on_file = on_file
        self.on_progress = on_progress
        self.cancel = cancel or threading.Event()
        self.report = BatchReport()
        self._replaces: dict[str, list[str]] = {}
        self._again: list[tuple[int, Path]] = []  # saved anew while planned: read again
        self._read_again: set[int] = set()
        self._total = 0
        self._started = 0.0
        self._last_report = 0.0
        # Outcomes arrive in the order workers finish; they are told in the files' order.
        self._waiting: dict[int, FileOutcome] = {}
        self._told = 0

    def run(self, selection: FileSelection) -> BatchReport:
        """Ingest the selected files; stops early (keeping what is stored) on cancel
        or Ctrl+C, with ``report.cancelled`` set."""
        self._started = time.perf_counter()
        files = selection.files
        if self.update:
            named = [*selection.folders, *selection.files]
            stale = stale_documents(self.library, named or None)
            for document in stale:
                if document.state == "changed":
                    self._replaces.setdefault(document.path, []).append(document.doc_id)
            if not selection.folders and not files:
                files = [Path(path) for path in self._replaces]
        self._total = len(files) + len(selection.unreadable)
        for index, (folder, reason) in enumerate(selection.unreadable):
            self._finish(index, FileOutcome(folder, "refused", reason=reason))
        if self.store.read_only and files:
            # Said before any file is read: reading them all to refuse each is work for nothing.
            self.store.writing()  # raises the library's own reason (read-only, disk full)
        pool = ExtractionPool(self.workers) if self.workers > 1 and len(files) > 1 else None
        indexed_before = self.store.indexed_chunks()
        finished = False
        try:
            self._ingest(files, pool, first_index=len(selection.unreadable))
            finished = True
        except (KeyboardInterrupt, Cancelled):
            self.report.cancelled = True
        finally:
            if pool is not None:
                if finished:
                    pool.close()
                else:  # cancelled, or the library can no longer be written
                    pool.stop()
            self._tell(flush=True)
        if not self.report.cancelled and _worth_merging(indexed_before, self.store):
            self.store.merge_index()
        self.report.seconds = time.perf_counter() - self._started
        return self.report

    def _ingest(self, files: Sequence[Path], pool: ExtractionPool | None, first_index: int) -> None:
        """Read and store each file, in worker processes when there is a pool.

        A worker that dies (killed, out of memory, crashed in C) takes the pool with
        it, and nothing tells which of the files in flight killed it: each of them is
        read again alone, in a fresh pool, and refused only if it kills that one too.
        The others are never blamed.
        """
        pending: dict[Future[Extracted], _Planned] = {}
        queue = list(enumerate(files, start=first_index))
        alone: list[tuple[int, Path]] = []  # in flight when a worker died: read one by one
        isolated = False  # the one file in flight is read alone
        silent_polls = 0
        if pool is not None:
            # Largest first, so no worker is left with a long file while the others
            # idle at the end; outcomes are still told in the files' order.
            queue.sort(key=lambda item: -_size(item[1]))
        while queue or alone or pending or self._again:
            if self.cancel.is_set():
                raise Cancelled("Ingest cancelled.")
            queue[:0], self._again = self._again, []
            if pool is None:
                planned = self._plan(*queue.pop(0))
                if planned is not None:
                    self._store(planned, self._extract_here(planned))
                continue
            # A file to read alone goes once the pool is idle; the others one per worker
            # and one waiting, so memory stays bounded.
            if not isolated and (
                (alone and not pending) or (not alone and queue and len(pending) <= self.workers)
            ):
                isolated = bool(alone)
                planned = self._plan(*(alone or queue).pop(0))
                if planned is None:
                    isolated = False
                    continue
                try:
                    submitted = pool.submit(planned.path, planned.doc_id, self.password, self.ocr)
                except BrokenProcessPool:  # a worker died since the last wait
                    self._lost(pool, [planned, *pending.values()], alone, isolated)
                    pending.clear()
                    isolated = False
                    continue
                pending[submitted] = planned
                continue
            done, _ = wait(pending, timeout=_CANCEL_POLL, return_when=FIRST_COMPLETED)
            # A pool whose workers are all gone, or that lost one, and that never said so:
            # not waited on for ever.
            waiting = pool.has_live_worker() and not pool.lost_a_worker()
            silent_polls = 0 if done or waiting else silent_polls + 1
            broken = silent_polls * _CANCEL_POLL >= _DEAD_POOL_SECONDS
            for future in done:
                planned = pending.pop(future)
                try:
                    extracted = future.result()
                except BrokenProcessPool:
                    broken = True
                    pending[future] = planned
                    break
                isolated = False
                self._store(planned, extracted)
            if broken:
                self._lost(pool, list(pending.values()), alone, isolated)
                pending.clear()
                isolated = False
                silent_polls = 0

    def _lost(
        self,
        pool: ExtractionPool,
        lost: list[_Planned],
        alone: list[tuple[int, Path]],
        isolated: bool,
    ) -> bool:
        """After a worker died: a file read alone is refused with why; the files that were
        in flight beside others are to be read alone. The pool starts afresh."""
        if isolated and len(lost) == 1:
            self._store(lost[0], pool.died_reading(lost[0].path, lost[0].doc_id))
        else:
            alone.extend(sorted((item.index, item.path) for item in lost))
        pool.restart()
        return False

    def _extract_here(self, planned: _Planned) -> Extracted:
        def progress(done: int, total: int) -> None:
            if self.cancel.is_set():
                raise Cancelled("Ingest cancelled.")
            self._report_progress((done, total))

        return extract_file(planned.path, planned.doc_id, self.password, progress, self.ocr)

    def _plan(self, index: int, path: Path) -> _Planned | None:
        """Finish a file that needs no extraction and return None; else what to extract."""
        try:
            path = check_document_file(path)
            status = os.stat(path)
            resolved = os.path.realpath(path)
            replaces = self._replaces.get(resolved, [])
            recorded = recorded_file(self.store, resolved)
            if (
                recorded is not None
                and not replaces
                and recorded.source.matches(status)
                and extractor_is_current(recorded.extractor, path, self.ocr_asked)
            ):
                self._finish(index, self._known(path, recorded.source.doc_id, "unchanged"))
                return None
            doc_id = document_id(path)
            previous = [old for old in replaces if old != doc_id]
            if recorded is not None and recorded.source.doc_id not in (doc_id, *previous):
                previous.append(recorded.source.doc_id)
            source = SourceFile.of(path, doc_id, status)
            if extractor_is_current(self.store.document_extractor(doc_id), path, self.ocr_asked):
                record_source(self.store, source)
                outcome = self._known(path, doc_id, "unchanged")
                self._finish(index, self._replace(outcome, previous))
                return None
        except ReaderError as error:
            self._finish(index, FileOutcome(path, "refused", reason=str(error)))
            return None
        return _Planned(index, path, doc_id, source, previous)

    def _store(self, planned: _Planned, extracted: Extracted) -> None:
        if extracted.changed:
            # Saved anew since it was planned (an editor's save): read it again, once.
            if planned.index not in self._read_again:
                self._read_again.add(planned.index)
                self._again.append((planned.index, planned.path))
                return
            extracted.refusal = (
                f"{one_line(planned.path.name)} changed while it was being read; ingest it "
                "again once it is saved."
            )
        if extracted.document is None or extracted.chunks is None:
            self._finish(
                planned.index, FileOutcome(planned.path, "refused", reason=extracted.refusal)
            )
            return
        document, chunks = extracted.document, extracted.chunks
        try:
            self.store.add_document(document, chunks, source=planned.source)
        except ReaderError as error:
            self._finish(planned.index, FileOutcome(planned.path, "refused", reason=str(error)))
            if isinstance(error, LibraryReadOnlyError) or file_guard.disk_full(self.store.path):
                # No later file could be stored either: stop before reading more.
                added = self.report.count("added")
                raise StoreError(
                    f"{error} Ingest stopped: {added} files were added before; the others "
                    "were not read."
                ) from None
            return
        self.library.forget_verifier(document.id)
        outcome = FileOutcome(
            planned.path,
            "added",
            doc_id=document.id,
            title=document.title,
            pages=document.pages,
            chars=document.chars,
            chunks=len(chunks),
            warnings=list(document.warnings),
            ocr_pages=len(document.ocr_pages),
        )
        self._finish(planned.index, self._replace(outcome, planned.previous))

    def _replace(self, outcome: FileOutcome, previous: list[str]) -> FileOutcome:
        """With --update, the old versions give way to the new one (their answers move
        to it); without, the new version stands beside them and the file is reported
        as changed."""
        if not previous or not outcome.doc_id:
            return outcome
        if not self.update:
            outcome.state = "changed"
            outcome.reason = CHANGED_NOTE
            return outcome
        for old_id in previous:
            if self.store.document_extractor(old_id) is None:
                continue  # removed already (another path of the same old version)
            outcome.answers_moved += replace_document(self.store, old_id, outcome.doc_id)
            self.library.forget_verifier(old_id)
            outcome.replaced.append(old_id)
        if outcome.replaced:
            outcome.state = "updated"
        return outcome

    def _known(self, path: Path, doc_id: str, state: str) -> FileOutcome:
        return FileOutcome.listed(path, state, self.store.document_summary(doc_id))

    def _finish(self, index: int, outcome: FileOutcome) -> None:
        self._waiting[index] = outcome
        self.report.outcomes.append(outcome)
        self._tell()
        self._report_progress(None)

    def _report_progress(self, file_pages: tuple[int, int] | None) -> None:
        now = time.perf_counter()
        # Within a file, at most twice a second: a log gets a line, not one per page.
        if file_pages is not None and now - self._last_report < PROGRESS_INTERVAL:
            return
        self._last_report = now
        if self.on_progress is not None:
            self.on_progress(
                BatchProgress(
                    len(self.report.outcomes),
                    self._total,
                    self.report.pages,
                    time.perf_counter() - self._started,
                    file_pages,
                )
            )

    def _tell(self, flush: bool = False) -> None:
        """Pass finished outcomes to ``on_file`` in the files' order; ``flush`` passes
        on the rest (after a cancel, files never finished leave gaps)."""
        while self._waiting and (flush or self._told in self._waiting):
            index = self._told if self._told in self._waiting else min(self._waiting)
            outcome = self._waiting.pop(index)
            self._told = index + 1
            if self.on_file is not None:
                self.on_file(outcome)


def ingest_paths(
    library: Library,
    paths: Iterable[str | Path],
    recursive: bool = True,
    include: Sequence[str] = (),
    exclude: Sequence[str] = (),
    workers: int = 1,
    password: str | None = None,
    update: bool = False,
    on_file: Callable[[FileOutcome], None] | None = None,
    on_progress: Callable[[BatchProgress], None] | None = None,
    cancel: threading.Event | None = None,
    ocr: OcrSettings | None = None,
) -> BatchReport:
    """Walk ``paths`` and ingest what they hold (see ``BatchIngest``); with ``update``
    and no paths, the new versions of every changed file in the library."""
    paths = list(paths)
    selection = select_files(paths, recursive, include, exclude)
    if paths and not selection.files and not selection.unreadable:
        folders = ", ".join(str(folder) for folder in selection.folders)
        raise IngestError(
            f"{folders} holds no files matching {', '.join(include) or 'the document kinds'}; "
            "give --glob PATTERN to choose other files."
        )
    batch = BatchIngest(library, workers, password, update, on_file, on_progress, cancel, ocr)
    return batch.run(selection)


def _size(path: Path) -> int:
    try:
        return os.stat(path).st_size
    except OSError:
        return 0  # told why when it is planned
