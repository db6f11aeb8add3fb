"""The jobs table of a SQLite store (long work's progress, heartbeat and outcome), and the
statements the record of recalls and briefings runs (:mod:`salience.stores.traces`)."""

from __future__ import annotations

import builtins
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from salience.clock import format_time
from salience.models import Job
from salience.stores.base import ERASED_RESULT
from salience.stores.rows import JOB_COLUMNS, job_of, job_row
from salience.stores.sqlite.erasing import ErasingRows
from salience.stores.traces import TraceRows


class JobRows(ErasingRows, TraceRows):
    """Jobs and the record beside the memory rows (see :class:`salience.models.Job`)."""

    def _trace_rows(self, sql: str, params: Sequence[object]) -> builtins.list[Any]:
        with self._errors():
            return self._conn.execute(sql, params).fetchall()

    def _trace_exec(self, sql: str, params: Sequence[object]) -> int:
        with self._errors():
            return int(self._conn.execute(sql, params).rowcount)

    def delete_traces(
        self,
        *,
        before: datetime | None = None,
        user: str | None = None,
        surfacing: Sequence[str] = (),
    ) -> int:
        """Delete traces (see :class:`TraceRows`), zeroing the pages they held: a query may
        quote a memory being erased."""
        with self.transaction(), self._zeroing():
            return super().delete_traces(before=before, user=user, surfacing=surfacing)

    def _trace_execmany(self, sql: str, rows: Sequence[Sequence[object]]) -> None:
        if rows:
            with self._errors():
                self._conn.executemany(sql, rows)

    def save_job(self, job: Job) -> None:
        """Insert or overwrite a job (a cancel asked meanwhile stays asked)."""
        marks = ", ".join("?" for _ in job_row(job))
        kept = ", ".join(f"{c} = excluded.{c}" for c in JOB_COLUMNS.split(", ")[3:])
        with self.transaction(), self._errors():
            self._conn.execute(
                f"INSERT INTO jobs ({JOB_COLUMNS}) VALUES ({marks}) "
                f"ON CONFLICT (id) DO UPDATE SET {kept}",
                job_row(job),
            )

    def job(self, job_id: str) -> Job | None:
        """The job with this id, or None."""
        with self._errors():
            row = self._conn.execute(
                f"SELECT {JOB_COLUMNS} FROM jobs WHERE id = ?", (job_id,)
            ).fetchone()
        return None if row is None else job_of(row)

    def jobs(self, user: str | None, limit: int) -> builtins.list[Job]:
        """The newest jobs first, of one user with ``user``, at most ``limit``."""
        where, params = ("user = ?", [user]) if user is not None else ("1", [])
        with self._errors():
            rows = self._conn.execute(
                f"SELECT {JOB_COLUMNS} FROM jobs WHERE {where} "
                "ORDER BY created_at DESC, id DESC LIMIT ?",
                [*params, limit],
            ).fetchall()
        return [job_of(row) for row in rows]

    def scrub_job_results(self, memory_ids: Sequence[str]) -> int:
        """Replace the result of every job naming one of ``memory_ids`` (see the protocol),
        zeroing the pages the old results held."""
        changed = 0
        with self.transaction(), self._errors(), self._zeroing():
            for start in range(0, len(memory_ids), 400):
                part = memory_ids[start : start + 400]
                names = " OR ".join("result LIKE ?" for _ in part)
                cursor = self._conn.execute(
                    f"UPDATE jobs SET result = ? WHERE result IS NOT NULL AND ({names})",
                    [ERASED_RESULT, *(f"%{memory_id}%" for memory_id in part)],
                )
                changed += int(cursor.rowcount)
        return changed

    def delete_jobs(self, finished_before: datetime) -> int:
        """Forget the jobs that finished before ``finished_before``; how many."""
        with self.transaction(), self._errors():
            cursor = self._conn.execute(
                "DELETE FROM jobs WHERE finished_at IS NOT NULL AND finished_at < ?",
                (format_time(finished_before),),
            )
        return int(cursor.rowcount)
