"""Opening the library file safely: read-only when it must be, never written once damaged.

A library file can be damaged by a failing disk, a crash in another program or
a bad copy. SQLite notices only when a query touches a damaged page, so:

- when the file changed since reader last saw it healthy, ``PRAGMA quick_check``
  reads it all once (about a second per gigabyte) before anything is written;
- every query goes through ``GuardedConnection``, which turns SQLite's
  corruption errors into ``LibraryDamagedError`` and remembers the damage, so
  the store refuses every later write.

A file, or a folder, reader may not write to is opened read-only.

A repair replaces the file: while it runs it holds the library's lock
(``library.db.lock``, an ``flock``) alone, and every store holds it shared while
open, so nothing writes to a file about to be replaced. A missing library file
beside what a repair leaves (its rebuild, the damaged copy) is reported, never
silently recreated empty.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import sqlite3
from collections.abc import Iterable
from pathlib import Path
from typing import Any, Literal
from urllib.parse import quote

from reader.errors import LibraryDamagedError, StoreError

try:
    import fcntl
except ImportError:  # Windows: no flock, so writers are not kept out of a running repair
    fcntl = None  # type: ignore[assignment]

# SQLITE_CORRUPT and SQLITE_NOTADB; extended codes keep these in their low byte.
_CORRUPTION_CODES = {11, 26}
_STAMP_SUFFIX = ".checked"
# Why a library opens read-only.
READ_ONLY = "the file or its folder is read-only"
DISK_FULL = "the disk is full"
REPAIR_RUNNING = "A repair of the library is running; try again when it finishes."
# What a repair leaves beside the library: its finished rebuild, the rebuild it was
# writing, and the damaged file it kept (``<name>.damaged-<stamp>``).
REBUILT_SUFFIX = ".repaired"
REBUILDING_SUFFIX = ".repairing"
_DAMAGED_COPY = r"\.damaged-\d{8}-\d{6}(?:-\d+)?"


def is_corruption(error: BaseException) -> bool:
    if not isinstance(error, sqlite3.DatabaseError):
        return False
    code = getattr(error, "sqlite_errorcode", None)
    if isinstance(code, int):
        return code & 0xFF in _CORRUPTION_CODES
    text = str(error)
    return "malformed" in text or "not a database" in text


def is_disk_full(error: BaseException) -> bool:
    code = getattr(error, "sqlite_errorcode", None)
    return (isinstance(code, int) and code & 0xFF == 13) or "disk is full" in str(error)


def damaged(path: Path, detail: object) -> LibraryDamagedError:
    detail = " ".join(str(detail).replace("*", " ").split())[:160]
    return LibraryDamagedError(
        f"The library at {path} is damaged ({detail}); reader will not write to it. "
        "Run `reader repair` to rebuild it from what is readable and from your documents' files."
    )


class GuardedCursor(sqlite3.Cursor):
    """A cursor whose corruption errors become ``LibraryDamagedError``."""

    def _guard(self, error: sqlite3.DatabaseError) -> Exception:
        connection = self.connection
        if is_corruption(error) and isinstance(connection, GuardedConnection):
            connection.damage = str(error)
            return damaged(connection.path, error)
        return error

    def execute(self, sql: str, parameters: Any = (), /) -> GuardedCursor:
        try:
            super().execute(sql, parameters)
        except sqlite3.DatabaseError as error:
            raise self._guard(error) from None
        return self

    def executemany(self, sql: str, parameters: Iterable[Any], /) -> GuardedCursor:
        try:
            super().executemany(sql, parameters)
        except sqlite3.DatabaseError as error:
            raise self._guard(error) from None
        return self

    def fetchone(self) -> Any:
        try:
            return super().fetchone()
        except sqlite3.DatabaseError as error:
            raise self._guard(error) from None

    def fetchmany(self, size: int | None = 1) -> list[Any]:
        try:
            return super().fetchmany(size)
        except sqlite3.DatabaseError as error:
            raise self._guard(error) from None

    def fetchall(self) -> list[Any]:
        try:
            return super().fetchall()
        except sqlite3.DatabaseError as error:
            raise self._guard(error) from None

    def __iter__(self) -> GuardedCursor:
        return self

    def __next__(self) -> Any:
        try:
            return super().__next__()
        except sqlite3.DatabaseError as error:
            raise self._guard(error) from None


class GuardedConnection(sqlite3.Connection):
    """A connection that knows its file and whether it has seen damage."""

    path: Path = Path()
    damage: str | None = None

    def cursor(self, factory: Any = GuardedCursor) -> Any:
        return super().cursor(factory)

    def execute(self, sql: str, parameters: Any = (), /) -> GuardedCursor:
        return self.cursor().execute(sql, parameters)

    def executemany(self, sql: str, parameters: Iterable[Any], /) -> GuardedCursor:
        return self.cursor().executemany(sql, parameters)

    def __exit__(self, kind: Any, value: Any, traceback: Any) -> Literal[False]:
        try:
            return super().__exit__(kind, value, traceback)
        except sqlite3.DatabaseError as error:  # the commit itself failed
            if is_corruption(error):
                self.damage = str(error)
                raise damaged(self.path, error) from None
            raise


def writable(path: Path) -> bool:
    """Whether reader may write the library file (and the journal files beside it)."""
    folder = path.parent
    if not os.access(folder, os.W_OK | os.X_OK):
        return False
    return not path.exists() or os.access(path, os.W_OK)


def disk_full(path: Path) -> bool:
    """Whether the disk holding the library has no room left for its journal files."""
    try:
        return shutil.disk_usage(path.parent).free < 256 * 1024
    except OSError:
        return False


def connect(path: Path, read_only: bool) -> GuardedConnection:
    """A guarded connection to the library file; read-only ones never write, not even a journal."""
    if read_only:
        connection = _connect_read_only(path)
    else:
        connection = sqlite3.connect(str(path), timeout=30, factory=GuardedConnection)
    assert isinstance(connection, GuardedConnection)
    connection.path = path
    return connection


def _connect_read_only(path: Path) -> sqlite3.Connection:
    if not path.exists():
        raise StoreError(
            f"There is no library at {path} and its folder is read-only; "
            "point READER_HOME at a folder reader may write to."
        )
    uri = f"file:{quote(str(path.resolve()))}?mode=ro"
    connection = sqlite3.connect(uri, uri=True, timeout=30, factory=GuardedConnection)
    try:
        connection.execute("SELECT count(*) FROM sqlite_master").fetchone()
        return connection
    except sqlite3.OperationalError:
        # A library in WAL mode needs its shared-memory file, which a read-only
        # folder cannot hold: read the file as it is on disk instead.
        connection.close()
        return sqlite3.connect(
            uri + "&immutable=1", uri=True, timeout=30, factory=GuardedConnection
        )


def _file_state(path: Path) -> list[list[int] | None]:
    state: list[list[int] | None] = []
    for candidate in (path, path.with_name(path.name + "-wal")):
        try:
            stat = candidate.stat()
        except OSError:
            state.append(None)
        else:
            state.append([stat.st_size, stat.st_mtime_ns, stat.st_ino])
    return state


def _stamp_path(path: Path) -> Path:
    return path.with_name(path.name + _STAMP_SUFFIX)


def seen_healthy(path: Path) -> bool:
    """Whether the file is as reader left it after a session that saw no damage."""
    try:
        stamp = json.loads(_stamp_path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return bool(stamp == _file_state(path))


def mark_healthy(path: Path) -> None:
    """Remember the file's state, so the next open need not check it again."""
    stamp = _stamp_path(path)
    temporary = stamp.with_name(stamp.name + ".tmp")
    try:
        temporary.write_text(json.dumps(_file_state(path)), encoding="utf-8")
        temporary.replace(stamp)
    except OSError:
        # A missing stamp only costs a check on the next open; a full disk must not
        # be left holding an empty temporary file.
        temporary.unlink(missing_ok=True)


