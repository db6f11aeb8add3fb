"""A server's copy of a PostgreSQL store's vectors, loaded while PostgreSQL's index answers.

From ``SALIENCE_PGVECTOR_FROM`` vectors a PostgreSQL store is searched by its HNSW index
(:mod:`salience.search.pgvector`): a process's first recall reads a few hundred vectors, not
the store. But every recall then reads its candidates' and their neighbours' vectors from the
database (about 1,150 at 100k): 20.8 ms p50 there, where exact search in memory takes 6.1 ms
(``bench/scale.py --store URL``; docs/development.md). So a process that answers
many requests (a server: :meth:`~salience.engine.core.EngineCore.long_running`) loads the
vectors into an index of its own, page by page on a thread of its own, while the HNSW index
goes on answering; once every vector and the int8 copy are in memory, recall searches them
exactly, as below the threshold, and the copy follows writes as any in-memory index does.

Only when the copy fits ``SALIENCE_PGVECTOR_WARM_MB`` (float32 and int8 rows, ids and
neighbours: about 2 KB a MiniLM vector), checked before loading and at every search: a store
that outgrows it goes back to the HNSW index. A change the copy cannot follow without reading
the store whole again (a deletion, a re-embedding, an erasure) drops it at the next search,
which asks the HNSW index, and a new copy is loaded meanwhile. A load that fails leaves the
HNSW index answering; this process does not try again.
"""

from __future__ import annotations

import threading

from salience.search.index import VectorIndex
from salience.stores.base import Store

BYTES_PER_DIMENSION = 5  # a float32 row and its int8 copy
BYTES_PER_VECTOR = 160  # its id, session, neighbours, scales and norms (about)


def footprint(count: int, dims: int) -> int:
    """The bytes an in-memory copy of ``count`` vectors of ``dims`` dimensions takes (about)."""
    return count * (dims * BYTES_PER_DIMENSION + BYTES_PER_VECTOR)


class Warming:
    """The in-memory copy of one store's vectors: loaded on a thread, then searched."""

    def __init__(self, store: Store, budget: int) -> None:
        self._store = store
        self.budget = budget  # bytes
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._loaded: VectorIndex | None = None  # (set by the loading thread, when done)
        self.index: VectorIndex | None = None  # the copy in use
        self.failure: Exception | None = None
        self.loads = 0  # loads started (one, unless a copy was dropped)

    def start(self, count: int, dims: int) -> None:
        """Start loading a copy, unless one is loading or in use, it would not fit, or a load
        failed (call while the HNSW index answers)."""
        if self._thread is not None or self.index is not None or self.failure is not None:
            return
        if self._stop.is_set() or not 0 < footprint(count, dims) <= self.budget:
            return
        self.loads += 1
        self._thread = threading.Thread(target=self._load, name="salience-vectors-warm")
        self._thread.daemon = True  # (a process that exits does not wait for a copy)
        self._thread.start()

    def _load(self) -> None:
        index = VectorIndex(self._store)
        index.stop = self._stop
        try:
            index.prepare()
        except Exception as exc:  # (best effort: the HNSW index goes on answering)
            self.failure = exc
            return
        index.reloads, index.stop = False, None
        self._loaded = index

    def wait(self, timeout: float | None = None) -> bool:
        """Wait for a load running (if any): whether none is running now."""
        thread = self._thread
        if thread is not None:
            thread.join(timeout)
            return not thread.is_alive()
        return True

    def current(self, guard: threading.RLock) -> VectorIndex | None:
        """The copy to search, brought up to date and sharing ``guard`` (call holding it); None
        while it loads, or when it was dropped (stale, or over the budget) just now."""
        loaded = self._loaded
        if loaded is not None:
            self._loaded, self._thread = None, None
            loaded.guard = guard  # (its own lock was this thread's alone: the load is done)
            self.index = loaded
        index = self.index
        if index is None:
            return None
        index.refresh()
        if index.stale or footprint(*index.shape) > self.budget:
            self.drop()
            return None
        return index

    def drop(self) -> None:
        """Forget the copy in use (the next search that asks the HNSW index loads another)."""
        self.index = None

    def close(self) -> None:
        """Stop a load still running (at its next page) and wait for it."""
        self._stop.set()
        thread = self._thread
        if thread is not None:
            thread.join()
        self.index = self._loaded = None
