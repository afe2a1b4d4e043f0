"""What is at a path, told apart before anything opens it.

A named pipe or a device would block a reader or never end, and a bare
"no such file" for a dangling link or a loop hides what is wrong; so every path
a user gives is classified here, with ``os.lstat``/``os.stat`` only, before it
is opened.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

from reader.errors import (
    DanglingLinkError,
    FileMissingError,
    LinkLoopError,
    NotAFileError,
    UnreadableFileError,
)

__all__ = ["check_document_file"]


def check_document_file(path: str | Path) -> Path:
    """Return ``path`` if it is a regular file this user can read; otherwise raise
    the ``IngestError`` that says what is there instead and what to do."""
    path = Path(path)
    try:
        os.lstat(path)
        status = os.stat(path)
    except OSError as error:
        raise _lookup_error(path, error) from None
    mode = status.st_mode
    if stat.S_ISDIR(mode):
        raise NotAFileError(f"{path} is a folder; give the files inside it instead.")
    if stat.S_ISFIFO(mode):
        raise NotAFileError(
            f"{path} is a named pipe (FIFO), not a file; save what it carries to a file "
            "and give that file instead."
        )
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        raise NotAFileError(
            f"{path} is a device, not a document; give the path of a document file "
            "(PDF, EPUB, text ...)."
        )
    if stat.S_ISSOCK(mode):
        raise NotAFileError(
            f"{path} is a socket, not a document; give the path of a document file "
            "(PDF, EPUB, text ...)."
        )
    if not stat.S_ISREG(mode):
        raise NotAFileError(f"{path} is not a regular file; give the path of a document file.")
    try:
        # Opening a regular file never blocks; it is the one honest test of read
        # permission (access rules, ACLs and root's privileges included).
        with open(path, "rb"):
            pass
    except OSError as error:
        raise _open_error(path, error) from None
    return path


def _lookup_error(path: Path, error: OSError) -> Exception:
    if error.errno == errno.ELOOP:
        return LinkLoopError(
            f"{path} is a symbolic link that loops back on itself; point it at a real file, "
            "or give the file's own path."
        )
    if error.errno in (errno.EACCES, errno.EPERM):
        return UnreadableFileError(
            f"{path} cannot be reached: permission denied on a folder in its path; ask its "
            "owner for access, or copy the file somewhere you can read."
        )
    if error.errno == errno.ENOENT and os.path.islink(path):
        target = os.path.realpath(path)
        return DanglingLinkError(
            f"{path} is a symbolic link to {target}, which does not exist; fix the link "
            "or give the file's real path."
        )
    if error.errno in (errno.ENOENT, errno.ENOTDIR):
        return FileMissingError(f"{path}: no such file; check the path and try again.")
    return UnreadableFileError(
        f"{path} cannot be read ({error.strerror or error}); check the path and try again."
    )


def _open_error(path: Path, error: OSError) -> Exception:
    if error.errno in (errno.EACCES, errno.EPERM):
        return UnreadableFileError(
            f"{path} cannot be read: permission denied; ask its owner for read access "
            "(if it is yours: chmod u+r on it)."
        )
    return UnreadableFileError(
        f"{path} cannot be read ({error.strerror or error}); check the disk or copy the "
        "file somewhere else and try again."
    )
