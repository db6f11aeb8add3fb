"""How a memory record becomes an SQLite row and back, and filters and queries become SQL.

The hot paths of every write and read: conversions go by precomputed position.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Sequence
from datetime import datetime
from typing import Any

from salience.clock import format_time
from salience.models import FIELD_NAMES, LIST_FIELDS, TIME_FIELDS, MemoryRecord
from salience.stores.base import MemoryFilter
from salience.text import content_hash, query_terms

COLUMNS = ", ".join(f"m.{name}" for name in FIELD_NAMES)
INSERT_COLUMNS = (*FIELD_NAMES, "content_hash")
INDEXED_FIELDS = ("content", "title", "tags", "entities", "created_at")
_TEXT_COLUMNS = "{content title tags entities}"
_MONTHS = (
    "January February March April May June July August September October November December"
).split()
_WEEKDAYS = "Monday Tuesday Wednesday Thursday Friday Saturday Sunday".split()
_TIME_AT = tuple(i for i, name in enumerate(FIELD_NAMES) if name in frozenset(TIME_FIELDS))
_JSON_AT = tuple(i for i, name in enumerate(FIELD_NAMES) if name in frozenset(LIST_FIELDS))
_ENABLED_AT = FIELD_NAMES.index("enabled")
_EMPTY: tuple[str, ...] = ()


def date_words(moment: datetime) -> str:
    """A creation time as words the full-text index can match: ``2023 May 7 Sunday``.

    English names whatever the locale (``strftime`` would follow it, and the index would then
    depend on the machine that wrote it).
    """
    return f"{moment.year} {_MONTHS[moment.month - 1]} {moment.day} {_WEEKDAYS[moment.weekday()]}"


def to_row(record: MemoryRecord) -> list[object]:
    """The record's columns in FIELD_NAMES order, then its content hash (a hot path: every
    write goes through here, so conversions go by precomputed position)."""
    values = record.__dict__
    row: list[object] = [values[name] for name in FIELD_NAMES]
    for i in _JSON_AT:
        items = row[i]
        row[i] = json.dumps(list(items), ensure_ascii=False) if items else "[]"  # type: ignore[call-overload]
    for i in _TIME_AT:
        moment = row[i]
        if moment is not None:
            row[i] = format_time(moment)
    row[_ENABLED_AT] = int(bool(row[_ENABLED_AT]))
    row.append(content_hash(record.content))
    return row


def from_row(row: Sequence[Any]) -> MemoryRecord:
    """A record from a row in FIELD_NAMES order (the hot path of every read: kept lean)."""
    values = list(row[: len(FIELD_NAMES)])
    for i in _TIME_AT:
        if values[i] is not None:
            values[i] = datetime.fromisoformat(values[i])
    for i in _JSON_AT:
        values[i] = _EMPTY if values[i] == "[]" else tuple(json.loads(values[i]))
    values[_ENABLED_AT] = bool(values[_ENABLED_AT])
    # Rows were validated when written: fill the frozen dataclass without re-running __init__,
    # which costs more than everything above for a 27-field record.
    record = object.__new__(MemoryRecord)
    record.__dict__.update(zip(FIELD_NAMES, values, strict=True))
    return record


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


def filter_sql(flt: MemoryFilter) -> tuple[str, list[object]]:
    clauses: list[str] = []
    params: list[object] = []
    for column in ("user", "project", "type", "session_id", "topic_key", "content_hash"):
        value = getattr(flt, column)
        if value is not None:
            clauses.append(f"m.{column} = ?")
            params.append(value)
    for column, values, negate in (("type", flt.types, ""), ("type", flt.types_exclude, "NOT ")):
        if values:
            clauses.append(f"m.{column} {negate}IN ({', '.join('?' for _ in values)})")
            params.extend(values)
    for tag in flt.tags:
        clauses.append("m.seq IN (SELECT seq FROM memory_tags WHERE tag = ?)")
        params.append(tag)
    if flt.entity is not None:
        clauses.append("m.seq IN (SELECT seq FROM memory_entities WHERE entity_key = ?)")
        params.append(flt.entity.casefold())
    if flt.enabled_only:
        clauses.append("m.enabled = 1")
    as_of = format_time(flt.as_of)
    live = "(m.valid_until IS NULL OR m.valid_until > ?)"
    if not flt.include_forgotten and not flt.include_superseded:
        clauses.append(f"m.forget_reason IS NULL AND {live}")
        params.append(as_of)
    elif not flt.include_forgotten:
        clauses.append("m.forget_reason IS NULL")
    elif not flt.include_superseded:
        clauses.append(f"(m.forget_reason IS NOT NULL OR {live})")
        params.append(as_of)
    return (" AND ".join(clauses) or "1"), params
