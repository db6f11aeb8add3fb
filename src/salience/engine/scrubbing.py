"""Erasure that always completes: a purge's or a user's erasure's scrub that a reader held
back (an open read of the SQLite file keeps the WAL, an older PostgreSQL snapshot keeps dead
rows) is marked pending in the store, said in the result and in ``salience stats``, and
finished as soon as the reader lets go: after the next write of a process that knows, every
few seconds in a server, and by ``salience forget --purge --wait``.

Every erasure also counts itself in the store (:data:`ERASURES`, in the erasure's transaction), so
that every other process forgets the erased words it keeps in caches
(:func:`salience.text.forget_cached_texts`): a server (HTTP or MCP) looks every
:data:`UPKEEP_EVERY_S` seconds (:meth:`Scrubbing.follow_erasures`), busy or idle."""

from __future__ import annotations

import logging
import threading
from collections.abc import Sequence

from salience.clock import format_time
from salience.engine.core import EngineCore
from salience.errors import SalienceError
from salience.text import forget_cached_texts

UPKEEP_EVERY_S = 2.0
"""How often a server (:meth:`Scrubbing.long_running`) retries an erasure a reader held back
and looks for another process's erasures."""
_UNSEEN = object()


class Scrubbing(EngineCore):
    """_scrubbed, settle_erasure, follow_erasures, and a server's upkeep."""

    _upkeep: threading.Thread | None = None
    _erasures_seen: object = _UNSEEN  # the store's count of erasures, as last read
    _erasures_marker: tuple[int, int] | None = None  # the store's change marker then

    def _mark_erased(self, memory_ids: Sequence[str]) -> None:
        """Inside an erasure's transaction: these memories were erased (a trace that
        surfaces one is never written afterwards), and the store counts one erasure more (the
        other processes forget what they keep of their words: :meth:`follow_erasures`)."""
        self._store.mark_erased(memory_ids)
        count = self._store.get_meta(ERASURES)
        self._store.set_meta(ERASURES, str(int(count or 0) + 1))

    def follow_erasures(self) -> bool:
        """Whether the store counts an erasure (by any process) since this engine last
        looked: then the words this process keeps in caches are forgotten. Reads the count
        only when the store has changed (its change marker); the first look only notes it."""
        marker = self._store.change_marker()
        if marker == self._erasures_marker:
            return False
        count = self._store.get_meta(ERASURES)
        self._erasures_marker = marker
        seen, self._erasures_seen = self._erasures_seen, count
        if seen is _UNSEEN or seen == count:
            return False
        forget_cached_texts()
        return True

    def long_running(self) -> None:
        """A server's process (see :meth:`EngineCore.long_running`): a thread of its own
        also finishes pending erasures and follows other processes' erasures, every
        :data:`UPKEEP_EVERY_S` seconds, until the engine closes."""
        super().long_running()
        with self._state_lock:
            if self._upkeep is not None:
                return
            self.follow_erasures()  # (what is counted now: nothing of it is held yet)
            self._upkeep = threading.Thread(
                target=self._keep_up, name="salience-upkeep", daemon=True
            )
            self._upkeep.start()
            self._threads.append(self._upkeep)  # (stopped and joined when the engine closes)

    def _keep_up(self) -> None:
        while not self._stopping.wait(UPKEEP_EVERY_S):
            try:
                self.follow_erasures()
                self.settle_erasure()
            except SalienceError:
                continue  # (a busy store, or closing: next time)
            except Exception:  # (never the end of the upkeep: said, and tried again)
                logging.getLogger("salience").exception("the store's upkeep failed")

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


ERASURES = "erasures"
"""The store's meta key: how many erasures (purges, users', spaces') it has seen."""
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
