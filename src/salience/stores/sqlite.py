"""The embedded default store: one SQLite file with WAL, FTS5 and derived lookup tables.

Several processes may use one file at once: writes take the write lock up front
(``BEGIN IMMEDIATE``) and wait up to the busy timeout for it, so a read-modify-write is never
lost and "database is locked" does not reach the user unless another process holds the lock
for longer than the timeout (then :class:`StoreBusyError` says so).
"""

from __future__ import annotations

import builtins
import json
import random
import sqlite3
import threading
import time
from collections.abc import Callable, Collection, Iterator, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any, TypeVar

from salience.clock import format_time
from salience.errors import (
    NotASalienceDatabaseError,
    SchemaTooNewError,
    StoreBusyError,
    StoreError,
    StoreReadOnlyError,
)
from salience.models import (
    FIELD_NAMES,
    LIST_FIELDS,
    TIME_FIELDS,
    AuditEntry,
    LayerMount,
    MemoryRecord,
    Session,
    Stats,
)
from salience.stores.base import MemoryFilter, RowChanges
from salience.stores.fts_terms import TermCounts
from salience.stores.migrations import MIGRATION_NAMES, MIGRATIONS, READABLE_WITHOUT
from salience.text import content_hash, query_terms

_SQLITE_MAGIC = b"SQLite format 3\x00"
_COLUMNS = ", ".join(f"m.{name}" for name in FIELD_NAMES)
_INSERT_COLUMNS = (*FIELD_NAMES, "content_hash")
_JSON_FIELDS = frozenset(LIST_FIELDS)
_TIME_FIELDS = frozenset(TIME_FIELDS)
_T = TypeVar("_T")
_INDEXED_FIELDS = ("content", "title", "tags", "entities", "created_at")
_TEXT_COLUMNS = "{content title tags entities}"


_MONTHS = (
    "January February March April May June July August September October November December"
).split()
_WEEKDAYS = "Monday Tuesday Wednesday Thursday Friday Saturday Sunday".split()


def date_words(moment: datetime) -> str:
    """A creation time as words the full-text index can match: ``2023 May 7 Sunday``.

    English names whatever the locale (``strftime`` would follow it, and the index would then
    depend on the machine that wrote it).
    """
    return f"{moment.year} {_MONTHS[moment.month - 1]} {moment.day} {_WEEKDAYS[moment.weekday()]}"


def _split_statements(script: str) -> list[str]:
    statements, buffer = [], ""
    for line in script.splitlines(keepends=True):
        buffer += line
        if sqlite3.complete_statement(buffer):
            statements.append(buffer.strip())
            buffer = ""
    if buffer.strip():
        statements.append(buffer.strip())
    return statements


_TIME_AT = tuple(i for i, name in enumerate(FIELD_NAMES) if name in _TIME_FIELDS)
_JSON_AT = tuple(i for i, name in enumerate(FIELD_NAMES) if name in _JSON_FIELDS)
_ENABLED_AT = FIELD_NAMES.index("enabled")
_EMPTY: tuple[str, ...] = ()


def _to_row(record: MemoryRecord) -> list[object]:
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


def _from_row(row: Sequence[Any]) -> MemoryRecord:
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


def _filter_sql(flt: MemoryFilter) -> tuple[str, list[object]]:
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


PAGE_SIZE = 2048


