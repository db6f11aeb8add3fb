"""The PostgreSQL store: everything kept beside the memory rows and their vectors (see the
SQLite store's module of the same name, whose behaviour this one shares)."""

from __future__ import annotations

import builtins
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from salience.clock import format_time
from salience.models import ApiKey, AuditEntry, Job, LayerMount, MemoryRecord, Session, Stats
from salience.stores.base import ERASED_RESULT, RowChanges
from salience.stores.postgres.vectors import VectorRows
from salience.stores.rows import (
    COLUMNS,
    JOB_COLUMNS,
    audit_of,
    audit_row,
    from_row,
    job_of,
    job_row,
    key_of,
    key_row,
    session_of,
)
from salience.stores.updates import UpdateRows

_JOB_COLUMNS = JOB_COLUMNS.replace("user", '"user"')


class PostgresStore(VectorRows, UpdateRows):
    """A salience store in a PostgreSQL database (see :mod:`.connection` for concurrency)."""

    def open_session(self, user: str) -> Session | None:
        """The user's most recently active session that has not ended."""
        rows = self._rows(
            'SELECT id, "user", started_at, last_active_at, ended_at, summary_id FROM sessions '
            'WHERE "user" = %s AND ended_at IS NULL ORDER BY last_active_at DESC LIMIT 1',
            (user,),
        )
        return session_of(rows[0]) if rows else None

    def sessions(self) -> builtins.list[Session]:
        """Every session, ended ones too, oldest first."""
        rows = self._rows(
            'SELECT id, "user", started_at, last_active_at, ended_at, summary_id FROM sessions '
            "ORDER BY started_at, id"
        )
        return [session_of(row) for row in rows]

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
        with self.transaction():
            self._exec(
                "INSERT INTO sessions VALUES (%s, %s, %s, %s, %s, %s) ON CONFLICT (id) DO UPDATE "
                'SET "user" = excluded."user", started_at = excluded.started_at, '
                "last_active_at = excluded.last_active_at, ended_at = excluded.ended_at, "
                "summary_id = excluded.summary_id",
                values,
            )

    def touch_session(self, session_id: str, now: datetime) -> None:
        """Mark an open session as active now (no-op for unknown or ended sessions)."""
        with self.transaction():
            self._exec(
                "UPDATE sessions SET last_active_at = %s WHERE id = %s AND ended_at IS NULL",
                (format_time(now), session_id),
            )

    def change_marker(self) -> tuple[int, int]:
        """Differs after any write transaction of any process, or a vector write here."""
        version = self._rows("SELECT version FROM store_version")[0][0]
        return int(version), self._vector_writes

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
            last_seq, last_change = self._counters()
            oldest = self._rows("SELECT min(cseq) FROM memory_changes")[0][0]
            if oldest is not None and oldest > after_change + 1:
                return None  # pruned past the reader
            changed = sorted(
                {
                    int(r[0])
                    for r in self._rows(
                        "SELECT mseq FROM memory_changes WHERE cseq > %s", (after_change,)
                    )
                }
            )
            rows = self._numbered("m.seq > %s", (after_seq,))
            earlier = [seq for seq in changed if seq <= after_seq]
            if earlier:
                rows += self._numbered("m.seq = ANY(%s)", (earlier,))
            present = {seq for seq, _ in rows}
            deleted = [seq for seq in changed if seq not in present]
            return RowChanges(rows, deleted, last_seq, last_change)

        return self._at_one_moment(read)

    def importance_bases(self) -> dict[str, tuple[float, datetime]]:
        """Every stored decay base: memory id -> (importance, when it was set)."""
        rows = self._rows("SELECT memory_id, importance, set_at FROM importance_base")
        return {str(r[0]): (float(r[1]), datetime.fromisoformat(r[2])) for r in rows}

    def set_importance_base(self, memory_id: str, importance: float, set_at: datetime) -> None:
        """Record the importance a person or feedback set, and when."""
        with self.transaction():
            self._exec(
                "INSERT INTO importance_base (memory_id, importance, set_at) VALUES (%s, %s, %s) "
                "ON CONFLICT (memory_id) DO UPDATE SET importance = excluded.importance, "
                "set_at = excluded.set_at",
                (memory_id, importance, format_time(set_at)),
            )

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

    def append_audit(self, entries: Sequence[AuditEntry]) -> None:
        """Append entries to the audit log (inside the caller's transaction, if any)."""
        rows = [audit_row(e) for e in entries]
        with self.transaction():
            self._execmany(
                'INSERT INTO audit_log (at, memory_id, action, actor, detail, "user") '
                "VALUES (%s, %s, %s, %s, %s, %s)",
                rows,
            )

    def audit_entries(
        self, memory_id: str | None, limit: int | None, user: str | None = None
    ) -> builtins.list[AuditEntry]:
        """Audit entries, newest first; only one memory's with ``memory_id``, only one user's
        with ``user``."""
        sql = 'SELECT seq, at, memory_id, action, actor, detail, "user" FROM audit_log WHERE TRUE'
        params: list[object] = []
        if memory_id is not None:
            sql += " AND memory_id = %s"
            params.append(memory_id)
        if user is not None:
            sql += ' AND "user" = %s'
            params.append(user)
        sql += " ORDER BY seq DESC LIMIT %s"
        params.append(limit)
        return [audit_of(r) for r in self._rows(sql, params)]

    def audit_page(self, after: int, limit: int) -> builtins.list[AuditEntry]:
        """The first ``limit`` audit entries numbered above ``after``, oldest first."""
        sql = (
            'SELECT seq, at, memory_id, action, actor, detail, "user" FROM audit_log '
            "WHERE seq > %s ORDER BY seq LIMIT %s"
        )
        return [audit_of(r) for r in self._rows(sql, (after, limit))]

    def save_key(self, key: ApiKey) -> None:
        """Insert or overwrite an API key's record (its hash, never the key)."""
        with self.transaction():
            self._exec("DELETE FROM api_keys WHERE id = %s", (key.id,))
            self._exec(
                "INSERT INTO api_keys VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s)",
                key_row(key),
            )

    def api_keys(self) -> builtins.list[ApiKey]:
        """Every API key record, revoked ones too, oldest first."""
        return self._keys("TRUE", ())

    def api_key(self, key_id: str) -> ApiKey | None:
        """The API key record with this public id, or None."""
        found = self._keys("id = %s", (key_id,))
        return found[0] if found else None

    def _keys(self, where: str, params: Sequence[object]) -> builtins.list[ApiKey]:
        rows = self._rows(
            'SELECT id, secret_hash, "user", read_only, admin, created_at, revoked_at, label, '
            "source "
            f"FROM api_keys WHERE {where} ORDER BY created_at, id",
            params,
        )
        return [key_of(r) for r in rows]

    def _trace_rows(self, sql: str, params: Sequence[object]) -> builtins.list[Any]:
        return self._rows(sql.replace("?", "%s"), params)

    def _trace_exec(self, sql: str, params: Sequence[object]) -> int:
        return self._exec(sql.replace("?", "%s"), params)

    def _trace_execmany(self, sql: str, rows: Sequence[Sequence[object]]) -> None:
        self._execmany(sql.replace("?", "%s"), rows)

    def save_job(self, job: Job) -> None:
        """Insert or overwrite a job."""
        marks = ", ".join("%s" for _ in job_row(job))
        with self.transaction():
            self._exec(
                f"INSERT INTO jobs ({_JOB_COLUMNS}) VALUES ({marks}) ON CONFLICT (id) DO UPDATE "
                "SET state = excluded.state, updated_at = excluded.updated_at, "
                "done = excluded.done, total = excluded.total, "
                "finished_at = excluded.finished_at, result = excluded.result, "
                "error = excluded.error, owner = excluded.owner",
                job_row(job),
            )

    def job(self, job_id: str) -> Job | None:
        """The job with this id, or None."""
        rows = self._rows(f"SELECT {_JOB_COLUMNS} FROM jobs WHERE id = %s", (job_id,))
        return job_of(rows[0]) if rows else None

    def jobs(self, user: str | None, limit: int) -> builtins.list[Job]:
        """The newest jobs first, of one user with ``user``, at most ``limit``."""
        where, params = ('"user" = %s', [user]) if user is not None else ("TRUE", [])
        rows = self._rows(
            f"SELECT {_JOB_COLUMNS} FROM jobs WHERE {where} "
            "ORDER BY created_at DESC, id DESC LIMIT %s",
            [*params, limit],
        )
        return [job_of(row) for row in rows]

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

    def delete_jobs(self, finished_before: datetime) -> int:
        """Forget the jobs that finished before ``finished_before``; how many."""
        with self.transaction():
            return self._exec(
                "DELETE FROM jobs WHERE finished_at IS NOT NULL AND finished_at < %s",
                (format_time(finished_before),),
            )

    def get_meta(self, key: str) -> str | None:
        """A value of the store's own settings table (e.g. the embedder identity)."""
        rows = self._rows("SELECT value FROM store_meta WHERE key = %s", (key,))
        return None if not rows else str(rows[0][0])

    def all_meta(self) -> dict[str, str]:
        """Every value of the store's settings table."""
        return {
            str(k): str(v) for k, v in self._rows("SELECT key, value FROM store_meta ORDER BY key")
        }

    def set_meta(self, key: str, value: str | None) -> None:
        """Set (or, with None, remove) a value of the store's settings table."""
        with self.transaction():
            if value is None:
                self._exec("DELETE FROM store_meta WHERE key = %s", (key,))
            else:
                self._exec(
                    "INSERT INTO store_meta (key, value) VALUES (%s, %s) "
                    "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                    (key, value),
                )

    def layers(self) -> builtins.list[LayerMount]:
        """The read-only stores mounted beside this one, by name."""
        rows = self._rows("SELECT name, kind, path, mounted_at FROM layers ORDER BY name")
        return [LayerMount(r[0], r[1], r[2], datetime.fromisoformat(r[3])) for r in rows]

    def mount_layer(self, mount: LayerMount) -> None:
        """Record a mounted layer (its name and path must be new here)."""
        with self.transaction():
            self._exec(
                "INSERT INTO layers (name, kind, path, mounted_at) VALUES (%s, %s, %s, %s)",
                (mount.name, mount.kind, mount.path, format_time(mount.mounted_at)),
            )

    def unmount_layer(self, name: str) -> bool:
        """Forget a mounted layer; False if none has that name. Its file is untouched."""
        with self.transaction():
            return self._exec("DELETE FROM layers WHERE name = %s", (name,)) > 0

    def created_per_day(self, since: datetime, user: str | None = None) -> dict[str, int]:
        """Memories created per UTC day from ``since`` on (see :class:`Store`)."""
        mine, who = ('"user" = %s AND ', [user]) if user is not None else ("", [])
        sql = (
            "SELECT substr(created_at, 1, 10), count(*) FROM memories "
            f"WHERE {mine}created_at >= %s GROUP BY 1"
        )
        return {str(day): int(n) for day, n in self._rows(sql, [*who, format_time(since)])}

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
