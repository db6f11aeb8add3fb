"""The record of recalls and briefings, and the feedback that followed them: rows and SQL
shared by both stores (``?`` placeholders; PostgreSQL's store turns them into ``%s``).

A **trace** is one recall (its query, profile, the ids returned with rank and score) or one
briefing (session, profile, tokens and budget, the ids kept with their section and the best
of those dropped with their reason). A **trace hit** is one memory of it. A **feedback** row
links a later echo, fizzle, use, update or supersede of a memory to the trace that surfaced
it. Every row names its user (``owner``), so isolation, retention and erasure are one
``WHERE`` each.
"""

from __future__ import annotations

import builtins
from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import replace
from datetime import datetime
from typing import TYPE_CHECKING, Any

from salience.clock import format_time
from salience.stores.reads import replica_read

if TYPE_CHECKING:
    from salience.models.traces import Feedback, Trace, TraceHit

RECALL = "recall"
BRIEFING = "briefing"


_TRACE = "id, owner, at, kind, profile, query, session_id, tokens, budget"
_HIT = "trace_id, memory_id, rank, score, reason, section"


class TraceRows(ABC):
    """The trace tables of a store; a store gives :meth:`_trace_rows`, :meth:`_trace_exec`,
    :meth:`_trace_execmany` (each with ``?`` placeholders) and ``transaction()``."""

    @abstractmethod
    def _trace_rows(self, sql: str, params: Sequence[object]) -> builtins.list[Any]:
        """Every row of a query."""

    @abstractmethod
    def _trace_exec(self, sql: str, params: Sequence[object]) -> int:
        """Run a statement inside the caller's transaction; the rows it touched."""

    @abstractmethod
    def _trace_execmany(self, sql: str, rows: Sequence[Sequence[object]]) -> None:
        """Run a statement once per row inside the caller's transaction."""

    @abstractmethod
    def transaction(self) -> Any:
        """The store's write transaction (its own, re-entrant)."""

    def mark_erased(self, memory_ids: Sequence[str]) -> None:
        """Remember that these memories were erased (inside the erasing transaction): a
        trace that surfaces one is never written afterwards, by any process."""
        self._trace_execmany(
            "INSERT INTO erased (memory_id) VALUES (?) ON CONFLICT DO NOTHING",
            [(memory_id,) for memory_id in memory_ids],
        )

    def ask_cancel(self, job_id: str, at: datetime) -> bool:
        """Ask a job that has not finished to stop, whichever process runs it (its heartbeat
        reads :meth:`cancel_asked`); False if it has finished."""
        with self.transaction():
            return bool(
                self._trace_exec(
                    "UPDATE jobs SET cancelled_at = ? WHERE id = ? AND finished_at IS NULL",
                    (format_time(at), job_id),
                )
            )

    def cancel_asked(self, job_id: str) -> bool:
        """Whether someone asked the job to stop (:meth:`ask_cancel`)."""
        rows = self._trace_rows("SELECT cancelled_at FROM jobs WHERE id = ?", (job_id,))
        return bool(rows) and rows[0][0] is not None

    def _erased(self, memory_ids: set[str]) -> set[str]:
        ids = sorted(memory_ids)
        found: set[str] = set()
        for start in range(0, len(ids), 500):
            part = ids[start : start + 500]
            marks = ", ".join("?" for _ in part)
            sql = f"SELECT memory_id FROM erased WHERE memory_id IN ({marks})"
            found.update(str(row[0]) for row in self._trace_rows(sql, part))
        return found

    def save_traces(self, traces: Sequence[Trace]) -> None:
        """Insert traces with their hits, in one transaction; a trace that surfaces an erased
        memory (:meth:`mark_erased`: queued in a process before the purge) is dropped."""
        if not traces:
            return
        with self.transaction():
            gone = self._erased({h.memory_id for t in traces for h in t.hits})
            traces = [t for t in traces if not any(h.memory_id in gone for h in t.hits)]
            self._trace_execmany(
                f"INSERT INTO traces ({_TRACE}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [
                    (
                        t.id,
                        t.user,
                        format_time(t.at),
                        t.kind,
                        t.profile,
                        t.query,
                        t.session_id,
                        t.tokens,
                        t.budget,
                    )
                    for t in traces
                ],
            )
            self._trace_execmany(
                f"INSERT INTO trace_hits ({_HIT}) VALUES (?, ?, ?, ?, ?, ?)",
                [
                    (t.id, h.memory_id, h.rank, h.score, h.reason, h.section)
                    for t in traces
                    for h in t.hits
                ],
            )

    @replica_read
    def traces(
        self,
        user: str | None,
        *,
        kind: str | None = None,
        since: datetime | None = None,
        session_id: str | None = None,
        limit: int | None = None,
    ) -> builtins.list[Trace]:
        """Traces newest first (of one user with ``user``), with their hits."""
        from salience.models.traces import TraceHit

        where, params = ["1 = 1"], []
        for column, value in (("owner", user), ("kind", kind), ("session_id", session_id)):
            if value is not None:
                where.append(f"{column} = ?")
                params.append(value)
        if since is not None:
            where.append("at >= ?")
            params.append(format_time(since))
        tail = "" if limit is None else f" LIMIT {int(limit)}"
        rows = self._trace_rows(
            f"SELECT {_TRACE} FROM traces WHERE {' AND '.join(where)} "
            f"ORDER BY at DESC, id DESC{tail}",
            params,
        )
        found = [_trace(row) for row in rows]
        hits: dict[str, builtins.list[TraceHit]] = {t.id: [] for t in found}
        for start in range(0, len(found), 500):
            chunk = [t.id for t in found[start : start + 500]]
            marks = ", ".join("?" for _ in chunk)
            for row in self._trace_rows(
                f"SELECT {_HIT} FROM trace_hits WHERE trace_id IN ({marks}) ORDER BY rank",
                chunk,
            ):
                hits[row[0]].append(TraceHit(row[1], int(row[2]), row[3], row[4], row[5]))
        return [replace(t, hits=tuple(hits[t.id])) for t in found]

    def traces_surfacing(
        self, user: str, memory_ids: Sequence[str], since: datetime
    ) -> dict[str, str]:
        """For each of ``memory_ids``, the newest trace of ``user`` since ``since`` that
        returned or kept it (one query)."""
        if not memory_ids:
            return {}
        marks = ", ".join("?" for _ in memory_ids)
        rows = self._trace_rows(
            "SELECT h.memory_id, t.id FROM traces t JOIN trace_hits h ON h.trace_id = t.id "
            f"WHERE h.memory_id IN ({marks}) AND h.reason IS NULL AND t.owner = ? "
            "AND t.at >= ? ORDER BY t.at, t.id",
            (*memory_ids, user, format_time(since)),
        )
        return {str(row[0]): str(row[1]) for row in rows}  # the newest last: it wins

    def save_feedback(self, items: Sequence[Feedback]) -> None:
        """Link what happened to memories to the traces that surfaced them."""
        if items:
            with self.transaction():
                self._trace_execmany(
                    "INSERT INTO trace_feedback (trace_id, memory_id, kind, at) "
                    "VALUES (?, ?, ?, ?)",
                    [(f.trace_id, f.memory_id, f.kind, format_time(f.at)) for f in items],
                )

    def feedback_of(self, trace_ids: Sequence[str]) -> builtins.list[Feedback]:
        """The feedback linked to these traces, oldest first."""
        from salience.models.traces import Feedback

        found: builtins.list[Feedback] = []
        ids = list(trace_ids)
        for start in range(0, len(ids), 500):
            chunk = ids[start : start + 500]
            marks = ", ".join("?" for _ in chunk)
            rows = self._trace_rows(
                "SELECT trace_id, memory_id, kind, at FROM trace_feedback "
                f"WHERE trace_id IN ({marks}) ORDER BY at, trace_id, memory_id",
                chunk,
            )
            found += [Feedback(r[0], r[1], r[2], datetime.fromisoformat(r[3])) for r in rows]
        return found

    def delete_traces(
        self,
        *,
        before: datetime | None = None,
        user: str | None = None,
        surfacing: Sequence[str] = (),
    ) -> int:
        """Delete traces (with their hits and feedback): older than ``before``, of ``user``,
        or that surfaced any of ``surfacing``; how many traces went."""
        where, params = [], []
        if before is not None:
            where.append("at < ?")
            params.append(format_time(before))
        if user is not None:
            where.append("owner = ?")
            params.append(user)
        ids = list(surfacing)
        if ids:
            marks = ", ".join("?" for _ in ids)
            where.append(f"id IN (SELECT trace_id FROM trace_hits WHERE memory_id IN ({marks}))")
            params += ids
        if not where:
            return 0
        with self.transaction():
            chosen = [
                str(row[0])
                for row in self._trace_rows(
                    f"SELECT id FROM traces WHERE {' AND '.join(where)}", params
                )
            ]
            for start in range(0, len(chosen), 500):
                chunk = chosen[start : start + 500]
                marks = ", ".join("?" for _ in chunk)
                for table, column in (
                    ("trace_feedback", "trace_id"),
                    ("trace_hits", "trace_id"),
                    ("traces", "id"),
                ):
                    self._trace_exec(f"DELETE FROM {table} WHERE {column} IN ({marks})", chunk)
        return len(chosen)


