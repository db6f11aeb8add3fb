"""The embedded default store: one SQLite file (WAL, FTS5, vectors beside the rows)."""

from salience.stores.sqlite.connection import PAGE_SIZE
from salience.stores.sqlite.rows import date_words, fts_match_expression
from salience.stores.sqlite.store import SQLiteStore

__all__ = ["PAGE_SIZE", "SQLiteStore", "date_words", "fts_match_expression"]
