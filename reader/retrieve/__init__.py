"""Full-text retrieval over the library's chunks."""

from reader.retrieve.search import build_fts_query, search

__all__ = ["build_fts_query", "search"]