def forget_healthy(path: Path) -> None:
    _stamp_path(path).unlink(missing_ok=True)


def check(connection: sqlite3.Connection) -> str | None:
    """What is wrong with the file, or None when SQLite finds it sound."""
    try:
        rows = connection.execute("PRAGMA quick_check(1)").fetchall()
    except LibraryDamagedError as error:
        return str(getattr(connection, "damage", None) or error)
    except sqlite3.DatabaseError as error:
        return str(error)
    result = rows[0][0] if rows else "no answer from the check"
    return None if result == "ok" else str(result)


def repair_evidence(path: Path) -> list[Path]:
    """What a repair left beside the library file, the most complete first: a finished
    rebuild, the damaged copies (newest first), then a rebuild that was not finished."""
    try:
        names = {entry.name for entry in path.parent.iterdir()}
    except OSError:
        return []
    copies = sorted(
        (name for name in names if re.fullmatch(re.escape(path.name) + _DAMAGED_COPY, name)),
        key=lambda name: [int(part) for part in re.findall(r"\d+", name[len(path.name) :])],
        reverse=True,
    )
    order = [path.name + REBUILT_SUFFIX, *copies, path.name + REBUILDING_SUFFIX]
    return [path.with_name(name) for name in order if name in names]


def missing(path: Path, evidence: list[Path]) -> LibraryDamagedError:
    """The error for a library file gone where a repair left files beside it."""
    names = ", ".join(file.name for file in evidence[:3]) + (" …" if len(evidence) > 3 else "")
    return LibraryDamagedError(
        f"The library file {path} is missing, but a repair left {names} beside it; run "
        f"`reader repair` to recover the library from {evidence[0].name} (or move those "
        "files away to start an empty library)."
    )


