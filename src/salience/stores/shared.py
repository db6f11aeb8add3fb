"""Rows both stores keep the same way, in one SQL: the audit log, API keys, mounted layers,
the store's own settings, sessions, jobs and importance bases. ``?`` placeholders, run by
each store's primitives (SQLite as they are; PostgreSQL's store turns them into ``%s``:
:class:`~salience.stores.traces.TraceRows`).
``"user"`` is quoted (a reserved word in PostgreSQL; SQLite reads it as the column).

A new backend gives the three primitives and inherits this; what only one backend does (its
full-text index, its vectors) stays in its own package.
"""

from __future__ import annotations

import builtins
from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING

from salience.clock import format_time
from salience.stores.reads import replica_read
from salience.stores.rows import (
    JOB_COLUMNS,
    audit_of,
    audit_row,
    job_of,
    job_row,
    key_of,
    key_row,
    session_of,
)
from salience.stores.spaces import SpaceRows

if TYPE_CHECKING:
    from salience.models import ApiKey, AuditEntry, Job, LayerMount, Session

_AUDIT = 'seq, at, memory_id, action, actor, detail, "user"'
_KEY = (
    'id, secret_hash, "user", read_only, admin, created_at, revoked_at, label, source, agent, '
    "spaces"
)
_SESSION = 'id, "user", started_at, last_active_at, ended_at, summary_id'
_JOB = JOB_COLUMNS.replace("user", '"user"')
_JOB_KEPT = ", ".join(
    f"{c} = excluded.{c}"
    for c in JOB_COLUMNS.split(", ")
    if c not in ("id", "user", "kind", "created_at")
)
"""What saving a job again changes (its cancel, asked meanwhile, stays asked)."""


