"""The embedded default store: one SQLite file with WAL, FTS5 and derived lookup tables.

:class:`SQLiteStore` is built in parts: the connection (:mod:`.connection`), the memory rows
and their full-text index (:mod:`.memories`), jobs (:mod:`.jobs`), and here everything kept
beside them — sessions, vectors, the change log briefings catch up from, decay bases, the
audit log, the store's settings and mounted layers, and statistics.
"""

from __future__ import annotations

import builtins
import contextlib
from collections.abc import Sequence
from contextlib import AbstractContextManager
from datetime import datetime
from pathlib import Path
from typing import cast

from salience.clock import format_time
from salience.models import ApiKey, AuditEntry, LayerMount, MemoryRecord, Session, Stats
from salience.stores.base import RowChanges
from salience.stores.rows import audit_of, audit_row, key_of, key_row, session_of
from salience.stores.sqlite.jobs import JobRows
from salience.stores.sqlite.rows import COLUMNS, counters, from_row
from salience.stores.updates import UpdateRows


class SQLiteStore(JobRows, UpdateRows):
    """A salience store in one SQLite file (see :mod:`.connection` for concurrency)."""

    def open_session(self, user: str) -> Session | None:
        """The user's most recently active session that has not ended."""
        with self._errors():
            row = self._conn.execute(
                "SELECT id, user, started_at, last_active_at, ended_at, summary_id FROM sessions "
                "WHERE user = ? AND ended_at IS NULL ORDER BY last_active_at DESC LIMIT 1",
                (user,),
            ).fetchone()
        return None if row is None else session_of(row)

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

    def sessions(self) -> builtins.list[Session]:
        """Every session, ended ones too, oldest first."""
        with self._errors():
            rows = self._conn.execute(
                "SELECT id, user, started_at, last_active_at, ended_at, summary_id FROM sessions "
                "ORDER BY started_at, id"
            ).fetchall()
        return [session_of(row) for row in rows]

    def touch_session(self, session_id: str, now: datetime) -> None:
        """Mark an open session as active now (no-op for unknown or ended sessions)."""
        with self.transaction(), self._errors():
            self._conn.execute(
                "UPDATE sessions SET last_active_at = ? WHERE id = ? AND ended_at IS NULL",
                (format_time(now), session_id),
            )

    def set_vector(self, memory_id: str, vector: bytes) -> None:
        """Store (or replace) the memory's embedding; it gets a new, higher ``vseq``."""
        with self.transaction(), self._errors():
            self._conn.execute("DELETE FROM memory_vectors WHERE memory_id = ?", (memory_id,))
            self._conn.execute(
                "INSERT INTO memory_vectors (memory_id, vector) VALUES (?, ?)", (memory_id, vector)
            )
            self._vector_writes += 1

    def set_vectors(self, pairs: Sequence[tuple[str, bytes]]) -> None:
        """:meth:`set_vector` for many memories at once, in one transaction (in order)."""
        latest = list(dict(pairs).items())  # an id given twice keeps its last vector
        with self.transaction(), self._errors():
            self._conn.executemany(
                "DELETE FROM memory_vectors WHERE memory_id = ?", [(i,) for i, _ in latest]
            )
            self._conn.executemany(
                "INSERT INTO memory_vectors (memory_id, vector) VALUES (?, ?)", latest
            )
            self._vector_writes += 1

    def bulk_load(self) -> AbstractContextManager[None]:
        """Nothing to defer: SQLite keeps no index over vectors."""
        return contextlib.nullcontext()

    def clear_vectors(self) -> None:
        """Drop every embedding (before re-embedding with another model)."""
        with self.transaction(), self._errors():
            self._conn.execute("DELETE FROM memory_vectors")
            self._vector_writes += 1

    def vector_state(self) -> tuple[int, int]:
        """(number of vectors, highest vseq): changes whenever any process writes vectors."""
        counted = "SELECT n FROM row_counts WHERE name = 'vectors'"  # (triggers: 0013)
        count = counted if self._counted else "SELECT count(*) FROM memory_vectors"
        highest = "SELECT coalesce(max(vseq), 0) FROM memory_vectors"
        with self._errors():
            row = self._conn.execute(f"SELECT ({count}), ({highest})").fetchone()
        return int(row[0]), int(row[1])

    def change_marker(self) -> tuple[int, int]:
        """Cheap to read; differs after any commit (this process's or another's)."""
        return self.data_version(), self._vector_writes

    def _counters(self) -> tuple[int, int]:
        found = counters(self._conn) if self._change_log else None
        if found is None:  # (a read-only store from before the change log)
            last_seq = self._conn.execute("SELECT coalesce(max(seq), 0) FROM memories").fetchone()
            return int(last_seq[0]), 0
        return found

    def _numbered(
        self, where: str, params: Sequence[object]
    ) -> builtins.list[tuple[int, MemoryRecord]]:
        sql = f"SELECT m.seq, {COLUMNS} FROM memories m WHERE {where} ORDER BY m.seq"
        return [(int(row[0]), from_row(row[1:])) for row in self._conn.execute(sql, params)]

    def count_rows(self) -> int:
        """How many records the store holds (all users, forgotten and superseded too)."""
        with self._errors():
            return int(self._conn.execute("SELECT count(*) FROM memories").fetchone()[0])

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

    def vector_rows(
        self, after: int, limit: int | None = None
    ) -> builtins.list[tuple[int, str, str | None, bytes]]:
        """(vseq, memory id, session id, vector) for vectors with ``vseq > after``, by vseq
        (the first ``limit``: a page)."""
        with self._errors():
            rows = self._conn.execute(
                "SELECT v.vseq, v.memory_id, m.session_id, v.vector FROM memory_vectors v "
                "JOIN memories m ON m.id = v.memory_id WHERE v.vseq > ? ORDER BY v.vseq "
                "LIMIT ?",
                (after, -1 if limit is None else limit),
            ).fetchall()
        # (INTEGER, TEXT, TEXT or NULL, BLOB: already int, str, str | None, bytes; copying
        # each row into a new tuple took 1.7 s of a first recall's load at 1M)
        return cast("builtins.list[tuple[int, str, str | None, bytes]]", rows)

    def without_vectors(self, limit: int) -> builtins.list[MemoryRecord]:
        """Up to ``limit`` records that have no embedding yet, in id order."""
        return self._select(
            f"SELECT {COLUMNS} FROM memories m WHERE NOT EXISTS "
            "(SELECT 1 FROM memory_vectors v WHERE v.memory_id = m.id) ORDER BY m.id LIMIT ?",
            (limit,),
        )

    def count_without_vectors(self) -> int:
        """How many records have no embedding."""
        with self._errors():
            row = self._conn.execute(
                "SELECT count(*) FROM memories m WHERE NOT EXISTS "
                "(SELECT 1 FROM memory_vectors v WHERE v.memory_id = m.id)"
            ).fetchone()
        return int(row[0])

    def importance_bases(self) -> dict[str, tuple[float, datetime]]:
        """Every stored decay base: memory id -> (importance, when it was set)."""
        with self._errors():
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
        rows = [audit_row(e) for e in entries]
        with self.transaction(), self._errors():
            self._conn.executemany(
                "INSERT INTO audit_log (at, memory_id, action, actor, detail, user) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                rows,
            )

    def audit_entries(
        self, memory_id: str | None, limit: int | None, user: str | None = None
    ) -> builtins.list[AuditEntry]:
        """Audit entries, newest first; only one memory's with ``memory_id``, only one user's
        with ``user``."""
        sql = "SELECT seq, at, memory_id, action, actor, detail, user FROM audit_log WHERE 1"
        params: list[object] = []
        if memory_id is not None:
            sql += " AND memory_id = ?"
            params.append(memory_id)
        if user is not None:
            sql += " AND user = ?"
            params.append(user)
        sql += " ORDER BY seq DESC"
        if limit is not None:
            sql += " LIMIT ?"
            params.append(limit)
        with self._errors():
            rows = self._conn.execute(sql, params).fetchall()
        return [audit_of(r) for r in rows]

    def audit_page(self, after: int, limit: int) -> builtins.list[AuditEntry]:
        """The first ``limit`` audit entries numbered above ``after``, oldest first."""
        columns = "seq, at, memory_id, action, actor, detail, user"
        sql = f"SELECT {columns} FROM audit_log WHERE seq > ? ORDER BY seq LIMIT ?"
        with self._errors():
            return [audit_of(r) for r in self._conn.execute(sql, (after, limit))]

    def save_key(self, key: ApiKey) -> None:
        """Insert or overwrite an API key's record (its hash, never the key)."""
        with self.transaction(), self._errors():
            self._conn.execute(
                "INSERT OR REPLACE INTO api_keys VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                key_row(key),
            )

    def api_keys(self) -> builtins.list[ApiKey]:
        """Every API key record, revoked ones too, oldest first."""
        return self._keys("1", ())

    def api_key(self, key_id: str) -> ApiKey | None:
        """The API key record with this public id, or None."""
        found = self._keys("id = ?", (key_id,))
        return found[0] if found else None

    def _keys(self, where: str, params: Sequence[object]) -> builtins.list[ApiKey]:
        with self._errors():
            rows = self._conn.execute(
                f"SELECT * FROM api_keys WHERE {where} ORDER BY created_at, id", params
            ).fetchall()
        return [key_of(r) for r in rows]

    def get_meta(self, key: str) -> str | None:
        """A value of the store's own settings table (e.g. the embedder identity)."""
        with self._errors():
            row = self._conn.execute(
                "SELECT value FROM store_meta WHERE key = ?", (key,)
            ).fetchone()
        return None if row is None else str(row[0])

    def all_meta(self) -> dict[str, str]:
        """Every value of the store's settings table."""
        with self._errors():
            rows = self._conn.execute("SELECT key, value FROM store_meta ORDER BY key").fetchall()
        return {str(k): str(v) for k, v in rows}

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
        with self._errors():
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

    def created_per_day(self, since: datetime, user: str | None = None) -> dict[str, int]:
        """Memories created per UTC day from ``since`` on (see :class:`Store`)."""
        mine, who = ("user = ? AND ", [user]) if user is not None else ("", [])
        sql = (
            "SELECT substr(created_at, 1, 10), count(*) FROM memories "
            f"WHERE {mine}created_at >= ? GROUP BY 1"
        )
        with self._errors():
            rows = self._conn.execute(sql, [*who, format_time(since)]).fetchall()
        return {str(day): int(n) for day, n in rows}

    def stats(self, as_of: datetime, user: str | None = None) -> Stats:
        """Counts by status, type, user and project (of one user's memories with ``user``),
        and the file's size."""
        now = format_time(as_of)
        mine, who = ("user = ?", [user]) if user is not None else ("1", [])
        status_sql = (
            "SELECT CASE WHEN forget_reason IS NOT NULL THEN 'forgotten' "
            "WHEN valid_until IS NOT NULL AND valid_until <= ? THEN 'superseded' "
            f"ELSE 'current' END AS s, count(*) FROM memories WHERE {mine} GROUP BY s"
        )
        current = f"{mine} AND forget_reason IS NULL AND (valid_until IS NULL OR valid_until > ?)"
        with self._errors():
            by_status = dict(self._conn.execute(status_sql, [now, *who]).fetchall())
            grouped = {
                column: dict(
                    self._conn.execute(
                        f"SELECT coalesce({column}, ''), count(*) FROM memories "
                        f"WHERE {current} GROUP BY 1 ORDER BY 2 DESC, 1",
                        [*who, now],
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