def lock_path(path: Path) -> Path:
    return path.with_name(path.name + ".lock")


def share_lock(path: Path) -> int | None:
    """Hold the library's lock shared (every open store does); refused while a repair
    holds it. Returns the descriptor to release, None where there is no lock to take."""
    descriptor = _open_lock(path)
    if descriptor is None:
        return None
    if not _flock(descriptor, shared=True):
        os.close(descriptor)
        raise StoreError(REPAIR_RUNNING)
    return descriptor


def exclusive_lock(path: Path) -> int | None:
    """Hold the library's lock alone, for a repair: refused while any store has the
    library open, in this process or another."""
    descriptor = _open_lock(path)
    if descriptor is None:
        return None
    if _flock(descriptor, shared=False):
        return descriptor
    os.close(descriptor)
    # Another repair holds it alone (a shared hold is refused too), or stores share it.
    probe = share_lock(path)  # raises REPAIR_RUNNING when a repair holds it
    release_lock(probe)
    raise StoreError(
        f"The library at {path} is open in another reader (the window, or an ingest still "
        "running); close it or let it finish, then run `reader repair` again."
    )


def release_lock(descriptor: int | None) -> None:
    if descriptor is not None:
        os.close(descriptor)  # closing the descriptor releases its flock


def _open_lock(path: Path) -> int | None:
    if fcntl is None:
        return None
    try:
        return os.open(lock_path(path), os.O_RDWR | os.O_CREAT, 0o644)
    except OSError:
        pass
    try:  # a read-only folder: a lock file already there can still be locked
        return os.open(lock_path(path), os.O_RDONLY)
    except OSError:
        return None  # no folder yet, or no room for the file: open without a lock


def _flock(descriptor: int, shared: bool) -> bool:
    """Take the lock without waiting; False if someone else holds it the other way."""
    try:
        fcntl.flock(descriptor, (fcntl.LOCK_SH if shared else fcntl.LOCK_EX) | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    except OSError:
        return True  # a file system without locks (some network mounts): go without
    return True
