"""Rebuilding a damaged library from what is still readable and from the documents' files.

The damaged file is never changed: a new library is written beside it, row by
row from what SQLite can still read, and only then takes its place; the damaged
file is kept under a second name in case anything else can be recovered from it
(``reader.library.repair_swap``). No other reader opens the library meanwhile: the
repair holds its lock alone (``reader.store.file_guard``).

A library file missing beside what a repair left is recovered from the most
complete of it: a finished rebuild, else the newest damaged copy (read, never
changed), else an unfinished rebuild.

For each document, in order of preference:

1. its stored canonical text, when it reads back whole and agrees with its old
   chunks: chunks are rebuilt from it (the same ids, since chunk ids follow the
   text) and the ids are checked against the old ones;
2. its source file, re-extracted, when the stored text is unreadable and the
   file still has the same bytes (the document id is a hash of them); a document
   whose record is unreadable is found by the ids its chunks and answers name, and
   re-extracted from a file recorded for it;
3. otherwise it is reported lost, with the reason.

Answers are copied as they were; unreadable ones are counted as lost. A library
with no damage only gets its full-text index rebuilt.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from reader.config import library_path
from reader.errors import LibraryReadOnlyError, StoreError
from reader.library import repair_swap as swap
from reader.library.salvage import (
    Progress,
    RepairReport,
    Salvage,
    salvage_answers,
    salvage_documents,
)
from reader.store import LibraryStore, file_guard

__all__ = ["RepairReport", "repair_library"]


def repair_library(
    path: str | Path | None = None, progress: Progress | None = None
) -> RepairReport:
    """Repair the library at ``path`` (the user's library by default), or recover it
    from what an interrupted repair left when the file itself is missing.

    The repair holds the library's lock alone throughout: no other reader opens
    the library while it runs, so nothing is written to a file about to be replaced.
    """
    path = Path(path or library_path())
    say = progress or (lambda _message: None)
    if not path.exists() and not file_guard.repair_evidence(path):
        raise StoreError(f"There is no library at {path}, so there is nothing to repair.")
    lock = file_guard.exclusive_lock(path)
    try:
        if not path.exists():
            return _recover(path, say)
        return _repair(path, say)
    finally:
        file_guard.release_lock(lock)


def _repair(path: Path, say: Progress) -> RepairReport:
    swap.remove_rebuilds(path)  # an interrupted repair's: this one starts again
    old = LibraryStore(path, allow_damaged=True, lock=False)
    try:
        if old.read_only_reason == file_guard.DISK_FULL:
            raise swap.disk_full(path, "")
        if old.read_only:
            raise LibraryReadOnlyError(
                f"The library at {path} is read-only, so it cannot be repaired; make it "
                "writable first."
            )
        if old.damage is None:
            say("rebuilding the full-text index")
            try:
                chunks = old.rebuild_index()
            except (StoreError, sqlite3.Error, OSError) as error:
                swap.raise_if_disk_full(path, error, "")
                raise
            problem = file_guard.check(old.db.conn)
            if problem is None:
                return RepairReport(path, None, chunks=chunks)
            old.connection.damage = problem
        report = RepairReport(path, old.damage)
        done = _rebuild(old.db.conn, path, report, say)
    finally:
        old.close(seen_healthy=False)
    try:
        report.damaged_copy = swap.swap(path, done)
    except OSError as error:
        swap.remove_rebuilds(path)
        swap.raise_if_disk_full(path, error, "")
        raise StoreError(
            f"The repair of the library at {path} failed: its damaged file could not be "
            f"kept ({error.strerror}); the library is unchanged."
        ) from None
    return report


def _recover(path: Path, say: Progress) -> RepairReport:
    """The library from the most complete of what a repair left, its file being missing:
    the rebuild a repair finished, else the newest damaged copy repaired again, else
    what a repair had rebuilt when it stopped."""
    best = file_guard.repair_evidence(path)[0]
    if best == swap.rebuilt(path):
        say("putting the finished rebuild in place")
        swap.swap(path, best)
        swap.remove_rebuilds(path)
        return RepairReport(
            path, None, recovered=f"Finished an interrupted repair: {best.name} is the library now."
        )
    if best == swap.rebuilding(path):
        say("putting the unfinished rebuild in place")
        swap.restore_partial(path)
        report = _repair(path, say)
        report.recovered = (
            f"The library file was missing; {best.name}, which an interrupted repair had not "
            "finished, is the library now: ingest again any document it had not reached."
        )
        return report
    say(f"rebuilding from {best.name}")
    # Read-only: the damaged copy is evidence, and stays exactly as it was; the
    # journal files SQLite makes beside it to read it go with the connection.
    made = [file for file in swap.database_files(best)[1:] if not file.exists()]
    source = file_guard.connect(best, read_only=True)
    try:
        report = RepairReport(path, file_guard.check(source) or "the library file was missing")
        done = _rebuild(source, path, report, say)
    finally:
        source.close()
        for file in made:
            file.unlink(missing_ok=True)
    swap.swap(path, done)
    report.damaged_copy = best
    report.recovered = f"The library file was missing; it was rebuilt from {best.name}."
    return report


def _rebuild(old: sqlite3.Connection, path: Path, report: RepairReport, say: Progress) -> Path:
    """Salvage ``old`` into a new library beside ``path``; returns the finished file.

    Stopped for any reason (cancelled, the disk full), it leaves no file behind and
    the library as it was."""
    fresh = swap.rebuilding(path)
    swap.remove_database(fresh)
    try:
        with LibraryStore(fresh, lock=False) as new:
            if new.read_only:
                raise StoreError(
                    f"The repair of the library at {path} failed: {new.read_only_reason}."
                )
            salvage_documents(Salvage(old), new, report, say)
            salvage_answers(Salvage(old), new, report, say)
            new.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        return swap.finish_rebuild(path)
    except BaseException as error:
        swap.remove_rebuilds(path)
        swap.raise_if_disk_full(path, error, " damaged")
        raise
