"""The narrow contract every store implements; the engine talks to nothing else."""

from __future__ import annotations

import builtins
from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Protocol

from salience.models import MemoryRecord
from salience.models.reading import ReadReplica
from salience.stores.filters import MemoryFilter, Passing
from salience.stores.indexes import Indexes

if TYPE_CHECKING:
    from salience.models import (
        ApiKey,
        AuditEntry,
        Feedback,
        Grant,
        Job,
        LayerMount,
        Session,
        Space,
        Stats,
        Trace,
        UpdateLink,
    )

__all__ = [  # (MemoryFilter is at home in salience.stores.filters, and named here too)
    "COLUMNS_KEY",
    "ERASED_RESULT",
    "NOW_ON",
    "PAGE",
    "MemoryFilter",
    "RowChanges",
    "StagedRow",
    "Store",
]

PAGE = 1000
"""Rows read at a time by reads that go through a whole store (iter_all, copies, checks)."""

COLUMNS_KEY = "columns_key"
"""The meta value naming this copy of a store for the columns saved beside it
(:mod:`salience.briefing.persisted`); never copied to another store."""


ERASED_RESULT = '{"erased": "this result named a memory that was purged since: it is gone with it"}'
"""A job's result once a memory it named was purged (:meth:`Store.scrub_job_results`)."""

NOW_ON = 2**62
"""Row and change numbers above any a store reaches: ``row_changes(NOW_ON, NOW_ON)`` reads
only where the store's counters stand (to ask later what was written since)."""


@dataclass(frozen=True)
class RowChanges:
    """Rows of a store with their row numbers, and where the store's counters stood."""

    rows: list[tuple[int, MemoryRecord]]  # (row number, record): added, or changed
    deleted: list[int]  # row numbers gone (a row number may be deleted, then reused)
    last_seq: int  # the highest row number
    last_change: int  # the highest change number


@dataclass(frozen=True, slots=True)
class StagedRow:
    """A new record with its row (``to_row``) and its index text (``dated_text``), computed
    before a write takes the lock (:func:`salience.stores.rows.stage`), so that the lock is
    held to write, not to convert."""

    record: MemoryRecord
    values: builtins.list[object]
    dated: str


