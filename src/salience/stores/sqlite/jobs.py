"""The jobs table of a SQLite store (long work's progress, heartbeat and outcome), and the
statements the record of recalls and briefings runs (:mod:`salience.stores.traces`)."""

from __future__ import annotations

import builtins
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from salience.stores.base import ERASED_RESULT
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
