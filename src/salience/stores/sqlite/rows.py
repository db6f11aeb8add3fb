"""SQLite's own query text: the FTS5 MATCH expression of a query, and where a store's counters
stand (rows: stores/rows.py)."""

from __future__ import annotations

import sqlite3
from collections.abc import Collection

from salience.stores.fts_terms import TEXT_COLUMNS
from salience.stores.rows import (
    COLUMNS,
    INDEXED_FIELDS,
    INSERT_COLUMNS,
    date_words,
    dated_text,
    filter_sql,
    from_row,
    to_row,
)
from salience.text import query_terms

__all__ = [
    "COLUMNS",
    "INDEXED_FIELDS",
    "INSERT_COLUMNS",
    "counters",
    "date_words",
    "dated_text",
    "filter_sql",
    "from_row",
    "fts_match_expression",
    "to_row",
]


def fts_match_expression(
    query: str, *, dated: bool = False, leave_out: Collection[str] = ()
) -> str | None:
    """An FTS5 MATCH expression OR-ing the query's terms, each quoted; None if no terms.

    Quoting makes every user string safe: FTS5 operators (AND, NEAR, *, ^, :, parentheses)
    inside quotes are plain text. Without ``dated`` the creation-date column is left out.
    Terms in ``leave_out`` are not searched for.
    """
    terms = [term for term in query_terms(query) if term not in leave_out]
    if not terms:
        return None
    expression = " OR ".join('"' + term.replace('"', '""') + '"' for term in terms)
    return expression if dated else f"{TEXT_COLUMNS} : ({expression})"


def counters(conn: sqlite3.Connection) -> tuple[int, int] | None:
    """The highest row number and the highest change number (``memory_changes``, migration
    0007) on ``conn``; None for a store from before the change log."""
    try:
        row = conn.execute(
            "SELECT (SELECT coalesce(max(seq), 0) FROM memories), "
            "(SELECT coalesce(max(cseq), 0) FROM memory_changes)"
        ).fetchone()
    except sqlite3.OperationalError:
        return None
    return int(row[0]), int(row[1])
