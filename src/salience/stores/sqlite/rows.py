"""SQLite's own query text: the FTS5 MATCH expression of a query (rows: stores/rows.py)."""

from __future__ import annotations

from collections.abc import Collection

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
    "date_words",
    "dated_text",
    "filter_sql",
    "from_row",
    "fts_match_expression",
    "to_row",
]
_TEXT_COLUMNS = "{content title tags entities}"


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
    return expression if dated else f"{_TEXT_COLUMNS} : ({expression})"
