"""The files of a repair: the rebuild beside the library, and putting it in place.

A repair writes its rebuild to ``library.db.repairing``; once that is whole
(checkpointed, closed) it is renamed ``library.db.repaired``, so a rebuild that
was finished can be told from one a killed repair left half-written. The swap
then keeps the damaged file under a second name and renames the rebuild over
``library.db``: at every instant the library file is the old one or the new one.
"""

from __future__ import annotations

import contextlib
import errno
import os
import shutil
from datetime import UTC, datetime
from pathlib import Path

from reader.errors import StoreError
from reader.store import file_guard


def rebuilding(path: Path) -> Path:
    return path.with_name(path.name + file_guard.REBUILDING_SUFFIX)


def rebuilt(path: Path) -> Path:
    return path.with_name(path.name + file_guard.REBUILT_SUFFIX)


def database_files(path: Path) -> list[Path]:
    return [path, *(path.with_name(path.name + suffix) for suffix in ("-wal", "-shm"))]


def remove_database(path: Path) -> None:
    for file in database_files(path):
        file.unlink(missing_ok=True)
    file_guard.forget_healthy(path)


def remove_rebuilds(path: Path) -> None:
    """Remove what an earlier, interrupted repair of ``path`` left half-done."""
    remove_database(rebuilding(path))
    remove_database(rebuilt(path))


def finish_rebuild(path: Path) -> Path:
    """Mark the closed, checkpointed rebuild of ``path`` whole; returns its new name."""
    fresh, done = rebuilding(path), rebuilt(path)
    for journal in database_files(fresh)[1:]:
        journal.unlink(missing_ok=True)
    file_guard.forget_healthy(fresh)
    fresh.replace(done)
    return done


def swap(path: Path, done: Path) -> Path | None:
    """Put the finished rebuild ``done`` in place of ``path``; keep the damaged one
    beside it, and return where (None when there was no file at ``path`` to keep).

    The damaged file is kept under a second name first (a hard link, or a copy), and
    the rebuilt one is then renamed over it: at every instant ``path`` is the old
    library or the new one, never missing, so a process killed in between, or a
    reader opening the library then, never finds an empty place where a new empty
    library would be made.
    """
    kept = _damaged_name(path) if path.exists() else None
    if kept is not None:
        made: list[Path] = []
        try:
            for old_file, kept_file in zip(database_files(path), database_files(kept), strict=True):
                if old_file.exists():
                    made.append(kept_file)
                    _keep(old_file, kept_file)
        except OSError:
            for file in made:  # a copy the disk had no room for: not a copy at all
                file.unlink(missing_ok=True)
            raise
    file_guard.forget_healthy(path)
    # The old library's journal must never be read as the new one's: SQLite would
    # replay its pages into the rebuilt file. The rebuilt one has none (checkpointed
    # and closed), and the old one's is kept above.
    for journal in database_files(path)[1:]:
        journal.unlink(missing_ok=True)
    done.replace(path)
    file_guard.mark_healthy(path)
    return kept


def restore_partial(path: Path) -> None:
    """Put an unfinished rebuild in place of a missing ``path``: it is a sound library
    holding what the repair had reached, its last writes perhaps still in its journal."""
    fresh = rebuilding(path)
    with contextlib.closing(file_guard.connect(fresh, read_only=False)) as connection:
        connection.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()
    for journal in database_files(fresh)[1:]:
        journal.unlink(missing_ok=True)
    file_guard.forget_healthy(fresh)
    fresh.replace(path)


def _damaged_name(path: Path) -> Path:
    """``path.damaged-<stamp>``, numbered when a repair in the same second kept one."""
    stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
    kept = path.with_name(f"{path.name}.damaged-{stamp}")
    number = 1
    while any(file.exists() for file in database_files(kept)):
        number += 1
        kept = path.with_name(f"{path.name}.damaged-{stamp}-{number}")
    return kept


def _keep(file: Path, second_name: Path) -> None:
    """Give ``file`` a second name: a hard link where the file system allows one."""
    try:
        os.link(file, second_name)
    except OSError:
        shutil.copy2(file, second_name)


def raise_if_disk_full(path: Path, error: BaseException, which: str) -> None:
    """One line for a repair the disk had no room for, in place of the failed write's
    (which would name one document, or the rebuild's file, as if they were the point)."""
    if (
        file_guard.is_disk_full(error)
        or getattr(error, "errno", None) == errno.ENOSPC
        or (isinstance(error, StoreError) and file_guard.disk_full(path))
    ):
        raise disk_full(path, which) from None


def disk_full(path: Path, which: str) -> StoreError:
    return StoreError(
        f"The repair of the library at {path} failed: the disk is full; the{which} library "
        "is unchanged. Free some disk space and run `reader repair` again."
    )
