"""How a memory record becomes a row and back, and a filter becomes SQL, for every backend.

Rows keep times as canonical ISO text (``2026-04-20T00:00:00.000000Z``, which sorts like the
time) and lists as JSON text, in SQLite and PostgreSQL alike, so that both stores compare,
sort and return exactly the same values. The hot paths of every write and read: conversions
go by precomputed position.
"""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any

from salience.clock import format_time
from salience.models import FIELD_NAMES, LIST_FIELDS, TIME_FIELDS, MemoryRecord
from salience.stores.base import MemoryFilter, StagedRow
from salience.stores.filters import Passing
from salience.stores.reads import replica_read
from salience.text import content_hash

if TYPE_CHECKING:
    from salience.models import ApiKey, AuditEntry, Job, Session

COLUMNS = ", ".join(f"m.{name}" for name in FIELD_NAMES)
INSERT_COLUMNS = (*FIELD_NAMES, "content_hash")
INDEXED_FIELDS = ("content", "title", "tags", "entities", "created_at")
_TIME_AT = tuple(i for i, name in enumerate(FIELD_NAMES) if name in frozenset(TIME_FIELDS))
_JSON_AT = tuple(i for i, name in enumerate(FIELD_NAMES) if name in frozenset(LIST_FIELDS))
_ENABLED_AT = FIELD_NAMES.index("enabled")
_EMPTY: tuple[str, ...] = ()


def date_words(moment: datetime) -> str:
    """A creation time as words the full-text index can match: ``2023 May 7 Sunday``.

    English names whatever the locale (``strftime`` would follow it, and the index would then
    depend on the machine that wrote it).
    """
    from salience.text_dates import day_words  # (its patterns: not a briefing's)

    return day_words(moment.date())


def dated_text(record: MemoryRecord) -> str:
    """What the index's date column holds for a record: its creation date in words, then the
    dates its content speaks of ("yesterday", "last Friday"), resolved against it."""
    from salience.text_dates import resolve

    return " ".join((date_words(record.created_at), *resolve(record.content, record.created_at)))


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


def stage(record: MemoryRecord) -> StagedRow:
    """The record's row and index text, for :meth:`~salience.stores.base.Store.insert_many`."""
    return StagedRow(record, to_row(record), dated_text(record))


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


def filter_sql(flt: MemoryFilter, mark: str = "?") -> tuple[str, list[object]]:
    """A WHERE clause over ``memories m`` for ``flt`` and its parameters (``mark`` is the
    driver's placeholder: ``?`` for sqlite3, ``%s`` for psycopg)."""
    clauses: list[str] = []
    params: list[object] = []
    if flt.user is not None:  # (a user, and the spaces they read)
        owners = (flt.user, *flt.spaces)
        test = f"= {mark}" if len(owners) == 1 else f"IN ({', '.join(mark for _ in owners)})"
        clauses.append(f"m.user {test}")
        params.extend(owners)
    for column in ("agent", "project", "type", "session_id", "topic_key", "content_hash"):
        value = getattr(flt, column)
        if value is not None:
            clauses.append(f"m.{column} = {mark}")
            params.append(value)
    for column, values, negate in (("type", flt.types, ""), ("type", flt.types_exclude, "NOT ")):
        if values:
            clauses.append(f"m.{column} {negate}IN ({', '.join(mark for _ in values)})")
            params.extend(values)
    for tag in flt.tags:
        clauses.append(f"m.seq IN (SELECT seq FROM memory_tags WHERE tag = {mark})")
        params.append(tag)
    if flt.entity is not None:
        clauses.append(f"m.seq IN (SELECT seq FROM memory_entities WHERE entity_key = {mark})")
        params.append(flt.entity.casefold())
    if flt.enabled_only:
        clauses.append("m.enabled = 1")
    if flt.depends_on is not None:  # (a JSON list of ids, and text: the caller checks each)
        clauses.append(f"(m.derived_from LIKE {mark} OR m.content LIKE {mark})")
        params.extend((f'%"{flt.depends_on}"%', f"%{flt.depends_on}%"))
    as_of = format_time(flt.as_of)
    live = f"(m.valid_until IS NULL OR m.valid_until > {mark})"
    if not flt.include_forgotten and not flt.include_superseded:
        clauses.append(f"m.forget_reason IS NULL AND {live}")
        params.append(as_of)
    elif not flt.include_forgotten:
        clauses.append("m.forget_reason IS NULL")
    elif not flt.include_superseded:
        clauses.append(f"(m.forget_reason IS NOT NULL OR {live})")
        params.append(as_of)
    return (" AND ".join(clauses) or "TRUE"), params


def session_of(row: Sequence[Any]) -> Session:
    """A session from (id, user, started_at, last_active_at, ended_at, summary_id)."""
    from salience.models.store_records import Session

    ended = datetime.fromisoformat(row[4]) if row[4] else None
    return Session(
        row[0],
        row[1],
        datetime.fromisoformat(row[2]),
        datetime.fromisoformat(row[3]),
        ended,
        row[5],
    )


def audit_row(entry: AuditEntry) -> tuple[object, ...]:
    """(at, memory_id, action, actor, detail, user) of an audit entry (detail as JSON)."""
    detail = json.dumps(entry.detail, default=str)
    return (format_time(entry.at), entry.memory_id, entry.action, entry.actor, detail, entry.user)


def audit_of(row: Sequence[Any]) -> AuditEntry:
    """An audit entry from (seq, at, memory_id, action, actor, detail, user)."""
    from salience.models.store_records import AuditEntry

    at = datetime.fromisoformat(row[1])
    return AuditEntry(at, row[2], row[3], row[4], json.loads(row[5]), int(row[0]), row[6])


