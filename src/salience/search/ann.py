"""An approximate nearest-neighbour index for large stores (the ``ann`` extra: usearch).

HNSW over int8-quantised vectors, kept beside the database (``salience.db.usearch`` plus a
small JSON sidecar naming the vector state and row order it was built from). It is mapped
(read-only, copied into memory on the first write) when the sidecar matches the store, rebuilt
from the vectors otherwise, and always written to a temporary file
first and renamed into place, so a crash never leaves a half-written index behind. Once open
it follows every write (one insert each), and is saved when the engine closes.

A rebuild of a large store (from :attr:`UsearchIndex.background_from` vectors: about a
minute per 100k on two cores) runs on a thread of its own: until it is done, recall searches
exactly (:mod:`salience.search.coarse`, ~10x slower at 1M, never minutes), writes made
meanwhile are queued and added when it is, and then the index is used and saved. No query
waits for a build.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import threading
import weakref
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Protocol

import numpy as np
import numpy.typing as npt

from salience.errors import ConfigError
from salience.search import saved

CONNECTIVITY = 16
EXPANSION_ADD = 128
EXPANSION_SEARCH = 96

ONE_THREAD_UP_TO = 10_000
"""Builds and batch adds of up to this many rows run on one thread. usearch adding on several
threads at once leaves some rows unreachable from the graph (never found, not even by their own
vector): measured on random unit vectors, 0.8 of 100 and 2.9 of 1,000 rows per build on average,
and none on one thread, whose builds are also identical run to run (the same store, the same
recall). One thread costs ~1.3-1.9x the time of two (5,000 x 384: 1.2-1.8 s against 0.9 s);
larger builds keep every core and lose fewer (6 of 20,000)."""


def _usearch() -> Any:
    # onnxruntime (the bundled embedder's runtime) must be loaded before usearch: importing
    # it after usearch crashes the process (SIGSEGV; usearch 2.26, onnxruntime 1.32, Linux
    # x86-64), which a new process whose first recall opened this index hit when it then
    # embedded the query.
    with contextlib.suppress(ImportError):
        import onnxruntime  # noqa: F401
    try:
        from usearch.index import Index
    except ImportError:
        raise ConfigError(
            "vector_index = 'usearch' needs the ann extra: pip install 'salience[ann]'"
        ) from None
    return Index


def _threads(rows: int, asked: int) -> int:
    """Threads to add ``rows`` rows on: one for small batches (see :data:`ONE_THREAD_UP_TO`),
    else what was ``asked`` (0: every core)."""
    return 1 if rows <= ONE_THREAD_UP_TO else asked


State = tuple[int, int, str]
"""The vector state an index reflects: the store's vector count and highest ``vseq``, and
the token of the row order (:class:`~salience.search.rows.VectorRows`): rows are keys."""

RowsOf = Callable[[Sequence[str]], npt.NDArray[np.intp]]
"""Row numbers of memory ids in a :class:`~salience.search.index.VectorIndex` (unknown ones
left out)."""


class ApproximateIndex(Protocol):
    """What :class:`~salience.search.index.VectorIndex` asks of an approximate index."""

    def attach(self, rows_of: RowsOf) -> None:
        """Learn how to turn memory ids into row numbers."""

    def usable(self, size: int) -> bool:
        """Whether to search approximately a store of ``size`` vectors (else exactly)."""

    def open(self, matrix: npt.NDArray[np.float32], state: State) -> None:
        """Start from every row."""

    def upsert(self, rows: npt.NDArray[np.intp], vectors: npt.NDArray[np.float32]) -> None:
        """Add or replace rows."""

    def mark(self, state: State) -> None:
        """Record the store state the index now reflects."""

    def search(self, query: npt.NDArray[np.float32], k: int) -> npt.NDArray[np.intp]:
        """Row numbers of about the ``k`` nearest vectors."""

    def save(self) -> None:
        """Persist what needs persisting."""

    def close(self) -> None:
        """Persist what needs persisting, and stop any work still running."""

    def discard(self) -> int:
        """Zero and delete what is kept on disk (after an erasure), and keep nothing until
        the index is opened again; how many files went."""


BUILD_CHUNK = 512
"""Rows added per call in a background build (~1 s on one core at 1M rows): how long
stopping it may take."""

_BUILDING: weakref.WeakSet[UsearchIndex] = weakref.WeakSet()


@atexit.register
def _stop_builds() -> None:
    """At exit, stop every background build: the interpreter must not shut down under a
    thread that is still inside usearch (it aborts)."""
    for index in list(_BUILDING):
        index.stop()


class UsearchIndex:
    """Rows of a :class:`~salience.search.vectors.VectorIndex`, searchable approximately."""

    background_from = 50_000
    """Rebuilds of this many vectors and more run on their own thread (see the module doc)."""

    def attach(self, rows_of: RowsOf) -> None:
        """Rows are the index's own keys: nothing to learn."""

    def usable(self, size: int) -> bool:
        """Whether to search it: always (it was asked for by name), unless it is being built
        or its build failed (recall then searches exactly)."""
        self._adopt()
        return self._builder is None and not self._failed

    def __init__(self, path: Path | None) -> None:
        self._path = path
        self._index: Any = None
        self._dims = 0
        self._dirty = False
        self._state: State = (0, 0, "")
        # A rebuild in the background: its thread, what it made (or how it failed), and the
        # writes made meanwhile (row numbers and vectors, added once it is done).
        self._builder: threading.Thread | None = None
        self._built: Any = None
        self._failure: BaseException | None = None
        self._pending: list[tuple[npt.NDArray[np.intp], npt.NDArray[np.float32]]] = []
        self._guard = threading.Lock()
        self._generation = 0  # a build started before the latest one reports nothing
        self._failed = False  # the last background build failed (e.g. out of memory)
        self._discarded = False  # see discard(): nothing is saved until the next open
        self._viewed = False  # the index is the saved file, mapped read-only (see open())

    @property
    def building(self) -> bool:
        """Whether a rebuild is running in the background (recall searches exactly)."""
        self._adopt()
        return self._builder is not None

    def wait(self, timeout: float | None = None) -> bool:
        """Wait for a background rebuild (benchmarks, tests); True when none is running."""
        builder = self._builder
        if builder is not None:
            builder.join(timeout)
        return not self.building

    @property
    def _sidecar(self) -> Path | None:
        return None if self._path is None else self._path.with_name(self._path.name + ".json")

    def _new(self, dims: int) -> Any:
        index_class = _usearch()
        return index_class(
            ndim=dims,
            metric="cos",
            dtype="i8",
            connectivity=CONNECTIVITY,
            expansion_add=EXPANSION_ADD,
            expansion_search=EXPANSION_SEARCH,
        )

    def open(self, matrix: npt.NDArray[np.float32], state: State) -> None:
        """Load the saved index if it was built from exactly this state, else build it (in
        the background from :attr:`background_from` rows)."""
        self.stop()  # (a background build still running ends first)
        self._pending, self._failed, self._discarded = [], False, False
        dims = int(matrix.shape[1]) if matrix.ndim == 2 else 0
        self._dims = dims
        sidecar = self._sidecar
        if self._path is not None and sidecar is not None and self._path.exists():
            try:
                saved = json.loads(sidecar.read_text(encoding="utf-8"))
                if tuple(saved["state"]) == state and saved["dims"] == dims:
                    # Mapped, not read: a search reads the pages it visits (a copy is made
                    # in memory on the first write: see _upsert).
                    index = self._new(dims)
                    index.view(str(self._path))
                    if len(index) == len(matrix):
                        self._index, self._state, self._dirty = index, state, False
                        self._viewed = True
                        return
            except (OSError, ValueError, KeyError, RuntimeError):
                pass  # unreadable or stale: rebuild below
        if len(matrix) >= self.background_from:
            self._rebuild_in_background(matrix, state)
        else:
            self.rebuild(matrix, state)

    def rebuild(self, matrix: npt.NDArray[np.float32], state: State) -> None:
        """Build from every row and save."""
        self.stop()  # (a background build still running ends first)
        self._pending, self._failed = [], False
        self._dims = int(matrix.shape[1]) if matrix.ndim == 2 and len(matrix) else self._dims
        self._index = self._new(self._dims) if self._dims else None
        self._viewed = False
        if self._index is not None and len(matrix):
            self._fill(self._index, matrix, _threads(len(matrix), 0))
        self._state = state
        self._dirty = True
        self.save()

    @staticmethod
    def _fill(index: Any, matrix: npt.NDArray[np.float32], threads: int, first: int = 0) -> None:
        """Add the rows of ``matrix`` as rows ``first``, ``first + 1``... (``threads``: 0 for
        all cores)."""
        keys = np.arange(first, first + len(matrix), dtype=np.uint64)
        index.add(keys, matrix, threads=threads)

    def _rebuild_in_background(self, matrix: npt.NDArray[np.float32], state: State) -> None:
        """Build from every row on a thread of its own (one core left for recall)."""
        self._dims = int(matrix.shape[1])
        self._index, self._state, self._built, self._failure = None, state, None, None
        self._viewed = False
        self._pending, self._failed = [], False
        self._generation += 1
        generation = self._generation
        index = self._new(self._dims)
        threads = max(1, (os.cpu_count() or 2) - 1)

        def build() -> None:
            failure: BaseException | None = None
            try:  # a chunk at a time, so that close() (or the process's exit) can stop it
                for first in range(0, len(matrix), BUILD_CHUNK):
                    if generation != self._generation:
                        return  # stopped, or another build started
                    chunk = matrix[first : first + BUILD_CHUNK]
                    self._fill(index, chunk, threads, first)  # (usearch lets go of the GIL)
            except BaseException as exc:  # e.g. out of memory: recall stays exact
                failure = exc
            with self._guard:
                if generation == self._generation:
                    self._built, self._failure = (None, failure) if failure else (index, None)

        self._builder = threading.Thread(target=build, name="salience-ann-build", daemon=True)
        _BUILDING.add(self)
        self._builder.start()

    def stop(self) -> None:
        """Stop a background build (it ends after the chunk it is adding, about a second):
        a process must not exit while native code still runs on its thread. The work is
        lost; the next process that opens the store builds again."""
        builder = self._builder
        if builder is None:
            return
        self._generation += 1
        self._builder, self._pending = None, []
        builder.join()
        _BUILDING.discard(self)

    def close(self) -> None:
        """Save what changed, and stop a build still running (see :meth:`stop`)."""
        self.save()
        self.stop()

    def discard(self) -> int:
        """Zero and delete the saved index and its sidecar (they may hold an erased memory's
        vector); nothing is saved again until the index is opened (the next refresh that
        reads the store whole rebuilds it without the erased rows)."""
        self.stop()
        self._discarded, self._dirty = True, False
        sidecar = self._sidecar
        if self._path is None or sidecar is None:
            return 0
        return sum(saved.discard(path) for path in (self._path, sidecar))

    def _adopt(self) -> None:
        """Take over a finished background build: add the writes queued meanwhile, save."""
        if self._builder is None:
            return
        with self._guard:
            built, failed = self._built, self._failure
            if built is None and failed is None:
                return  # still building
            pending, self._pending = self._pending, []
            self._built = self._failure = None
        self._builder = None
        _BUILDING.discard(self)
        if failed is not None:
            self._failed = True  # no index: recall stays exact; the next process tries again
            return
        self._index, self._viewed = built, False
        for rows, vectors in pending:
            self._upsert(rows, vectors)
        self._dirty = True
        self.save()

    def upsert(self, rows: npt.NDArray[np.intp], vectors: npt.NDArray[np.float32]) -> None:
        """Add rows, replacing any that are already there (a re-embedded memory)."""
        self._adopt()
        if self._builder is not None:
            with self._guard:
                if self._built is None and self._failure is None:
                    self._pending.append((rows.copy(), vectors.copy()))
                    return
            self._adopt()  # finished just now
        self._upsert(rows, vectors)

    def _upsert(self, rows: npt.NDArray[np.intp], vectors: npt.NDArray[np.float32]) -> None:
        if self._failed:
            return  # not searched: the next process builds it whole
        if self._index is None:
            self._dims = int(vectors.shape[1])
            self._index = self._new(self._dims)
        elif self._viewed:  # a mapped file cannot change: from now on, a copy in memory
            self._index, self._viewed = self._index.copy(), False
        keys = rows.astype(np.uint64)
        present = [k for k in keys.tolist() if k in self._index]
        if present:
            self._index.remove(present)
        self._index.add(keys, vectors, threads=_threads(len(keys), 0))
        self._dirty = True

    def mark(self, state: State) -> None:
        """Record the store state the index now reflects."""
        self._state = state

    def search(self, query: npt.NDArray[np.float32], k: int) -> npt.NDArray[np.intp]:
        """Row numbers of about the ``k`` nearest vectors."""
        self._adopt()
        if self._index is None or not len(self._index) or k <= 0:
            return np.zeros(0, dtype=np.intp)
        matches = self._index.search(query, min(k, len(self._index)))
        return np.asarray(matches.keys, dtype=np.intp)

    def save(self) -> None:
        """Write the index and its sidecar atomically (temporary file, then rename); nothing
        while a rebuild runs (a process that stops meanwhile leaves the next one to build)."""
        self._adopt()
        if (
            self._builder is not None
            or self._discarded
            or not self._dirty
            or self._path is None
            or self._index is None
        ):
            return
        sidecar = self._sidecar
        assert sidecar is not None
        temporary = self._path.with_name(self._path.name + ".tmp")
        self._index.save(str(temporary))
        os.replace(temporary, self._path)
        note = {"state": list(self._state), "dims": self._dims, "size": len(self._index)}
        sidecar_tmp = sidecar.with_name(sidecar.name + ".tmp")
        sidecar_tmp.write_text(json.dumps(note), encoding="utf-8")
        os.replace(sidecar_tmp, sidecar)
        self._dirty = False
