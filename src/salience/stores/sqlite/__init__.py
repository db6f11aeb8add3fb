"""The embedded default store: one SQLite file (WAL, FTS5, vectors beside the rows)."""

from salience.stores.sqlite.connection import PAGE_SIZE
from salience.stores.sqlite.rows import date_words, fts_match_expression
from salience.stores.sqlite.store import SQLiteStore

__all__ = ["PAGE_SIZE", "SQLiteStore", "date_words", "fts_match_expression", "open_store"]


def open_store(
    location: str, *, busy_timeout_ms: int, create: bool = True, read_only: bool = False
) -> SQLiteStore:
    """The store in the file ``location``: the registry's opener (:mod:`..registry`)."""
    return SQLiteStore(
        location, busy_timeout_ms=busy_timeout_ms, read_only=read_only, create=create
    )