def _trace_row(t: Trace) -> tuple[object, ...]:
    when = format_time(t.at)
    return (t.id, t.user, when, t.kind, t.profile, t.query, t.session_id, t.tokens, t.budget)


def _trace(row: Sequence[Any]) -> Trace:
    from salience.models.traces import Trace

    return Trace(
        str(row[0]),
        str(row[1]),
        datetime.fromisoformat(row[2]),
        str(row[3]),
        str(row[4]),
        row[5],
        row[6],
        None if row[7] is None else int(row[7]),
        None if row[8] is None else int(row[8]),
    )


TRACES = """
CREATE TABLE traces (
    id TEXT PRIMARY KEY,
    owner TEXT NOT NULL,
    at TEXT NOT NULL,
    kind TEXT NOT NULL,
    profile TEXT NOT NULL,
    query TEXT,
    session_id TEXT,
    tokens INTEGER,
    budget INTEGER
);
CREATE INDEX traces_by_owner ON traces (owner, at);
CREATE TABLE trace_hits (
    trace_id TEXT NOT NULL,
    memory_id TEXT NOT NULL,
    rank INTEGER NOT NULL,
    score DOUBLE PRECISION,
    reason TEXT,
    section TEXT,
    PRIMARY KEY (trace_id, memory_id)
);
CREATE INDEX trace_hits_by_memory ON trace_hits (memory_id);
CREATE TABLE trace_feedback (
    trace_id TEXT NOT NULL,
    memory_id TEXT NOT NULL,
    kind TEXT NOT NULL,
    at TEXT NOT NULL
);
CREATE INDEX trace_feedback_by_trace ON trace_feedback (trace_id);
"""
"""Migration ``0012_traces``, the same on both stores (``owner``: ``user`` is a keyword in
PostgreSQL)."""


ERASED = """
CREATE TABLE erased (memory_id TEXT PRIMARY KEY);
"""
"""The ids of purged and erased memories (ids only, never text): a trace another process
queued before the purge is not written once its memory is gone (:meth:`TraceRows.save_traces`)."""
JOB_CANCEL = """
ALTER TABLE jobs ADD COLUMN cancelled_at TEXT;
"""
"""When a job was asked to stop (``DELETE /v1/jobs/{id}``, ``salience jobs cancel``): written
by any process of the store, read by the one that runs the job at its heartbeat."""
