"""Access counts that never make a recall wait.

A profile that counts accesses (``bump_on_recall``) writes after each recall. When another
thread of the process is writing at that moment (a long import, say), the recall does not
wait for it: its counts are queued and written, in order, by a thread of their own as soon
as the store is free. Otherwise they are written at once, as before, so a single-threaded
caller sees the count right after the recall. :meth:`Touches.flush` (on close) writes what is
still queued.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime

from salience.errors import StoreError
from salience.stores.base import Store


class Touches:
    """One store's access counts, written now or, if a writer is busy, soon after."""

    def __init__(self, store: Store, ours: Touches | None = None, every: float = 0.0) -> None:
        self._store = store
        self._ours = ours  # a queue whose writes are short: never worth deferring for
        # ``later`` work waits this long to be written with what follows it, in one
        # transaction: each commit makes every reader's caches look at the store again.
        self._every = every
        self._due = threading.Event()  # set: write what is queued now (flush, close)
        self.writing = False  # this queue's thread holds the write lock now (see writes())
        self._queue: list[tuple[list[str], datetime] | Callable[[], object]] = []
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None

    def count(self, memory_ids: Sequence[str], now: datetime) -> None:
        """Count one access of each memory, without waiting for another thread's write."""
        ids = list(memory_ids)
        if not ids:
            return
        store = self._store
        ours = self._ours is not None and self._ours.writing
        if store.in_transaction() or ours or not store.writer_busy():
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

    @contextmanager
    def writes(self) -> Iterator[None]:
        """A transaction of this queue's thread: while it holds the lock, a count of the
        other queue (``ours``) waits for it rather than queueing (it is short)."""
        with self._store.transaction():
            self.writing = True
            try:
                yield
            finally:
                self.writing = False

    def later(self, write: Callable[[], object]) -> None:
        """Run ``write`` on the queue's thread, after what is queued (never on the caller's:
        the record of a recall is written after the recall has answered)."""
        with self._lock:
            self._queue.append(write)
            if self._thread is None:
                self._thread = threading.Thread(
                    target=self._drain, name="salience-touches", daemon=True
                )
                self._thread.start()

    def _drain(self) -> None:
        if self._every:
            self._due.wait(self._every)
        while True:
            with self._lock:
                if not self._queue:
                    self._thread = None
                    return
                batch, self._queue = self._queue, []
            if self._every and all(callable(item) for item in batch):
                try:
                    with self.writes():  # one commit for the batch
                        self._run(batch)
                except Exception as exc:  # the recalls have answered: say what was lost
                    _warn("%d records of recalls were not written: %s", len(batch), exc)
                continue
            self._run(batch)

    def _run(self, batch: list[tuple[list[str], datetime] | Callable[[], object]]) -> None:
        for item in batch:
            if callable(item):
                try:
                    item()
                except Exception as exc:  # the recall has answered: say what was lost
                    _warn("a record of a recall was not written: %s", exc)
                continue
            ids, now = item
            try:
                self._store.touch(ids, now)
            except StoreError as exc:  # the recall has answered; say what was not counted
                _warn("%d access counts were not recorded: %s", len(ids), exc)

    def flush(self) -> None:
        """Wait until every queued count is written."""
        while True:
            with self._lock:
                thread = self._thread
            if thread is None:
                self._due.clear()
                return
            self._due.set()
            thread.join()


def _warn(message: str, *args: object) -> None:
    """A warning on the ``salience`` logger (logging is imported only when one is said)."""
    import logging

    logging.getLogger("salience").warning(message, *args)
