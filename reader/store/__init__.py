"""The library database: documents, chunks and a full-text index in SQLite."""

from reader.store.database import LibraryStore

__all__ = ["LibraryStore"]
