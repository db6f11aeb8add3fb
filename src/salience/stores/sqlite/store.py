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
from typing import TYPE_CHECKING, cast

from salience.clock import format_time
from salience.models import MemoryRecord
from salience.stores.base import RowChanges
from salience.stores.reads import looked
from salience.stores.shared import SharedRows
from salience.stores.sqlite.jobs import JobRows
from salience.stores.sqlite.rows import COLUMNS, counters, from_row

if TYPE_CHECKING:
    from salience.models import Stats


class SQLiteStore(JobRows, SharedRows):
    """A salience store in one SQLite file (see :mod:`.connection` for concurrency)."""

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
        """Cheap to read; differs after any commit (this process's or another's). Read once
        per look (``stores.reads.LOOK``: a read verb's), unless this process wrote vectors."""
        return looked((id(self), "data_version"), self.data_version), self._vector_writes

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

    def owner_vector_state(self, owners: Sequence[str]) -> tuple[int, int]:
        """(number of vectors, highest vseq) of the memories of ``owners``: counted whole the
        first time, then from the store's vectors written since (a write before a tenant's
        each recall: 0.47 ms for 1,000 rows at 500,000 against a few µs), unless one written
        before was deleted or embedded again (then counted whole: the store's count fell
        short of what was written since by as many)."""
        key = tuple(owners)
        marks = ", ".join("?" for _ in owners)

        def read() -> tuple[int, int]:
            count, top = self.vector_state()
            known = self._owner_states.get(key) if self._counted else None
            if known is not None and top >= known[1]:
                then_count, then_top, mine, mine_top = known
                new, new_mine, new_top = self._conn.execute(
                    "SELECT count(*), coalesce(sum(m.user IN "
                    f"({marks})), 0), coalesce(max(CASE WHEN m.user IN ({marks}) THEN v.vseq "
                    "END), 0) FROM memory_vectors v LEFT JOIN memories m ON m.id = v.memory_id "
                    "WHERE v.vseq > ?",
                    (*owners, *owners, then_top),
                ).fetchone()
                if count - then_count == new:  # (no vector written before was deleted)
                    state = (mine + int(new_mine), max(mine_top, int(new_top)))
                    self._owner_states[key] = (count, top, *state)
                    return state
            row = self._conn.execute(
                "SELECT count(*), coalesce(max(v.vseq), 0) FROM memories m "
                f"JOIN memory_vectors v ON v.memory_id = m.id WHERE m.user IN ({marks})",
                tuple(owners),
            ).fetchone()
            if len(self._owner_states) >= 4096:
                self._owner_states.clear()
            self._owner_states[key] = (count, top, int(row[0]), int(row[1]))
            return int(row[0]), int(row[1])

        return self._at_one_moment(read)

    def owner_vector_rows(
        self, owners: Sequence[str], after: int, limit: int | None = None
    ) -> builtins.list[tuple[int, str, str | None, bytes]]:
        """:meth:`vector_rows` of the memories of ``owners`` alone: read by the owners' rows,
        or, when the store's vectors written since ``after`` are fewer than twice the
        owners' (a tenant's copy catching up), by those."""
        marks = ", ".join("?" for _ in owners)
        known = self._owner_states.get(tuple(owners))
        by_vseq = after > 0 and known is not None and known[1] - after <= 2 * known[2] + 64
        source = (
            "memory_vectors v CROSS JOIN memories m ON m.id = v.memory_id WHERE v.vseq > ? "
            f"AND m.user IN ({marks})"
            if by_vseq
            else "memories m JOIN memory_vectors v ON v.memory_id = m.id "
            f"WHERE m.user IN ({marks}) AND v.vseq > ?"
        )
        params = (after, *owners) if by_vseq else (*owners, after)
        with self._errors():
            rows = self._conn.execute(
                f"SELECT v.vseq, v.memory_id, m.session_id, v.vector FROM {source} "
                "ORDER BY v.vseq LIMIT ?",
                (*params, -1 if limit is None else limit),
            ).fetchall()
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
        from salience.models.store_records import Stats

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