class SQLiteStore:
    """A salience store in one SQLite file (see the module docstring for concurrency)."""

    def __init__(
        self, path: str | Path, *, busy_timeout_ms: int = 10000, read_only: bool = False
    ) -> None:
        self._path = Path(path)
        self._read_only = read_only
        self._lock = threading.RLock()
        self._depth = 0
        self._vector_writes = 0
        self._owner = 0
        self._change_log = True  # a read-only store may predate it (see _setup_read_only)
        self._term_counts: TermCounts  # set once connected
        if read_only:
            _check_existing(self._path)
        else:
            _prepare_file(self._path)
        try:
            self._conn = sqlite3.connect(
                self._path.resolve().as_uri() + "?mode=ro" if read_only else str(self._path),
                isolation_level=None,
                timeout=busy_timeout_ms / 1000,
                check_same_thread=False,
                uri=read_only,
            )
        except sqlite3.Error as exc:
            raise self._translate(exc) from None
        self._term_counts = TermCounts(self._conn)
        try:
            if read_only:
                self._setup_read_only(busy_timeout_ms)
            else:
                self._setup(busy_timeout_ms)
        except BaseException:
            self._conn.close()
            raise

    def _setup_read_only(self, busy_timeout_ms: int) -> None:
        """Query-only, and the schema must be exactly this version's: nothing is migrated."""
        with self._errors():
            self._conn.execute(f"PRAGMA busy_timeout = {int(busy_timeout_ms)}")
            self._conn.execute("PRAGMA query_only = ON")
            applied = self._applied_migrations()
        unknown = sorted(set(applied) - set(MIGRATION_NAMES))
        if unknown:
            raise SchemaTooNewError(str(self._path), unknown)
        self._change_log = "0007_memory_changes" in applied
        if set(MIGRATION_NAMES) - set(applied) - READABLE_WITHOUT:
            raise StoreError(
                f"{self._path} was written by an older salience; open it once with this "
                "version (read-write) to upgrade it, then mount it again"
            )

    @property
    def read_only(self) -> bool:
        """Whether this store was opened for reading only (a mounted layer)."""
        return self._read_only

    def _setup(self, busy_timeout_ms: int) -> None:
        """Pragmas and migrations, retried while another process is creating the same file.

        SQLite does not call the busy handler for a journal-mode change, so two processes
        opening a new file at once can see SQLITE_BUSY here; back off and try again.
        """
        deadline = time.monotonic() + busy_timeout_ms / 1000
        delay = 0.005
        while True:
            try:
                with self._errors():
                    self._conn.execute(f"PRAGMA busy_timeout = {int(busy_timeout_ms)}")
                    self._conn.execute("PRAGMA foreign_keys = ON")
                    # Only a new, empty file takes this (an existing store keeps its size).
                    # Each write dirties a dozen pages (row, indexes, full-text segments, audit)
                    # and COMMIT copies each whole page to the WAL: 2 KiB pages measured +6 %
                    # writes/s over 4 KiB; a 384-d vector (1.5 KiB) still fits in one page.
                    self._conn.execute(f"PRAGMA page_size = {PAGE_SIZE}")
                    mode = self._conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]
                    if mode != "wal":
                        raise StoreReadOnlyError(str(self._path))
                    self._conn.execute("PRAGMA synchronous = NORMAL")
                    # Checkpoint less often than the default 1000 pages: fewer fsyncs and fewer
                    # rewrites of hot pages; measured +25 % write throughput (bench_store.py).
                    self._conn.execute("PRAGMA wal_autocheckpoint = 4000")
                    self._conn.execute("PRAGMA cache_size = -65536")  # up to 64 MiB, lazily
                    self._migrate()
                return
            except StoreBusyError:
                if time.monotonic() + delay > deadline:
                    raise
                time.sleep(delay * (1 + random.random()))
                delay = min(delay * 2, 0.2)

    # -- infrastructure -----------------------------------------------------------------------

    @property
    def location(self) -> str:
        """The database file's path."""
        return str(self._path)

    def _translate(self, exc: sqlite3.Error) -> StoreError:
        message = str(exc).lower()
        if "readonly" in message or "read-only" in message or "unable to open" in message:
            return StoreReadOnlyError(str(self._path))
        if "locked" in message or "busy" in message:
            return StoreBusyError(
                f"{self._path} stayed locked by another process past the busy timeout; "
                "try again or raise SALIENCE_BUSY_TIMEOUT_MS"
            )
        if "not a database" in message or "malformed" in message:
            return NotASalienceDatabaseError(str(self._path), str(exc))
        return StoreError(f"{self._path}: {exc}")

    def _errors(self) -> _Errors:
        """Translate SQLite's errors into salience's for the statements inside."""
        return _Errors(self)

    def transaction(self) -> _Transaction:
        """One atomic unit holding the write lock; nested calls join the outer one."""
        if self._read_only:
            raise StoreReadOnlyError(str(self._path))
        return _Transaction(self)

    def in_transaction(self) -> bool:
        """Whether the calling thread is inside :meth:`transaction`."""
        return self._depth > 0 and self._owner == threading.get_ident()

    def _applied_migrations(self) -> list[str]:
        """Names of the migrations applied; [] for an empty file (refuses a foreign one)."""
        tables = {
            row[0]
            for row in self._conn.execute("SELECT name FROM sqlite_master WHERE type='table'")
        }
        if "schema_migrations" not in tables:
            if tables:
                raise NotASalienceDatabaseError(
                    str(self._path), "it holds other tables and no salience schema"
                )
            if self._read_only:
                raise NotASalienceDatabaseError(str(self._path), "it holds no salience schema")
            return []
        return [str(r[0]) for r in self._conn.execute("SELECT name FROM schema_migrations")]

    def _migrate(self) -> None:
        with self.transaction():
            applied = self._applied_migrations()
            if not applied:
                self._conn.execute(
                    "CREATE TABLE IF NOT EXISTS schema_migrations "
                    "(name TEXT PRIMARY KEY, applied_at TEXT)"
                )
            unknown = sorted(set(applied) - set(MIGRATION_NAMES))
            if unknown:
                raise SchemaTooNewError(str(self._path), unknown)
            for name, script in MIGRATIONS:
                if name in applied:
                    continue
                for statement in _split_statements(script):
                    self._conn.execute(statement)
                self._conn.execute(
                    "INSERT INTO schema_migrations VALUES (?, datetime('now'))", (name,)
                )

    @property
    def schema(self) -> str:
        """The name of the newest migration applied."""
        return MIGRATION_NAMES[-1]

    def close(self) -> None:
        """Close the connection (idempotent)."""
        self._conn.close()

    # -- writes ---------------------------------------------------------------------------------

    def insert(self, record: MemoryRecord) -> None:
        """Add a record with its full-text row, tags and entities, atomically."""
        placeholders = ", ".join("?" for _ in _INSERT_COLUMNS)
        with self.transaction(), self._errors():
            cursor = self._conn.execute(
                f"INSERT INTO memories ({', '.join(_INSERT_COLUMNS)}) VALUES ({placeholders})",
                _to_row(record),
            )
            assert cursor.lastrowid is not None
            self._index(cursor.lastrowid, record)

    def replace(self, record: MemoryRecord) -> None:
        """Overwrite the record with ``record.id``; reindex only if indexed text changed."""
        assignments = ", ".join(f"{name} = ?" for name in _INSERT_COLUMNS)
        with self.transaction(), self._errors():
            old = self._conn.execute(
                "SELECT seq, content, title, tags, entities, created_at FROM memories WHERE id = ?",
                (record.id,),
            ).fetchone()
            if old is None:
                raise StoreError(f"cannot replace {record.id}: it is not stored")
            seq = old[0]
            row = _to_row(record)
            self._conn.execute(f"UPDATE memories SET {assignments} WHERE seq = ?", [*row, seq])
            new_indexed = tuple(row[FIELD_NAMES.index(name)] for name in _INDEXED_FIELDS)
            if tuple(old[1:]) != new_indexed:
                self._unindex(seq)
                self._index(seq, record)

    def _index(self, seq: int, record: MemoryRecord) -> None:
        self._conn.execute(
            "INSERT INTO memory_fts (rowid, content, title, tags, entities, dated) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            (
                seq,
                record.content,
                record.title or "",
                " ".join(record.tags),
                " ".join(record.entities),
                date_words(record.created_at),
            ),
        )
        if record.tags:  # (skipping empty statements saves a round trip on most writes)
            self._conn.executemany(
                "INSERT INTO memory_tags (seq, tag) VALUES (?, ?)", [(seq, t) for t in record.tags]
            )
        if record.entities:
            names = {entity.casefold(): entity for entity in reversed(record.entities)}
            self._conn.executemany(
                "INSERT INTO memory_entities (seq, entity_key, name) VALUES (?, ?, ?)",
                [(seq, key, name) for key, name in names.items()],
            )

    def _unindex(self, seq: int) -> None:
        self._conn.execute("DELETE FROM memory_fts WHERE rowid = ?", (seq,))
        self._conn.execute("DELETE FROM memory_tags WHERE seq = ?", (seq,))
        self._conn.execute("DELETE FROM memory_entities WHERE seq = ?", (seq,))

    def touch(self, memory_ids: builtins.list[str], now: datetime) -> None:
        """Count one access for each id, atomically (no read-modify-write in Python)."""
        if not memory_ids:
            return
        marks = ", ".join("?" for _ in memory_ids)
        with self.transaction(), self._errors():
            self._conn.execute(
                "UPDATE memories SET access_count = access_count + 1, last_accessed_at = ? "
                f"WHERE id IN ({marks})",
                [format_time(now), *memory_ids],
            )

    def open_session(self, user: str) -> Session | None:
        """The user's most recently active session that has not ended."""
        with self._lock, self._errors():
            row = self._conn.execute(
                "SELECT id, user, started_at, last_active_at, ended_at, summary_id FROM sessions "
                "WHERE user = ? AND ended_at IS NULL ORDER BY last_active_at DESC LIMIT 1",
                (user,),
            ).fetchone()
        if row is None:
            return None
        started, active = datetime.fromisoformat(row[2]), datetime.fromisoformat(row[3])
        ended = datetime.fromisoformat(row[4]) if row[4] else None
        return Session(row[0], row[1], started, active, ended, row[5])

    def save_session(self, session: Session) -> None:
        """Insert or overwrite a session."""
        values = (
            session.id,
            session.user,
            format_time(session.started_at),
            format_time(session.last_active_at),
            format_time(session.ended_at) if session.ended_at else None,
            session.summary_id,
        )
        with self.transaction(), self._errors():
            self._conn.execute("INSERT OR REPLACE INTO sessions VALUES (?, ?, ?, ?, ?, ?)", values)

    def touch_session(self, session_id: str, now: datetime) -> None:
        """Mark an open session as active now (no-op for unknown or ended sessions)."""
        with self.transaction(), self._errors():
            self._conn.execute(
                "UPDATE sessions SET last_active_at = ? WHERE id = ? AND ended_at IS NULL",
                (format_time(now), session_id),
            )

    def delete(self, memory_id: str) -> bool:
        """Remove the record and everything derived from it."""
        with self.transaction(), self._errors():
            row = self._conn.execute(
                "SELECT seq FROM memories WHERE id = ?", (memory_id,)
            ).fetchone()
            if row is None:
                return False
            self._unindex(row[0])
            self._conn.execute("DELETE FROM memories WHERE seq = ?", (row[0],))
            return True

    # -- reads ----------------------------------------------------------------------------------

    def _select(self, sql: str, params: Sequence[object]) -> list[MemoryRecord]:
        with self._lock, self._errors():
            return [_from_row(row) for row in self._conn.execute(sql, params)]

    def get(self, memory_id: str) -> MemoryRecord | None:
        """The record with this id, or None."""
        rows = self._select(f"SELECT {_COLUMNS} FROM memories m WHERE m.id = ?", (memory_id,))
        return rows[0] if rows else None

    def successors(self, memory_id: str) -> list[MemoryRecord]:
        """Records that name ``memory_id`` as their parent, oldest first."""
        return self._select(
            f"SELECT {_COLUMNS} FROM memories m WHERE m.parent_id = ? ORDER BY m.id", (memory_id,)
        )

    def list(self, flt: MemoryFilter, limit: int | None) -> builtins.list[MemoryRecord]:
        """Matching records, newest first (by creation time, then id)."""
        where, params = _filter_sql(flt)
        # With a selective lookup (hash, topic), sort its few rows; otherwise SQLite walks the
        # (user, created_at) index for the order and scans every row of the user (measured:
        # the duplicate check per write grew linearly with the store).
        order = "+m.created_at" if flt.content_hash or flt.topic_key else "m.created_at"
        sql = f"SELECT {_COLUMNS} FROM memories m WHERE {where} ORDER BY {order} DESC, m.id DESC"
        if limit is not None:
            sql += " LIMIT ?"
            params.append(limit)
        return self._select(sql, params)

    def search(
        self, query: str, flt: MemoryFilter, limit: int, *, dated: bool = False
    ) -> builtins.list[tuple[MemoryRecord, float]]:
        """BM25-ranked matches; the ranked FTS query runs first and the join comes after.

        ``dated`` also matches the query against each memory's creation date in words, and
        leaves out words found in half of all memories or more (and in 10,000 at least): BM25
        gives them no weight, and a year most memories were written in would make a search
        score every row (see :mod:`salience.stores.fts_terms`).
        """
        if limit <= 0:
            return []
        leave_out: set[str] = set()
        if dated:
            with self._lock, self._errors():
                leave_out = self._term_counts.weightless(query_terms(query))
        expression = fts_match_expression(query, dated=dated, leave_out=leave_out)
        if expression is None:
            return []
        where, params = _filter_sql(flt)
        sql = (
            f"SELECT {_COLUMNS}, -f.rank FROM ("
            " SELECT rowid, rank FROM memory_fts WHERE memory_fts MATCH ? ORDER BY rank LIMIT ?"
            f") AS f JOIN memories m ON m.seq = f.rowid WHERE {where} ORDER BY f.rank LIMIT ?"
        )
        candidates = max(limit * 4, 64)
        while True:
            with self._lock, self._errors():
                rows = self._conn.execute(sql, [expression, candidates, *params, limit]).fetchall()
                if len(rows) >= limit:
                    break
                # Filters may have removed candidates: widen until the index has no more.
                matched = self._conn.execute(
                    "SELECT count(*) FROM memory_fts WHERE memory_fts MATCH ?", (expression,)
                ).fetchone()[0]
            if candidates >= matched:
                break
            candidates = matched  # one more pass over every match settles it
        return [(_from_row(row), float(row[-1])) for row in rows]

    def substring(self, text: str, flt: MemoryFilter, limit: int) -> builtins.list[MemoryRecord]:
        """Memories whose content or title contains ``text`` (case-insensitive), newest first.

        For queries too short for the full-text index (ilab: under 3 characters).
        """
        where, params = _filter_sql(flt)
        needle = text.casefold()
        sql = (
            f"SELECT {_COLUMNS} FROM memories m WHERE {where} AND "
            "(instr(lower(m.content), ?) > 0 OR instr(lower(coalesce(m.title, '')), ?) > 0) "
            "ORDER BY m.created_at DESC, m.id DESC LIMIT ?"
        )
        return self._select(sql, [*params, needle, needle, limit])

    def get_many(self, memory_ids: Sequence[str], flt: MemoryFilter) -> builtins.list[MemoryRecord]:
        """The records among ``memory_ids`` that match ``flt``, in the order of the ids."""
        if not memory_ids:
            return []
        where, params = _filter_sql(flt)
        found: dict[str, MemoryRecord] = {}
        for start in range(0, len(memory_ids), 500):
            chunk = list(memory_ids[start : start + 500])
            marks = ", ".join("?" for _ in chunk)
            sql = f"SELECT {_COLUMNS} FROM memories m WHERE m.id IN ({marks}) AND {where}"
            for record in self._select(sql, [*chunk, *params]):
                found[record.id] = record
        return [found[i] for i in memory_ids if i in found]

    # -- vectors --------------------------------------------------------------------------------

    def set_vector(self, memory_id: str, vector: bytes) -> None:
        """Store (or replace) the memory's embedding; it gets a new, higher ``vseq``."""
        with self.transaction(), self._errors():
            self._conn.execute("DELETE FROM memory_vectors WHERE memory_id = ?", (memory_id,))
            self._conn.execute(
                "INSERT INTO memory_vectors (memory_id, vector) VALUES (?, ?)", (memory_id, vector)
            )
            self._vector_writes += 1

    def clear_vectors(self) -> None:
        """Drop every embedding (before re-embedding with another model)."""
        with self.transaction(), self._errors():
            self._conn.execute("DELETE FROM memory_vectors")
            self._vector_writes += 1

    def vector_state(self) -> tuple[int, int]:
        """(number of vectors, highest vseq): changes whenever any process writes vectors."""
        with self._lock, self._errors():
            row = self._conn.execute(
                "SELECT count(*), coalesce(max(vseq), 0) FROM memory_vectors"
            ).fetchone()
        return int(row[0]), int(row[1])

    def change_marker(self) -> tuple[int, int]:
        """Cheap to read; differs after any commit by another connection or a vector write."""
        with self._lock, self._errors():
            version = int(self._conn.execute("PRAGMA data_version").fetchone()[0])
        return version, self._vector_writes

    def _at_one_moment(self, read: Callable[[], _T]) -> _T:
        """Run several reads in one read transaction (or in the caller's open transaction)."""
        with self._lock, self._errors():
            if self._depth > 0:
                return read()
            self._conn.execute("BEGIN")
            try:
                return read()
            finally:
                self._conn.execute("COMMIT")

    def _counters(self) -> tuple[int, int]:
        last_seq = self._conn.execute("SELECT coalesce(max(seq), 0) FROM memories").fetchone()
        if not self._change_log:
            return int(last_seq[0]), 0
        last_change = self._conn.execute(
            "SELECT coalesce(max(cseq), 0) FROM memory_changes"
        ).fetchone()
        return int(last_seq[0]), int(last_change[0])

    def _numbered(
        self, where: str, params: Sequence[object]
    ) -> builtins.list[tuple[int, MemoryRecord]]:
        sql = f"SELECT m.seq, {_COLUMNS} FROM memories m WHERE {where} ORDER BY m.seq"
        return [(int(row[0]), _from_row(row[1:])) for row in self._conn.execute(sql, params)]

    def all_rows(self) -> RowChanges:
        """Every record with its row number (all users, forgotten too), read at one moment."""

        def read() -> RowChanges:
            return RowChanges(self._numbered("1", ()), [], *self._counters())

        return self._at_one_moment(read)

    def row_changes(self, after_seq: int, after_change: int) -> RowChanges | None:
        """Records added after ``after_seq`` or changed after ``after_change``, and rows deleted
        since, read at one moment; None without a change log reaching back that far."""

        def read() -> RowChanges | None:
            last_seq, last_change = self._counters()
            if not self._change_log:
                return None
            oldest = self._conn.execute("SELECT min(cseq) FROM memory_changes").fetchone()[0]
            if oldest is not None and oldest > after_change + 1:
                return None  # pruned past the reader
            changed = sorted(
                {
                    int(r[0])
                    for r in self._conn.execute(
                        "SELECT mseq FROM memory_changes WHERE cseq > ?", (after_change,)
                    )
                }
            )
            rows = self._numbered("m.seq > ?", (after_seq,))
            for start in range(0, len(changed), 500):
                chunk = [seq for seq in changed[start : start + 500] if seq <= after_seq]
                if chunk:
                    marks = ", ".join("?" for _ in chunk)
                    rows += self._numbered(f"m.seq IN ({marks})", chunk)
            present = {seq for seq, _ in rows}
            deleted = [seq for seq in changed if seq not in present]
            return RowChanges(rows, deleted, last_seq, last_change)

        return self._at_one_moment(read)

    def vector_rows(self, after: int) -> builtins.list[tuple[int, str, str | None, bytes]]:
        """(vseq, memory id, session id, vector) for vectors with ``vseq > after``, by vseq."""
        with self._lock, self._errors():
            rows = self._conn.execute(
                "SELECT v.vseq, v.memory_id, m.session_id, v.vector FROM memory_vectors v "
                "JOIN memories m ON m.id = v.memory_id WHERE v.vseq > ? ORDER BY v.vseq",
                (after,),
            ).fetchall()
        return [(int(r[0]), str(r[1]), r[2], bytes(r[3])) for r in rows]

    def without_vectors(self, limit: int) -> builtins.list[MemoryRecord]:
        """Up to ``limit`` records that have no embedding yet, in id order."""
        return self._select(
            f"SELECT {_COLUMNS} FROM memories m WHERE NOT EXISTS "
            "(SELECT 1 FROM memory_vectors v WHERE v.memory_id = m.id) ORDER BY m.id LIMIT ?",
            (limit,),
        )

    def count_without_vectors(self) -> int:
        """How many records have no embedding."""
        with self._lock, self._errors():
            row = self._conn.execute(
                "SELECT count(*) FROM memories m WHERE NOT EXISTS "
                "(SELECT 1 FROM memory_vectors v WHERE v.memory_id = m.id)"
            ).fetchone()
        return int(row[0])

    def importance_bases(self) -> dict[str, tuple[float, datetime]]:
        """Every stored decay base: memory id -> (importance, when it was set)."""
        with self._lock, self._errors():
            rows = self._conn.execute(
                "SELECT memory_id, importance, set_at FROM importance_base"
            ).fetchall()
        return {str(r[0]): (float(r[1]), datetime.fromisoformat(r[2])) for r in rows}

    def set_importance_base(self, memory_id: str, importance: float, set_at: datetime) -> None:
        """Record the importance a person or feedback set, and when."""
        with self.transaction(), self._errors():
            self._conn.execute(
                "INSERT OR REPLACE INTO importance_base (memory_id, importance, set_at) "
                "VALUES (?, ?, ?)",
                (memory_id, importance, format_time(set_at)),
            )

    def orphans(self, *, delete: bool) -> dict[str, int]:
        """Rows of derived tables whose memory is gone, by table (removed when ``delete``)."""
        checks = {
            "memory_tags": "seq NOT IN (SELECT seq FROM memories)",
            "memory_entities": "seq NOT IN (SELECT seq FROM memories)",
            "memory_fts": "rowid NOT IN (SELECT seq FROM memories)",
            "memory_vectors": "memory_id NOT IN (SELECT id FROM memories)",
            "importance_base": "memory_id NOT IN (SELECT id FROM memories)",
        }
        found: dict[str, int] = {}
        with self.transaction(), self._errors():
            for table, where in checks.items():
                count = self._conn.execute(f"SELECT count(*) FROM {table} WHERE {where}").fetchone()
                if count[0]:
                    found[table] = int(count[0])
                    if delete:
                        self._conn.execute(f"DELETE FROM {table} WHERE {where}")
                        if table == "memory_vectors":
                            self._vector_writes += 1
        return found

    def append_audit(self, entries: Sequence[AuditEntry]) -> None:
        """Append entries to the audit log (inside the caller's transaction, if any)."""
        rows = [
            (format_time(e.at), e.memory_id, e.action, e.actor, json.dumps(e.detail, default=str))
            for e in entries
        ]
        with self.transaction(), self._errors():
            self._conn.executemany(
                "INSERT INTO audit_log (at, memory_id, action, actor, detail) "
                "VALUES (?, ?, ?, ?, ?)",
                rows,
            )

    def audit_entries(self, memory_id: str | None, limit: int | None) -> builtins.list[AuditEntry]:
        """Audit entries, newest first; only one memory's with ``memory_id``."""
        sql = "SELECT seq, at, memory_id, action, actor, detail FROM audit_log"
        params: list[object] = []
        if memory_id is not None:
            sql += " WHERE memory_id = ?"
            params.append(memory_id)
        sql += " ORDER BY seq DESC"
        if limit is not None:
            sql += " LIMIT ?"
            params.append(limit)
        with self._lock, self._errors():
            rows = self._conn.execute(sql, params).fetchall()
        return [
            AuditEntry(datetime.fromisoformat(r[1]), r[2], r[3], r[4], json.loads(r[5]), int(r[0]))
            for r in rows
        ]

    def get_meta(self, key: str) -> str | None:
        """A value of the store's own settings table (e.g. the embedder identity)."""
        with self._lock, self._errors():
            row = self._conn.execute(
                "SELECT value FROM store_meta WHERE key = ?", (key,)
            ).fetchone()
        return None if row is None else str(row[0])

    def set_meta(self, key: str, value: str | None) -> None:
        """Set (or, with None, remove) a value of the store's settings table."""
        with self.transaction(), self._errors():
            if value is None:
                self._conn.execute("DELETE FROM store_meta WHERE key = ?", (key,))
            else:
                self._conn.execute(
                    "INSERT OR REPLACE INTO store_meta (key, value) VALUES (?, ?)", (key, value)
                )

    def layers(self) -> builtins.list[LayerMount]:
        """The read-only stores mounted beside this one, by name."""
        with self._lock, self._errors():
            rows = self._conn.execute(
                "SELECT name, kind, path, mounted_at FROM layers ORDER BY name"
            ).fetchall()
        return [LayerMount(r[0], r[1], r[2], datetime.fromisoformat(r[3])) for r in rows]

    def mount_layer(self, mount: LayerMount) -> None:
        """Record a mounted layer (its name and path must be new here)."""
        with self.transaction(), self._errors():
            self._conn.execute(
                "INSERT INTO layers (name, kind, path, mounted_at) VALUES (?, ?, ?, ?)",
                (mount.name, mount.kind, mount.path, format_time(mount.mounted_at)),
            )

    def unmount_layer(self, name: str) -> bool:
        """Forget a mounted layer; False if none has that name. Its file is untouched."""
        with self.transaction(), self._errors():
            cursor = self._conn.execute("DELETE FROM layers WHERE name = ?", (name,))
        return cursor.rowcount > 0

    def entity_counts(self, flt: MemoryFilter, limit: int | None) -> builtins.list[tuple[str, int]]:
        """Entities of the matching memories with how many mention each, most first."""
        where, params = _filter_sql(flt)
        sql = (
            "SELECT min(e.name), count(*) AS n FROM memory_entities e "
            f"JOIN memories m ON m.seq = e.seq WHERE {where} "
            "GROUP BY e.entity_key ORDER BY n DESC, e.entity_key"
        )
        if limit is not None:
            sql += " LIMIT ?"
            params.append(limit)
        with self._lock, self._errors():
            return [(str(name), int(n)) for name, n in self._conn.execute(sql, params)]

    def iter_all(self) -> Iterator[MemoryRecord]:
        """Every record in id order, read in one consistent snapshot."""
        with self._lock, self._errors():
            rows = self._conn.execute(f"SELECT {_COLUMNS} FROM memories m ORDER BY m.id").fetchall()
        return (_from_row(row) for row in rows)

    def stats(self, as_of: datetime) -> Stats:
        """Counts by status, type, user and project, and the file's size."""
        now = format_time(as_of)
        status_sql = (
            "SELECT CASE WHEN forget_reason IS NOT NULL THEN 'forgotten' "
            "WHEN valid_until IS NOT NULL AND valid_until <= ? THEN 'superseded' "
            "ELSE 'current' END AS s, count(*) FROM memories GROUP BY s"
        )
        current = "forget_reason IS NULL AND (valid_until IS NULL OR valid_until > ?)"
        with self._lock, self._errors():
            by_status = dict(self._conn.execute(status_sql, (now,)).fetchall())
            grouped = {
                column: dict(
                    self._conn.execute(
                        f"SELECT coalesce({column}, ''), count(*) FROM memories "
                        f"WHERE {current} GROUP BY 1 ORDER BY 2 DESC, 1",
                        (now,),
                    ).fetchall()
                )
                for column in ("type", "user", "project")
            }
        size = sum(p.stat().st_size for p in (self._path, Path(f"{self._path}-wal")) if p.exists())
        return Stats(
            path=str(self._path),
            schema=self.schema,
            total=sum(by_status.values()),
            by_status={k: by_status.get(k, 0) for k in ("current", "superseded", "forgotten")},
            by_type=grouped["type"],
            by_user=grouped["user"],
            by_project={k: v for k, v in grouped["project"].items() if k},
            size_bytes=size,
        )


