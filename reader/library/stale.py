"""Documents whose source file changed or is gone since it was ingested.

A file with the recorded size and modification time is taken as unchanged
without reading it; any other is hashed and compared with the document id.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from reader.ingest import document_id
from reader.library.library import Library
from reader.store.sources import SourceFile, document_sources, record_source, recorded_at


@dataclass
class StaleDocument:
    """A document whose file changed (``changed``: ``path`` holds other content now)
    or is gone from every path it was ingested from (``gone``)."""

    doc_id: str
    title: str
    path: str
    state: str

    def to_json(self) -> dict[str, object]:
        return {"doc_id": self.doc_id, "title": self.title, "path": self.path, "state": self.state}


def stale_documents(
    library: Library, folders: Sequence[str | Path] | None = None
) -> list[StaleDocument]:
    """Documents whose file changed or is gone, among those ingested from ``folders``
    (all, when None). A file with the recorded size and time is taken as unchanged
    without reading it; others are hashed."""
    store = library.store
    under = [Path(os.path.realpath(folder)) for folder in folders or ()]
    recorded = document_sources(store)
    titles = store.titles(list(recorded))
    stale = []
    for doc_id, sources in recorded.items():
        if under and not any(_inside(Path(s.path), under) for s in sources):
            continue
        state, where = "gone", sources[0].path
        for source in sources:
            try:
                status = os.stat(source.path)
            except OSError:
                continue
            if not stat.S_ISREG(status.st_mode):
                continue  # a folder or a pipe where the file was: reading it could block
            if source.doc_id == doc_id and source.matches(status):
                state = "fresh"
                break
            holder = recorded_at(store, source.path)
            if holder is not None and holder.doc_id != doc_id and holder.matches(status):
                content = holder.doc_id  # another document was ingested from it since
            else:
                try:
                    content = document_id(source.path)
                except OSError:
                    continue
            if content == doc_id:
                state = "fresh"
                record_source(store, SourceFile.of(source.path, doc_id, status))
                break
            state, where = "changed", source.path
        if state != "fresh":
            stale.append(StaleDocument(doc_id, titles.get(doc_id, ""), where, state))
    return stale


def _inside(path: Path, folders: list[Path]) -> bool:
    return any(path == folder or folder in path.parents for folder in folders)