class SharedRows(SpaceRows):
    """The audit log, API keys, layers and settings of a store (any backend)."""

    def append_audit(self, entries: Sequence[AuditEntry]) -> None:
        """Append entries to the audit log (inside the caller's transaction, if any)."""
        with self.transaction():
            self._trace_execmany(
                'INSERT INTO audit_log (at, memory_id, action, actor, detail, "user") '
                "VALUES (?, ?, ?, ?, ?, ?)",
                [audit_row(e) for e in entries],
            )

    @replica_read
    def audit_entries(
        self, memory_id: str | None, limit: int | None, user: str | None = None
    ) -> builtins.list[AuditEntry]:
        """Audit entries, newest first; only one memory's with ``memory_id``, only one user's
        with ``user``."""
        sql = f"SELECT {_AUDIT} FROM audit_log WHERE TRUE"
        params: list[object] = []
        if memory_id is not None:
            sql += " AND memory_id = ?"
            params.append(memory_id)
        if user is not None:
            sql += ' AND "user" = ?'
            params.append(user)
        sql += " ORDER BY seq DESC"
        if limit is not None:
            sql += " LIMIT ?"
            params.append(limit)
        return [audit_of(r) for r in self._trace_rows(sql, params)]

    def audit_page(self, after: int, limit: int) -> builtins.list[AuditEntry]:
        """The first ``limit`` audit entries numbered above ``after``, oldest first."""
        sql = f"SELECT {_AUDIT} FROM audit_log WHERE seq > ? ORDER BY seq LIMIT ?"
        return [audit_of(r) for r in self._trace_rows(sql, (after, limit))]

    def save_key(self, key: ApiKey) -> None:
        """Insert or overwrite an API key's record (its hash, never the key)."""
        with self.transaction():
            self._trace_exec("DELETE FROM api_keys WHERE id = ?", (key.id,))
            self._trace_exec(f"INSERT INTO api_keys ({_KEY}) VALUES ({_marks(11)})", key_row(key))

    def api_keys(self) -> builtins.list[ApiKey]:
        """Every API key record, revoked ones too, oldest first."""
        return self._keys("TRUE", ())

    def api_key(self, key_id: str) -> ApiKey | None:
        """The API key record with this public id, or None."""
        found = self._keys("id = ?", (key_id,))
        return found[0] if found else None

    def _keys(self, where: str, params: Sequence[object]) -> builtins.list[ApiKey]:
        sql = f"SELECT {_KEY} FROM api_keys WHERE {where} ORDER BY created_at, id"
        return [key_of(r) for r in self._trace_rows(sql, params)]

    def get_meta(self, key: str) -> str | None:
        """A value of the store's own settings table (e.g. the embedder identity)."""
        rows = self._trace_rows("SELECT value FROM store_meta WHERE key = ?", (key,))
        return None if not rows else str(rows[0][0])

    def all_meta(self) -> dict[str, str]:
        """Every value of the store's settings table."""
        rows = self._trace_rows("SELECT key, value FROM store_meta ORDER BY key", ())
        return {str(k): str(v) for k, v in rows}

    def set_meta(self, key: str, value: str | None) -> None:
        """Set (or, with None, remove) a value of the store's settings table."""
        with self.transaction():
            if value is None:
                self._trace_exec("DELETE FROM store_meta WHERE key = ?", (key,))
            else:
                self._trace_exec(
                    "INSERT INTO store_meta (key, value) VALUES (?, ?) "
                    "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                    (key, value),
                )

    def layers(self) -> builtins.list[LayerMount]:
        """The read-only stores mounted beside this one, by name (kept while the store's
        change marker holds)."""
        return self._kept(("layers",), self._mounted_layers)

    def _mounted_layers(self) -> builtins.list[LayerMount]:
        rows = self._trace_rows("SELECT name, kind, path, mounted_at FROM layers ORDER BY name", ())
        if not rows:
            return []  # (most stores: the class is not even built)
        from salience.models.store_records import LayerMount

        return [LayerMount(r[0], r[1], r[2], datetime.fromisoformat(r[3])) for r in rows]

    def mount_layer(self, mount: LayerMount) -> None:
        """Record a mounted layer (its name and path must be new here)."""
        with self.transaction():
            self._trace_exec(
                "INSERT INTO layers (name, kind, path, mounted_at) VALUES (?, ?, ?, ?)",
                (mount.name, mount.kind, mount.path, format_time(mount.mounted_at)),
            )

    def unmount_layer(self, name: str) -> bool:
        """Forget a mounted layer; False if none has that name. Its file is untouched."""
        with self.transaction():
            return self._trace_exec("DELETE FROM layers WHERE name = ?", (name,)) > 0

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
            self._trace_exec(
                f"INSERT INTO sessions ({_SESSION}) VALUES ({_marks(6)}) ON CONFLICT (id) DO "
                'UPDATE SET "user" = excluded."user", started_at = excluded.started_at, '
                "last_active_at = excluded.last_active_at, ended_at = excluded.ended_at, "
                "summary_id = excluded.summary_id",
                values,
            )

    def open_session(self, user: str) -> Session | None:
        """The user's most recently active session that has not ended."""
        rows = self._trace_rows(
            f'SELECT {_SESSION} FROM sessions WHERE "user" = ? AND ended_at IS NULL '
            "ORDER BY last_active_at DESC LIMIT 1",
            (user,),
        )
        return session_of(rows[0]) if rows else None

    def sessions(self) -> builtins.list[Session]:
        """Every session, ended ones too, oldest first."""
        rows = self._trace_rows(f"SELECT {_SESSION} FROM sessions ORDER BY started_at, id", ())
        return [session_of(row) for row in rows]

    def touch_session(self, session_id: str, now: datetime) -> None:
        """Mark an open session as active now (no-op for unknown or ended sessions)."""
        with self.transaction():
            self._trace_exec(
                "UPDATE sessions SET last_active_at = ? WHERE id = ? AND ended_at IS NULL",
                (format_time(now), session_id),
            )

    def save_job(self, job: Job) -> None:
        """Insert or overwrite a job (a cancel asked meanwhile stays asked)."""
        row = job_row(job)
        with self.transaction():
            self._trace_exec(
                f"INSERT INTO jobs ({_JOB}) VALUES ({_marks(len(row))}) "
                f"ON CONFLICT (id) DO UPDATE SET {_JOB_KEPT}",
                row,
            )

    def job(self, job_id: str) -> Job | None:
        """The job with this id, or None."""
        rows = self._trace_rows(f"SELECT {_JOB} FROM jobs WHERE id = ?", (job_id,))
        return job_of(rows[0]) if rows else None

    def jobs(self, user: str | None, limit: int) -> builtins.list[Job]:
        """The newest jobs first, of one user with ``user``, at most ``limit``."""
        where, params = ('"user" = ?', [user]) if user is not None else ("TRUE", [])
        rows = self._trace_rows(
            f"SELECT {_JOB} FROM jobs WHERE {where} ORDER BY created_at DESC, id DESC LIMIT ?",
            [*params, limit],
        )
        return [job_of(row) for row in rows]

    def delete_jobs(self, finished_before: datetime) -> int:
        """Forget the jobs that finished before ``finished_before``; how many."""
        with self.transaction():
            return self._trace_exec(
                "DELETE FROM jobs WHERE finished_at IS NOT NULL AND finished_at < ?",
                (format_time(finished_before),),
            )

    def importance_bases(self) -> dict[str, tuple[float, datetime]]:
        """Every stored decay base: memory id -> (importance, when it was set)."""
        rows = self._trace_rows("SELECT memory_id, importance, set_at FROM importance_base", ())
        return {str(r[0]): (float(r[1]), datetime.fromisoformat(r[2])) for r in rows}

    def set_importance_base(self, memory_id: str, importance: float, set_at: datetime) -> None:
        """Record the importance a person or feedback set, and when."""
        with self.transaction():
            self._trace_exec(
                "INSERT INTO importance_base (memory_id, importance, set_at) VALUES (?, ?, ?) "
                "ON CONFLICT (memory_id) DO UPDATE SET importance = excluded.importance, "
                "set_at = excluded.set_at",
                (memory_id, importance, format_time(set_at)),
            )


def _marks(count: int) -> str:
    return ", ".join("?" * count)