class _Errors:
    """``with store._errors():`` — SQLite errors out as :class:`StoreError` subclasses.

    Classes, not ``@contextmanager`` generators: a write enters a dozen of these, and a
    generator-based manager costs several times more (measured in bench_store.py).
    """

    __slots__ = ("_store",)

    def __init__(self, store: SQLiteStore) -> None:
        self._store = store

    def __enter__(self) -> None:
        return None

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: object
    ) -> None:
        if isinstance(exc, sqlite3.Error):
            raise self._store._translate(exc) from None


class _Transaction:
    """``with store.transaction():`` — BEGIN IMMEDIATE ... COMMIT (ROLLBACK on an error);
    the thread holds the store's lock throughout, and nested use joins the outer unit."""

    __slots__ = ("_store",)

    def __init__(self, store: SQLiteStore) -> None:
        self._store = store

    def __enter__(self) -> None:
        store = self._store
        store._lock.acquire()
        if store._depth:
            store._depth += 1
            return
        try:
            store._conn.execute("BEGIN IMMEDIATE")
        except sqlite3.Error as exc:
            store._lock.release()
            raise store._translate(exc) from None
        except BaseException:
            store._lock.release()
            raise
        store._depth = 1
        store._owner = threading.get_ident()

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: object
    ) -> None:
        store = self._store
        try:
            if store._depth > 1:
                store._depth -= 1
                return
            store._depth = 0
            conn = store._conn
            if kind is not None:
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
                return
            try:
                conn.execute("COMMIT")
            except BaseException as failure:
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
                if isinstance(failure, sqlite3.Error):
                    raise store._translate(failure) from None
                raise
        finally:
            store._lock.release()


def _check_existing(path: Path) -> None:
    """A store opened read-only must already exist and be an SQLite file."""
    if not path.is_file():
        raise StoreError(f"no salience store at {path}")
    _check_magic(path)


def _check_magic(path: Path) -> None:
    if path.stat().st_size > 0:
        with path.open("rb") as handle:
            if handle.read(16) != _SQLITE_MAGIC:
                raise NotASalienceDatabaseError(str(path), "not an SQLite file")


def _prepare_file(path: Path) -> None:
    """Create the home directory; refuse a file that is not SQLite before SQLite touches it."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError:
        raise StoreReadOnlyError(str(path.parent)) from None
    if path.is_dir():
        raise NotASalienceDatabaseError(str(path), "it is a directory")
    if path.exists():
        _check_magic(path)
