"""Access counts that never make a recall wait.

A profile that counts accesses (``bump_on_recall``) writes after each recall. When another
thread of the process is writing at that moment (a long import, say), the recall does not
wait for it: its counts are queued and written, in order, by a thread of their own as soon
as the store is free. Otherwise they are written at once, as before, so a single-threaded
caller sees the count right after the recall. :meth:`Touches.flush` (on close) writes what is
still queued.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Sequence
from datetime import datetime

from salience.errors import StoreError
from salience.stores.base import Store

log = logging.getLogger("salience")


class Touches:
    """One store's access counts, written now or, if a writer is busy, soon after."""

    def __init__(self, store: Store) -> None:
        self._store = store
        self._queue: list[tuple[list[str], datetime]] = []
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None

    def count(self, memory_ids: Sequence[str], now: datetime) -> None:
        """Count one access of each memory, without waiting for another thread's write."""
        ids = list(memory_ids)
        if not ids:
            return
        store = self._store
        if store.in_transaction() or not store.writer_busy():
            with self._lock:
                queued = bool(self._queue)
            if not queued:  # (queued counts go first: the order of accesses is kept)
                store.touch(ids, now)
                return
        with self._lock:
            self._queue.append((ids, now))
            if self._thread is None:
                self._thread = threading.Thread(
                    target=self._drain, name="salience-touches", daemon=True
                )
                self._thread.start()

    def _drain(self) -> None:
        while True:
            with self._lock:
                if not self._queue:
                    self._thread = None
                    return
                batch, self._queue = self._queue, []
            for ids, now in batch:
                try:
                    self._store.touch(ids, now)
                except StoreError as exc:  # the recall has answered; say what was not counted
                    log.warning("%d access counts were not recorded: %s", len(ids), exc)

    def flush(self) -> None:
        """Wait until every queued count is written."""
        while True:
            with self._lock:
                thread = self._thread
            if thread is None:
                return
            thread.join()