class Store(Indexes, Protocol):
    """Persistence of memory records, their full-text index and their derived tables.

    Writes are atomic per call; :meth:`transaction` groups several calls into one atomic unit
    that also excludes other writers (read-modify-write is safe inside it).
    """

    @property
    def location(self) -> str:
        """Where the data lives (a path or a URL without credentials)."""
        ...

    @property
    def read_only(self) -> bool:
        """Whether this store was opened for reading only (a mounted layer)."""
        ...

    def transaction(self) -> AbstractContextManager[None]:
        """Group writes atomically; nested use joins the outer transaction."""
        ...

    def in_transaction(self) -> bool:
        """Whether the calling thread is inside :meth:`transaction`."""
        ...

    def read_replica(self) -> ReadReplica | None:
        """The store's read replica, if it has one."""
        ...

    def route_reads(self) -> AbstractContextManager[None]:
        """Inside, a person's reads (the methods marked ``replica_read``) may go to a read
        replica, if the store has one (see :mod:`salience.stores.postgres.replica`)."""
        ...

    def writer_busy(self) -> bool:
        """Whether another thread of this process is inside :meth:`transaction` now: a write
        begun now would wait for it."""
        ...

    def insert(self, record: MemoryRecord) -> None:
        """Add a new record (its id must not exist yet)."""
        ...

    def insert_many(self, rows: Sequence[StagedRow]) -> None:
        """Add new records at once, in order, atomically (none of their ids may exist)."""
        ...

    def replace(self, record: MemoryRecord) -> None:
        """Overwrite the stored record that has ``record.id``."""
        ...

    def get(self, memory_id: str) -> MemoryRecord | None:
        """The record with this id, or None."""
        ...

    def successors(self, memory_id: str) -> list[MemoryRecord]:
        """Records whose ``parent_id`` is ``memory_id``, oldest first."""
        ...

    def list(self, flt: MemoryFilter, limit: int | None, offset: int = 0) -> list[MemoryRecord]:
        """Records matching ``flt``, newest first, the first ``offset`` skipped."""
        ...

    def search(
        self, query: str, flt: MemoryFilter, limit: int, *, dated: bool = False
    ) -> builtins.list[tuple[MemoryRecord, float]]:
        """Full-text matches of a natural-language query, best first, with relevance > 0.

        ``dated`` also matches the query against each memory's creation date in words.
        """
        ...

    def search_rows(
        self,
        query: str,
        flt: MemoryFilter,
        limit: int,
        *,
        dated: bool = False,
        passing: Passing | None = None,
    ) -> builtins.list[tuple[int, str, float]]:
        """:meth:`search` as (row number, id, bm25), best first: no record is built.
        ``passing``: may answer the filter instead of a query (the same answers)."""
        ...

    def substring(self, text: str, flt: MemoryFilter, limit: int) -> builtins.list[MemoryRecord]:
        """Memories whose content or title contains ``text`` (case-insensitive), newest first."""
        ...

    def get_many(self, memory_ids: Sequence[str], flt: MemoryFilter) -> builtins.list[MemoryRecord]:
        """The records among ``memory_ids`` that match ``flt``, in the order of the ids."""
        ...

    def matching(
        self, memory_ids: Sequence[str], flt: MemoryFilter
    ) -> builtins.list[tuple[int, str]]:
        """(row number, id) of the memories among ``memory_ids`` that match ``flt``, in the
        order of the ids: :meth:`get_many` without building records."""
        ...

    def texts(self, memory_ids: Sequence[str], flt: MemoryFilter) -> builtins.list[tuple[str, str]]:
        """(content, id) of the memories among ``memory_ids`` that match ``flt``, in the
        order of the ids: :meth:`get_many` for a reader of the text alone."""
        ...

    def count_rows(self) -> int:
        """How many records the store holds (all users, forgotten and superseded too)."""
        ...

    def all_rows(self) -> RowChanges:
        """Every record with its row number (all users, forgotten too), read at one moment."""
        ...

    def row_changes(self, after_seq: int, after_change: int) -> RowChanges | None:
        """Records added after row ``after_seq`` or changed after change ``after_change``, and
        rows deleted since, read at one moment; None when the store cannot say (no change
        log, or it no longer reaches back that far): read :meth:`all_rows` instead."""
        ...

    def importance_bases(self) -> dict[str, tuple[float, datetime]]:
        """Every stored decay base: memory id -> (importance, when it was set)."""
        ...

    def set_importance_base(self, memory_id: str, importance: float, set_at: datetime) -> None:
        """Record the importance a person or feedback set, and when."""
        ...

    def orphans(self, *, delete: bool) -> dict[str, int]:
        """Rows of derived tables whose memory is gone, by table (removed when ``delete``)."""
        ...

    def append_audit(self, entries: Sequence[AuditEntry]) -> None:
        """Append entries to the audit log (inside the caller's transaction, if any)."""
        ...

    def audit_entries(
        self, memory_id: str | None, limit: int | None, user: str | None = None
    ) -> builtins.list[AuditEntry]:
        """Audit entries, newest first; only one memory's with ``memory_id``, only one user's
        with ``user``."""
        ...

    def save_key(self, key: ApiKey) -> None:
        """Insert or overwrite an API key's record (its hash, never the key)."""
        ...

    def api_keys(self) -> builtins.list[ApiKey]:
        """Every API key record, revoked ones too, oldest first."""
        ...

    def api_key(self, key_id: str) -> ApiKey | None:
        """The API key record with this public id, or None."""
        ...

    def save_job(self, job: Job) -> None:
        """Insert or overwrite a job (its progress, heartbeat or outcome)."""
        ...

    def job(self, job_id: str) -> Job | None:
        """The job with this id, or None."""
        ...

    def jobs(self, user: str | None, limit: int) -> builtins.list[Job]:
        """The newest jobs first, of one user with ``user``, at most ``limit``."""
        ...

    def scrub_job_results(self, memory_ids: Sequence[str]) -> int:
        """Replace the result of every job that names one of ``memory_ids`` (a consolidation's
        plan quotes its members) with :data:`ERASED_RESULT`, leaving no copy of the old one in
        the files (with :meth:`scrub`); how many."""
        ...

    def delete_jobs(self, finished_before: datetime) -> int:
        """Forget the jobs that finished before ``finished_before``; how many."""
        ...

    def ask_cancel(self, job_id: str, at: datetime) -> bool:
        """Ask an unfinished job to stop, whichever process runs it (False: it finished)."""
        ...

    def cancel_asked(self, job_id: str) -> bool:
        """Whether someone asked the job to stop (:meth:`ask_cancel`)."""
        ...

    def get_meta(self, key: str) -> str | None:
        """A value of the store's own settings (e.g. the embedder identity)."""
        ...

    def all_meta(self) -> dict[str, str]:
        """Every value of the store's own settings."""
        ...

    def set_meta(self, key: str, value: str | None) -> None:
        """Set, or with None remove, a value of the store's own settings."""
        ...

    def touch(self, memory_ids: builtins.list[str], now: datetime) -> None:
        """Count one access for each id: ``access_count + 1``, ``last_accessed_at = now``."""
        ...

    def open_session(self, user: str) -> Session | None:
        """The user's newest session that has not ended, if any."""
        ...

    def save_session(self, session: Session) -> None:
        """Insert or overwrite a session."""
        ...

    def sessions(self) -> builtins.list[Session]:
        """Every session, ended ones too, oldest first."""
        ...

    def touch_session(self, session_id: str, now: datetime) -> None:
        """Mark an open session as active now (no-op for unknown or ended sessions)."""
        ...

    def delete(self, memory_id: str) -> bool:
        """Remove a record for good; False if it did not exist."""
        ...

    # Spaces and their grants: see salience.stores.spaces.SpaceRows.
    def add_space(self, space: Space) -> bool: ...
    def space(self, name: str) -> Space | None: ...
    def spaces(self) -> builtins.list[Space]: ...
    def set_keep_contributions(self, name: str, keep: bool) -> bool: ...
    def drop_space(self, name: str) -> bool: ...
    def set_grant(self, grant: Grant) -> None: ...
    def drop_grant(self, space: str, user: str) -> bool: ...
    def grants(
        self, *, space: str | None = None, user: str | None = None
    ) -> builtins.list[Grant]: ...
    def drop_grants_of(self, user: str) -> int: ...
    def authored(self, author: str) -> builtins.list[tuple[str, str]]: ...

    # The record of recalls and briefings: see salience.stores.traces.TraceRows.
    def save_update_links(self, links: Sequence[UpdateLink]) -> None: ...
    def update_links(
        self, user: str | None, states: Sequence[str], memory_ids: Sequence[str] = ()
    ) -> builtins.list[UpdateLink]: ...
    def decide_update_link(self, new_id: str, old_id: str, state: str, at: datetime) -> bool: ...
    def save_traces(self, traces: Sequence[Trace]) -> None: ...
    def mark_erased(self, memory_ids: Sequence[str]) -> None: ...
    def traces(
        self,
        user: str | None,
        *,
        kind: str | None = None,
        since: datetime | None = None,
        session_id: str | None = None,
        limit: int | None = None,
    ) -> builtins.list[Trace]: ...
    def traces_surfacing(
        self, user: str, memory_ids: Sequence[str], since: datetime
    ) -> dict[str, str]: ...
    def save_feedback(self, items: Sequence[Feedback]) -> None: ...
    def feedback_of(self, trace_ids: Sequence[str]) -> builtins.list[Feedback]: ...
    def delete_traces(
        self,
        *,
        before: datetime | None = None,
        user: str | None = None,
        surfacing: Sequence[str] = (),
    ) -> int: ...

    def erase_user(self, user: str) -> dict[str, int]:
        """Delete everything ``user`` ever stored: memories of every status with their index
        rows and vectors, sessions, audit entries, jobs; what went, counted by table."""
        ...

    def scrub(self, *, again: bool = False) -> dict[str, int]:
        """Leave no copy of deleted rows' text or vectors in the store's files (SQLite: merge
        the full-text index, truncate the WAL; PostgreSQL: VACUUM); what was done, counted."""
        ...

    def layers(self) -> builtins.list[LayerMount]:
        """The read-only stores mounted beside this one, by name."""
        ...

    def mount_layer(self, mount: LayerMount) -> None:
        """Record a mounted layer (its name and path must be new here)."""
        ...

    def unmount_layer(self, name: str) -> bool:
        """Forget a mounted layer; False if none has that name."""
        ...

    def entity_counts(self, flt: MemoryFilter, limit: int | None) -> builtins.list[tuple[str, int]]:
        """Entities of the matching memories with how many mention each, most first."""
        ...

    def iter_all(self, flt: MemoryFilter | None = None) -> Iterator[MemoryRecord]:
        """Every record (only those matching ``flt``, if given), in id order, read a page of
        :data:`PAGE` at a time (memory stays bounded at a million records); each page is read
        at one moment, so a record written or deleted while the iteration runs may be seen
        or not."""
        ...

    def audit_page(self, after: int, limit: int) -> builtins.list[AuditEntry]:
        """The first ``limit`` audit entries numbered above ``after``, oldest first."""
        ...

    def created_per_day(self, since: datetime, user: str | None = None) -> dict[str, int]:
        """How many memories (every status) were created on each UTC day from ``since`` on:
        ``{"2026-04-20": 3, ...}``, days without one left out (one ``GROUP BY``)."""
        ...

    def stats(self, as_of: datetime, user: str | None = None) -> Stats:
        """Counts by status, type, user and project (of one user's memories with ``user``)."""
        ...

    def close(self) -> None:
        """Release the connection."""
        ...
