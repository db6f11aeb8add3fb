"""Erasure that always completes: a purge's or a user's erasure's scrub that a reader held
back (an open read of the SQLite file keeps the WAL, an older PostgreSQL snapshot keeps dead
rows) is marked pending in the store, said in the result and in ``salience stats``, and
finished as soon as the reader lets go: after the next write of a process that knows, every
few seconds in a server, and by ``salience forget --purge --wait``."""

from __future__ import annotations

from salience.clock import format_time
from salience.engine.core import EngineCore
from salience.text import forget_cached_texts


class Scrubbing(EngineCore):
    """_scrubbed, settle_erasure."""

    def _scrubbed(self) -> dict[str, int]:
        """After an erasure: no copy of the text in the store's files (``Store.scrub``), or,
        while a reader holds an old view of them, the erasure marked pending (``pending``: 1)
        until :meth:`settle_erasure` finishes it; and none in this process's caches
        (:func:`salience.text.forget_cached_texts`)."""
        forget_cached_texts()
        receipt = self._store.scrub() | {
            "vector_files": self.vectors.discard_saved(),
            "column_files": self._briefings.discard_saved(),
        }
        receipt["pending"] = int(_blocked(receipt))
        if receipt["pending"]:
            with self._store.transaction():
                if self._store.get_meta(ERASURE_PENDING) is None:
                    self._store.set_meta(ERASURE_PENDING, format_time(self.now()))
        self._pending_erasure = bool(receipt["pending"])
        return receipt

    def settle_erasure(self) -> bool:
        """Finish a pending erasure (a purge or a user's erasure whose scrub a reader held
        back: its text may still be in the WAL or a dead row) if no reader holds it now.
        Whether none is pending afterwards. Salience retries by itself: after the next write
        of any process that knows, and every few seconds in a server."""
        since = self._store.get_meta(ERASURE_PENDING)
        if since is None:
            self._pending_erasure = False
            return True
        receipt = self._store.scrub(again=True)
        if _blocked(receipt):
            self._pending_erasure = True
            return False
        with self._store.transaction():
            self._store.set_meta(ERASURE_PENDING, None)
            self._audit("erase_completed", None, "system", None, pending_since=since)
        self._pending_erasure = False
        return True

    def _settle_after_write(self) -> None:
        """After a write: finish a pending erasure this engine knows of (it looks once)."""
        if self._pending_erasure is not False:
            self.settle_erasure()


ERASURE_PENDING = "erasure_pending"
"""The store's meta key: since when an erasure waits for a reader to let go of old text."""
PENDING_NOTE = (
    "erasure pending: another process holds a read of the store's files, which still hold "
    "the text; it goes when that reader closes (salience stats shows it; salience forget "
    "--purge --wait waits for it)"
)


def _blocked(receipt: dict[str, int]) -> bool:
    """Whether a scrub left old text behind for a reader (SQLite: the WAL could not be
    truncated; PostgreSQL: a transaction older than the VACUUM was open)."""
    return receipt.get("wal_truncated", 1) == 0 or receipt.get("readers_open", 0) > 0
