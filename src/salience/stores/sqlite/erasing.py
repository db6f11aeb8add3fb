"""Erasing memory rows from a SQLite store: delete, a user's erasure, and the scrub that
leaves no copy of their text in the files (pages zeroed, full-text index merged, WAL
truncated)."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from salience.stores.grant import require_grant
from salience.stores.sqlite.memories import MemoryRows

READER_WAIT_MS = 250
"""How long a scrub waits for a reader of the WAL before it leaves the erasure pending."""


class ErasingRows(MemoryRows):
    """delete, erase_user, scrub (and the zeroing the record's deletions use too)."""

    def delete(self, memory_id: str) -> bool:
        """Remove the record and everything derived from it."""
        require_grant("delete")
        with self.transaction(), self._errors():
            row = self._conn.execute(
                "SELECT seq FROM memories WHERE id = ?", (memory_id,)
            ).fetchone()
            if row is None:
                return False
            with self._zeroing():
                self._unindex(row[0])
                self._conn.execute("DELETE FROM memories WHERE seq = ?", (row[0],))
            return True

    def scrub(self, *, again: bool = False) -> dict[str, int]:
        """Leave no copy of deleted rows' text in the files: merge the full-text index into
        one segment (its old segments hold deleted rows' terms; freed, they are zeroed: the
        writer runs with ``secure_delete``; not ``again``, a retry), then copy the WAL into the
        database and truncate it (its frames hold old pages), waiting at most
        :data:`READER_WAIT_MS` for a reader: one that holds on makes it pending. Counted."""
        if not again:
            with self.transaction(), self._errors(), self._zeroing():
                self._conn.execute("INSERT INTO memory_fts(memory_fts) VALUES ('optimize')")
        with self._lock, self._errors():  # no write starts meanwhile (nor waits long)
            self._writer.execute(f"PRAGMA busy_timeout = {READER_WAIT_MS}")
            busy = self._writer.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()[0]
            self._writer.execute(f"PRAGMA busy_timeout = {int(self._busy_timeout_ms)}")
        return {"full_text_merged": int(not again), "wal_truncated": int(busy == 0)}

    def erase_user(self, user: str) -> dict[str, int]:
        """Delete everything ``user`` ever stored (memories of every status with their index
        rows, vectors and decay bases; sessions, audit entries, jobs), counted by table."""
        require_grant("erase_user")
        counts: dict[str, int] = {}
        with self.transaction(), self._errors(), self._zeroing():
            seqs = self._conn.execute("SELECT seq FROM memories WHERE user = ?", (user,))
            for (seq,) in seqs.fetchall():
                self._unindex(seq)
            for table in ("memories", "sessions", "audit_log", "jobs"):
                cursor = self._conn.execute(f"DELETE FROM {table} WHERE user = ?", (user,))
                counts[table] = int(cursor.rowcount)
            counts["traces"] = self.delete_traces(user=user)  # type: ignore[attr-defined]
        return counts

    @contextlib.contextmanager
    def _zeroing(self) -> Iterator[None]:
        """Inside the writer's transaction: every page and cell freed is zeroed (a delete's
        promise that its text stays nowhere in the file), not only the cheap ones."""
        self._writer.execute("PRAGMA secure_delete = ON")
        try:
            yield
        finally:
            self._writer.execute("PRAGMA secure_delete = FAST")
            for copy in self._copies or ():  # (nor in this process's copies of the full-text
                copy.drop()  # index, the store's or a tenant's: none made yet, none to drop)