def key_row(key: ApiKey) -> tuple[object, ...]:
    """An API key's record in the api_keys table's column order (its hash, never the key)."""
    revoked = None if key.revoked_at is None else format_time(key.revoked_at)
    return (
        key.id,
        key.secret_hash,
        key.user,
        int(key.read_only),
        int(key.admin),
        format_time(key.created_at),
        revoked,
        key.label,
        key.source,
        key.agent,
        None if key.spaces is None else json.dumps([list(pair) for pair in key.spaces]),
    )


def key_of(row: Sequence[Any]) -> ApiKey:
    """An API key record from a row in the api_keys table's column order."""
    from salience.models.store_records import ApiKey

    revoked = datetime.fromisoformat(row[6]) if row[6] else None
    created = datetime.fromisoformat(row[5])
    narrowed = None if row[10] is None else tuple((s, r) for s, r in json.loads(row[10]))
    return ApiKey(
        row[0],
        row[1],
        row[2],
        bool(row[3]),
        bool(row[4]),
        created,
        revoked,
        row[7],
        row[8],
        row[9],
        narrowed,
    )


JOB_COLUMNS = (
    "id, user, kind, state, created_at, updated_at, done, total, finished_at, result, error, owner"
)
"""The jobs table's columns in :func:`job_row`'s order (PostgreSQL quotes ``user``)."""


def job_row(job: Job) -> tuple[object, ...]:
    """A job in the jobs table's column order (its result and error as JSON)."""
    return (
        job.id,
        job.user,
        job.kind,
        job.state.value,
        format_time(job.created_at),
        format_time(job.updated_at),
        job.done,
        job.total,
        None if job.finished_at is None else format_time(job.finished_at),
        None if job.result is None else json.dumps(job.result, sort_keys=True),
        None if job.error is None else json.dumps(job.error, sort_keys=True),
        job.owner,
    )


def job_of(row: Sequence[Any]) -> Job:
    """A job from a row in :data:`JOB_COLUMNS` order."""
    from salience.models.store_records import Job, JobState

    return Job(
        id=row[0],
        user=row[1],
        kind=row[2],
        state=JobState(row[3]),
        created_at=datetime.fromisoformat(row[4]),
        updated_at=datetime.fromisoformat(row[5]),
        done=int(row[6]),
        total=int(row[7]),
        finished_at=None if row[8] is None else datetime.fromisoformat(row[8]),
        result=None if row[9] is None else json.loads(row[9]),
        error=None if row[10] is None else json.loads(row[10]),
        owner=row[11],
    )


class RowReads(ABC):
    """Full-text search and reads by id, as records or as (row number, id) alone: both stores
    supply the SQL (:meth:`_fts`, :meth:`_wanted`, selecting ``select``'s columns)."""

    @abstractmethod
    def _fts(
        self,
        select: str,
        query: str,
        flt: MemoryFilter,
        limit: int,
        dated: bool,
        passing: Passing | None = None,
    ) -> list[Any]:
        """``select``'s columns and the bm25 score (last) of the best full-text matches
        (``passing``: see :meth:`search_rows`)."""

    @abstractmethod
    def _wanted(self, select: str, memory_ids: Sequence[str], flt: MemoryFilter) -> list[Any]:
        """``select``'s columns of the memories among ``memory_ids`` that match ``flt``."""

    @replica_read
    def search(
        self, query: str, flt: MemoryFilter, limit: int, *, dated: bool = False
    ) -> list[tuple[MemoryRecord, float]]:
        """BM25-ranked matches, best first, with their scores.

        ``dated`` also matches the query against each memory's creation date in words, and
        leaves out words found in half of all memories or more (and in 10,000 at least): BM25
        gives them no weight, and a year most memories were written in would make a search
        score every row (see :mod:`salience.stores.fts_terms`).
        """
        rows = self._fts(COLUMNS, query, flt, limit, dated)
        return [(from_row(row), float(row[-1])) for row in rows]

    @replica_read
    def search_rows(
        self,
        query: str,
        flt: MemoryFilter,
        limit: int,
        *,
        dated: bool = False,
        passing: Passing | None = None,
    ) -> list[tuple[int, str, float]]:
        """:meth:`search` as (row number, id, bm25): no record is built. ``passing``: answers
        the filter for the rows found, where that saves a query (SQLite's copy of its index:
        the same answers)."""
        rows = self._fts("m.seq, m.id", query, flt, limit, dated, passing)
        return [(int(seq), str(memory_id), float(bm25)) for seq, memory_id, bm25 in rows]

    @replica_read
    def get_many(self, memory_ids: Sequence[str], flt: MemoryFilter) -> list[MemoryRecord]:
        """The records among ``memory_ids`` that match ``flt``, in the order of the ids."""
        found = {r.id: r for r in map(from_row, self._wanted(COLUMNS, memory_ids, flt))}
        return [found[i] for i in memory_ids if i in found]

    @replica_read
    def matching(self, memory_ids: Sequence[str], flt: MemoryFilter) -> list[tuple[int, str]]:
        """:meth:`get_many` as (row number, id): no record is built."""
        found = {str(i): int(seq) for seq, i in self._wanted("m.seq, m.id", memory_ids, flt)}
        return [(found[i], i) for i in memory_ids if i in found]

    @replica_read
    def texts(self, memory_ids: Sequence[str], flt: MemoryFilter) -> list[tuple[str, str]]:
        """:meth:`get_many` as (content, id): no record is built."""
        found = {str(i): str(c) for i, c in self._wanted("m.id, m.content", memory_ids, flt)}
        return [(found[i], i) for i in memory_ids if i in found]
