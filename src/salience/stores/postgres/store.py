"""The PostgreSQL store: everything kept beside the memory rows and their vectors (see the
SQLite store's module of the same name, whose behaviour this one shares)."""

from __future__ import annotations

import builtins
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from salience.clock import format_time
from salience.models import MemoryRecord, Stats
from salience.stores.base import ERASED_RESULT, RowChanges
from salience.stores.postgres.vectors import VectorRows
from salience.stores.reads import looked, replica_read
from salience.stores.rows import (
    COLUMNS,
    from_row,
)
from salience.stores.shared import SharedRows


class PostgresStore(VectorRows, SharedRows):
    """A salience store in a PostgreSQL database (see :mod:`.connection` for concurrency)."""

    def change_marker(self) -> tuple[int, int]:
        """Differs after any write transaction of any process, or a vector write here."""
        version = looked((id(self), "version"), self._version)
        return version, self._vector_writes

    def _version(self) -> int:
        return int(self._rows("SELECT version FROM store_version")[0][0])

    def _counters(self) -> tuple[int, int]:
        row = self._rows(
            "SELECT (SELECT coalesce(max(seq), 0) FROM memories), "
            "(SELECT coalesce(max(cseq), 0) FROM memory_changes)"
        )[0]
        return int(row[0]), int(row[1])

    def _numbered(
        self, where: str, params: Sequence[object]
    ) -> builtins.list[tuple[int, MemoryRecord]]:
        sql = f"SELECT m.seq, {COLUMNS} FROM memories m WHERE {where} ORDER BY m.seq"
        return [(int(row[0]), from_row(row[1:])) for row in self._rows(sql, params)]

    def all_rows(self) -> RowChanges:
        """Every record with its row number (all users, forgotten too), read at one moment."""
        return self._at_one_moment(
            lambda: RowChanges(self._numbered("TRUE", ()), [], *self._counters())
        )

    def row_changes(self, after_seq: int, after_change: int) -> RowChanges | None:
        """Records added after ``after_seq`` or changed after ``after_change``, and rows deleted
        since, read at one moment; None when the change log no longer reaches back that far."""

        def read() -> RowChanges | None:
            # (two statements, not five: each is a round trip to the server)
            last_seq, last_change, oldest, mseqs = self._rows(
                "SELECT (SELECT coalesce(max(seq), 0) FROM memories), "
                "(SELECT coalesce(max(cseq), 0) FROM memory_changes), "
                "(SELECT min(cseq) FROM memory_changes), "
                "ARRAY(SELECT mseq FROM memory_changes WHERE cseq > %s)",
                (after_change,),
            )[0]
            if oldest is not None and oldest > after_change + 1:
                return None  # pruned past the reader
            changed = sorted({int(seq) for seq in mseqs})
            earlier = [seq for seq in changed if seq <= after_seq]
            found = self._numbered("m.seq > %s OR m.seq = ANY(%s)", (after_seq, earlier))
            rows = [r for r in found if r[0] > after_seq] + [r for r in found if r[0] <= after_seq]
            present = {seq for seq, _ in rows}
            deleted = [seq for seq in changed if seq not in present]
            return RowChanges(rows, deleted, int(last_seq), int(last_change))

        return self._at_one_moment(read)

    def orphans(self, *, delete: bool) -> dict[str, int]:
        """Rows of derived tables whose memory is gone (foreign keys keep them away here; the
        check is the SQLite store's, for the same report)."""
        checks = {
            "memory_tags": "seq NOT IN (SELECT seq FROM memories)",
            "memory_entities": "seq NOT IN (SELECT seq FROM memories)",
            "memory_vectors": "memory_id NOT IN (SELECT id FROM memories)",
            "importance_base": "memory_id NOT IN (SELECT id FROM memories)",
        }
        found: dict[str, int] = {}
        with self.transaction():
            for table, where in checks.items():
                count = int(self._rows(f"SELECT count(*) FROM {table} WHERE {where}")[0][0])
                if count:
                    found[table] = count
                    if delete:
                        self._exec(f"DELETE FROM {table} WHERE {where}")
        return found

    def _trace_rows(self, sql: str, params: Sequence[object]) -> builtins.list[Any]:
        return self._rows(sql.replace("?", "%s"), params)

    def _trace_exec(self, sql: str, params: Sequence[object]) -> int:
        return self._exec(sql.replace("?", "%s"), params)

    def _trace_execmany(self, sql: str, rows: Sequence[Sequence[object]]) -> None:
        self._execmany(sql.replace("?", "%s"), rows)

    def scrub_job_results(self, memory_ids: Sequence[str]) -> int:
        """Replace the result of every job naming one of ``memory_ids`` (see the protocol;
        :meth:`scrub` vacuums the old rows away)."""
        if not memory_ids:
            return 0
        with self.transaction():
            return self._exec(
                "UPDATE jobs SET result = %s WHERE result IS NOT NULL AND result LIKE ANY(%s)",
                (ERASED_RESULT, [f"%{memory_id}%" for memory_id in memory_ids]),
            )

    @replica_read
    def created_per_day(self, since: datetime, user: str | None = None) -> dict[str, int]:
        """Memories created per UTC day from ``since`` on (see :class:`Store`)."""
        mine, who = ('"user" = %s AND ', [user]) if user is not None else ("", [])
        sql = (
            "SELECT substr(created_at, 1, 10), count(*) FROM memories "
            f"WHERE {mine}created_at >= %s GROUP BY 1"
        )
        return {str(day): int(n) for day, n in self._rows(sql, [*who, format_time(since)])}

    @replica_read
    def stats(self, as_of: datetime, user: str | None = None) -> Stats:
        """Counts by status, type, user and project (of one user's memories with ``user``),
        and the size of the store's tables and indexes."""
        now = format_time(as_of)
        mine, who = ('"user" = %s', [user]) if user is not None else ("TRUE", [])
        status_sql = (
            "SELECT CASE WHEN forget_reason IS NOT NULL THEN 'forgotten' "
            "WHEN valid_until IS NOT NULL AND valid_until <= %s THEN 'superseded' "
            f"ELSE 'current' END AS s, count(*) FROM memories WHERE {mine} GROUP BY s"
        )
        current = f"{mine} AND forget_reason IS NULL AND (valid_until IS NULL OR valid_until > %s)"

        def read() -> tuple[dict[str, int], dict[str, dict[str, int]], int]:
            by_status = {str(k): int(v) for k, v in self._rows(status_sql, [now, *who])}
            grouped = {
                column: {
                    str(k): int(v)
                    for k, v in self._rows(
                        f"SELECT coalesce(\"{column}\", ''), count(*) FROM memories "
                        f"WHERE {current} GROUP BY 1 ORDER BY 2 DESC, 1",
                        [*who, now],
                    )
                }
                for column in ("type", "user", "project")
            }
            size = self._rows(
                "SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0) FROM pg_class c "
                "WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind = 'r'"
            )[0][0]
            return by_status, grouped, int(size)

        by_status, grouped, size = self._at_one_moment(read)
        return Stats(
            path=self.location,
            schema=self.schema,
            total=sum(by_status.values()),
            by_status={k: by_status.get(k, 0) for k in ("current", "superseded", "forgotten")},
            by_type=grouped["type"],
            by_user=grouped["user"],
            by_project={k: v for k, v in grouped["project"].items() if k},
            size_bytes=size,
        )
