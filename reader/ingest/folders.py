"""Which files a list of paths names: files as given, folders walked.

Patterns are shell globs matched without regard to case, against a file's name or,
when the pattern holds a ``/``, against its path inside the folder walked. A file
named on its own is always taken (so that if it cannot be read, the user is told
why); patterns choose among the files inside folders.
"""

from __future__ import annotations

import fnmatch
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path


def document_patterns() -> list[str]:
    """The patterns of every file kind reader reads, for when none are given."""
    from reader.ingest.extract import PYMUPDF_TYPES, TEXT_TYPES

    return [f"*{suffix}" for suffix in [*PYMUPDF_TYPES, *TEXT_TYPES]]


@dataclass
class FileSelection:
    """The files found, in order, and the folders that could not be read."""

    files: list[Path] = field(default_factory=list)
    folders: list[Path] = field(default_factory=list)
    unreadable: list[tuple[Path, str]] = field(default_factory=list)


def select_files(
    paths: Iterable[str | Path],
    recursive: bool = True,
    include: Sequence[str] = (),
    exclude: Sequence[str] = (),
) -> FileSelection:
    """The files ``paths`` name: each file as given, and the files in each folder that
    match ``include`` (by default every kind reader reads) and no ``exclude`` pattern.

    Folders are walked in name order; an excluded folder is not entered, and a link to
    a folder is not followed (links can loop). A file named twice is taken once.
    """
    include = list(include) or document_patterns()
    selection = FileSelection()
    seen: set[str] = set()

    def take(path: Path) -> None:
        resolved = os.path.realpath(path)  # never raises, even on a link loop
        if resolved not in seen:
            seen.add(resolved)
            selection.files.append(path)

    for given in map(Path, paths):
        if not given.is_dir():
            take(given)
            continue
        selection.folders.append(given)
        for path in _walk(given, recursive, exclude, selection.unreadable):
            relative = path.relative_to(given).as_posix()
            if _matches(relative, include) and not _matches(relative, exclude):
                take(path)
    return selection


def _walk(
    folder: Path, recursive: bool, exclude: Sequence[str], unreadable: list[tuple[Path, str]]
) -> Iterable[Path]:
    def on_error(error: OSError) -> None:
        where = Path(error.filename) if error.filename else folder
        unreadable.append(
            (where, f"{where} cannot be read ({error.strerror}); the files in it were skipped.")
        )

    for top, folders, names in os.walk(folder, onerror=on_error):
        here = Path(top)
        if recursive:
            folders[:] = sorted(
                name
                for name in folders
                if not _matches((here / name).relative_to(folder).as_posix(), exclude)
            )
        else:
            folders[:] = []
        for name in sorted(names):
            yield here / name


def _matches(relative: str, patterns: Sequence[str]) -> bool:
    relative = relative.lower()
    name = relative.rsplit("/", 1)[-1]
    for pattern in patterns:
        pattern = pattern.lower()
        if fnmatch.fnmatchcase(relative if "/" in pattern else name, pattern):
            return True
    return False
