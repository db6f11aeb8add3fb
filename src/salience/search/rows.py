"""Every vector of one store, held in memory and kept current, with session neighbours.

:class:`VectorRows` keeps every vector of a store in one NumPy matrix and brings itself up
to date before each look: vectors written since it last looked are appended (another
process's writes included: SQLite's ``data_version`` tells), and anything it cannot explain
(a purge, a re-embedding) makes it reload. It also knows each memory's session neighbours and
mixes a row's score with theirs; :class:`~salience.search.index.VectorIndex` searches it.
"""

from __future__ import annotations

import secrets
import threading
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from salience.embeddings.arrays import Matrix, Vector
from salience.errors import EmbedderError
from salience.search import coarse
from salience.search.ann import ApproximateIndex
from salience.search.rowids import RowIds, RowLookup, take
from salience.search.sessions import SessionRows
from salience.stores.base import Store
from salience.text import forget_cached_texts

LOAD_PAGE = 20_000
"""Vectors read from the store per query when loading (30 MB of MiniLM vectors)."""


class StoppedError(Exception):
    """A load told to stop (:attr:`VectorRows.stop`) stopped between two pages."""


class VectorRows(SessionRows):
    """Every vector of one store, in memory, with each memory's session neighbours."""

    def __init__(self, store: Store, ann: ApproximateIndex | None = None) -> None:
        self._store = store
        self._int8_build: coarse.Int8Build | None = None  # (see VectorIndex._int8_ready)
        self._ann = ann
        if ann is not None:
            ann.attach(self._rows_of)
        self._ann_ready = False
        self._marker: tuple[int, int] | None = None
        # One thread at a time looks at or changes the rows (see Vectors): the lock is held for
        # a whole search, so a refresh by another thread never changes rows being scored.
        self.guard = threading.RLock()
        self._held = False  # see Vectors.held(): set only by the thread holding ``guard``
        self._pages_read = 0  # by the last _load
        # False: never read the store whole again, say ``stale`` (see salience.search.warm).
        self.reloads, self.stale = True, False
        self.stop: threading.Event | None = None  # set: a load stops at its next page
        # New memories' vectors read but not yet appended (see pending): a write's look
        # scores them beside the rows, and a later refresh appends them, several at once.
        self._pending: tuple[list[str], Matrix] | None = None
        self._ahead: tuple[list[str], Matrix, int] | None = None  # (read: ids, rows, last vseq)
        self._reset()

    def _reset(self) -> None:
        self._ids = RowIds()
        self._sessions: list[str | None] = []
        self._row = RowLookup(self._ids)
        # Names this row order (a full load starts a new one): an approximate index saved by
        # row number is used only with rows in the same order (its state carries this).
        self._order = secrets.token_hex(8)
        self._matrix: Matrix = np.zeros((0, 0), dtype=np.float32)
        self._size = 0
        self._last_vseq = 0
        self._ahead = None
        self._neighbours: tuple[npt.NDArray[np.intp], npt.NDArray[np.intp]] | None = None
        self._last_in_session: dict[str, int] = {}
        self._mixed_norms: dict[float, npt.NDArray[np.float32]] = {}
        self._int8: coarse.Int8Rows | None = None  # built on first use
        self._stop_int8_build()
        self._unit = True  # every row written so far has unit length (and is finite)
        self._error_weights: dict[float, npt.NDArray[np.float32]] = {}
        self._residual_weights: dict[float, npt.NDArray[np.float32]] = {}
        self._unsettled: list[tuple[npt.NDArray[np.intp], int]] = []

    def __len__(self) -> int:
        with self.guard:
            self.refresh()
            return self._size

    def refresh(self) -> None:
        """Load what other writers (or this process) added since the last look."""
        with self.guard:
            if not self._held:
                self._refresh()

    def pending(self, most: int) -> tuple[list[str], Matrix] | None:
        """The vectors written since the last refresh, read and not appended: their memories'
        ids and rows, when they are all of new memories, of unit length, and at most
        ``most`` (none: the rows are current); else None, and a refresh must bring the rows
        up to date first (more of them, a memory deleted or embedded again, a first load).
        Under :attr:`guard`."""
        if self._marker is None or not self._size:
            return None
        if self._store.change_marker() == self._marker:
            return [], self._matrix[:0]
        count, highest = self._store.vector_state()
        added = count - self._size
        if highest <= self._last_vseq or not 0 < added <= most:
            return None  # (a delete or a re-embedding among them, or too many: caught up)
        # The ones read by the last look are read no more: only those after them.
        ids, vectors, after = self._ahead or ([], self._matrix[:0], self._last_vseq)
        more = added - len(ids)
        rows = self._store.vector_rows(after, more + 1) if more >= 0 and highest > after else []
        new = [r[1] for r in rows]
        dims = self._matrix.shape[1]
        if (
            more < 0
            or len(rows) != more  # (a write, a delete or a re-embedding since: caught up)
            or any(len(r[3]) != 4 * dims for r in rows)
            or len({*ids, *new}) != added
            or not self._row.isdisjoint(new)
        ):
            return None
        if rows:
            read = np.frombuffer(b"".join(r[3] for r in rows), dtype=np.float32)
            read = read.reshape(more, dims)
            norms = np.sqrt(np.einsum("ij,ij->i", read, read))
            if not bool(np.all(np.abs(norms - 1) <= coarse.UNIT_TOLERANCE)):
                return None
            ids, vectors = ids + new, np.concatenate((vectors, read))
            self._ahead = (ids, vectors, rows[-1][0])
        return ids, vectors

    def _resume(self) -> None:
        """Start from rows kept on disk, if any (see salience.search.mapped)."""

    def _refreshed(self, full: bool, touched: npt.NDArray[np.intp]) -> None:
        """Called after a refresh that read the store (``full``: read whole)."""

    def _refresh(self) -> None:
        self._pending = self._ahead = None  # (appended now, if still there)
        marker = self._store.change_marker()
        if marker == self._marker:
            return
        if self._marker is None and self._last_vseq == 0:
            self._resume()
        count, highest = self._store.vector_state()
        full = self._last_vseq == 0
        touched: npt.NDArray[np.intp] | None = None  # None: the store must be read whole again
        if highest == self._last_vseq:
            touched = np.zeros(0, dtype=np.intp)
        elif highest > self._last_vseq:  # (a lower highest: purged past what was read)
            touched, count, highest = self._caught_up(count, highest)
        if touched is None or self._size != count:  # deleted, re-embedded: start again
            forget_cached_texts()  # (purged or erased, perhaps by another process: a process
            # that only writes learns it here, its words leave this one's caches too)
            if self._kept_stale():
                return
            self._reset()
            touched, count, highest = self._caught_up(count, highest)
            full = True
        assert touched is not None  # (a first load never meets another size)
        if self._ann is not None:
            state = (count, highest, self._order)
            if full or not self._ann_ready:
                self._ann.open(self._matrix[: self._size], state)
                self._ann_ready = True
            elif touched.size:
                self._ann.upsert(touched, self._matrix[touched])
                self._ann.mark(state)
        self._marker = marker
        if full or touched.size:
            self._refreshed(full, touched)

    def _caught_up(self, count: int, highest: int) -> tuple[npt.NDArray[np.intp] | None, int, int]:
        """:meth:`_load` what was written since the last look (None: a vector of another length
        came), and the store's (count, highest vseq) that the rows held then match."""
        touched = self._load(count)
        # Read in several pages, the load may hold what was written or deleted meanwhile:
        # take the store's count again (one page is one read, which ``count`` preceded).
        if touched is not None and self._pages_read > 1:
            count, highest = self._store.vector_state()
            more = self._load(count) if highest > self._last_vseq else touched[:0]
            touched = None if more is None else np.concatenate([touched, more])
        return touched, count, highest

    def _kept_stale(self) -> bool:
        """Whether the store must be read whole again and this copy may not (it says so)."""
        self.stale = self.stale or not self.reloads
        return not self.reloads

    def close(self) -> None:
        """Persist the approximate index if it changed (and stop builds still running)."""
        with self.guard:
            self._stop_int8_build()
            if self._ann is not None and self._ann_ready:
                self._ann.close()

    def _stop_int8_build(self) -> None:
        build, self._int8_build = self._int8_build, None
        if build is not None:
            build.stop()

    def _load(self, count: int) -> npt.NDArray[np.intp] | None:
        """Append the vectors written since the last look, a page at a time (a whole store's
        rows at once held every vector twice more: 3 GB at 1M); returns the row numbers
        written, or None when the first new vector has another length than the loaded ones
        (nothing is appended then). ``count``: the store's number of vectors, room for which
        (and an eighth more) is made at once rather than by doubling."""
        touched: list[npt.NDArray[np.intp]] = []
        self._pages_read = 0
        while True:
            if self.stop is not None and self.stop.is_set():
                raise StoppedError("the load was stopped")
            rows = self._store.vector_rows(self._last_vseq, LOAD_PAGE)
            self._pages_read += 1
            if not rows:
                break
            if not touched and self._size and len(rows[0][3]) != 4 * self._matrix.shape[1]:
                return None
            touched.append(self._append(rows, reserve=count + count // 8))
            if len(rows) < LOAD_PAGE:
                break
        return np.concatenate(touched) if touched else np.zeros(0, dtype=np.intp)

    def _append(
        self, rows: Sequence[tuple[int, str, str | None, bytes]], reserve: int = 0
    ) -> npt.NDArray[np.intp]:
        """Add or overwrite rows (by vseq); returns the row numbers written. ``reserve``: how
        many rows to make room for if the matrix must grow (else it grows by half)."""
        if not rows:
            return np.zeros(0, dtype=np.intp)
        vectors = np.frombuffer(b"".join(r[3] for r in rows), dtype=np.float32)
        dims = vectors.size // len(rows)
        vectors = vectors.reshape(len(rows), dims)
        if self._matrix.shape[1] not in (0, dims):
            raise EmbedderError("the store holds vectors of two different lengths")
        needed = self._size + len(rows) + 1  # (a zero row always follows the last: see
        if needed > self._matrix.shape[0]:  # _inverse_norms)
            capacity = max(needed, reserve, self._matrix.shape[0] * 3 // 2, 64)
            grown = np.zeros((capacity, dims), np.float32)
            if self._size:
                grown[: self._size] = self._matrix[: self._size]
            self._matrix = grown
        first_new = self._size
        touched = self._place(rows, vectors)
        self._last_vseq = max(self._last_vseq, rows[-1][0])  # (rows come by vseq)
        norms = np.sqrt(np.einsum("ij,ij->i", vectors, vectors))
        if not bool(np.all(np.abs(norms - 1) <= coarse.UNIT_TOLERANCE)):
            self._unit = False  # (a NaN fails the test too)
            self._int8 = None
            self._stop_int8_build()
        elif self._int8 is not None:
            self._int8.update(self._matrix, touched)
        elif self._int8_build is not None:
            self._int8_build.touched.append(touched)
        self._follow(touched, first_new)
        return touched

    def _place(
        self, rows: Sequence[tuple[int, str, str | None, bytes]], vectors: Matrix
    ) -> npt.NDArray[np.intp]:
        """Write ``vectors`` (of ``rows``) at their memories' rows, new memories last."""
        row_of = self._row
        first_new = self._size
        ids = [r[1] for r in rows]
        if row_of.isdisjoint(ids) and len(set(ids)) == len(ids):  # all new: in bulk
            row_of.update(zip(ids, range(first_new, first_new + len(ids)), strict=True))
            self._ids.extend(ids)
            self._sessions.extend(r[2] for r in rows)
            self._size = len(self._ids)
            self._matrix[first_new : self._size] = vectors
            return np.arange(first_new, self._size, dtype=np.intp)
        written = []
        for (_, memory_id, session, _), at in zip(rows, row_of.find(ids), strict=True):
            if at is None:
                at = row_of.get(memory_id)  # (the same memory earlier in these rows)
            if at is None:
                at = row_of[memory_id] = len(self._ids)
                self._ids.append(memory_id)
                self._sessions.append(session)
            written.append(at)
        self._size = len(self._ids)
        touched = np.array(written, dtype=np.intp)
        if len(set(written)) == len(written):
            self._matrix[touched] = vectors
        else:  # one memory twice: its later vector wins, as when written one by one
            for at, vector in zip(written, vectors, strict=True):
                self._matrix[at] = vector
        return touched

    def similarities(self, query: Vector, neighbour_weight: float = 0.0) -> Matrix:
        """Cosine similarity of ``query`` to every row (row order = :meth:`ids`).

        With ``neighbour_weight`` w, each memory is represented by
        ``normalise(e_i + w * (e_before + e_after))`` within its session: a turn of a
        conversation carries some of the context around it.
        """
        self.refresh()
        return self._scores(query, neighbour_weight)

    def _scores(self, query: Vector, neighbour_weight: float) -> Matrix:
        """:meth:`similarities` of the rows as loaded now (no refresh)."""
        if self._size == 0:
            return np.zeros(0, dtype=np.float32)
        return self._mix(self._matrix[: self._size] @ query, neighbour_weight)

    def neighbours(self, memory_ids: Sequence[str]) -> dict[str, tuple[str | None, str | None]]:
        """The memories written just before and after each one in its session (None: none)."""
        self.refresh()
        before, after = self._session_neighbours()
        rows_of = zip(memory_ids, self._row.find(memory_ids), strict=True)
        found = [(i, r) for i, r in rows_of if r is not None]
        if not found:
            return {}
        rows = [r for _, r in found]
        sides = before[rows].tolist() + after[rows].tolist()  # (-1: no neighbour)
        names = iter(take(self._ids, [x for x in sides if x >= 0]))
        named = [next(names) if x >= 0 else None for x in sides]
        n = len(found)
        return {i: (named[k], named[n + k]) for k, (i, _) in enumerate(found)}

    def gathered(self, memory_ids: Sequence[str]) -> tuple[Matrix, npt.NDArray[np.bool_]]:
        """The stored vectors of those memories, a row each in the order given (zeros for
        one that has none, by one gather), and which have one."""
        self.refresh()
        rows = self._row.rows_of(memory_ids)
        known = rows >= 0
        if known.all():  # (the usual: one gather, no zeros to write first)
            every: Matrix = self._matrix[rows]
            return every, known
        found: Matrix = np.zeros((len(rows), self._matrix.shape[1]), np.float32)
        found[known] = self._matrix[rows[known]]
        return found, known

    def stored(self, memory_ids: Sequence[str]) -> dict[str, Vector]:
        """The stored vector of each of those memories that has one."""
        found, known = self.gathered(memory_ids)
        return {i: found[n] for n, i in enumerate(memory_ids) if known[n]}

    def _rows_of(self, memory_ids: Sequence[str]) -> npt.NDArray[np.intp]:
        """Row numbers of those ids that are loaded (in the order given)."""
        rows = self._row.rows_of(memory_ids)
        return rows[rows >= 0]

    def ids(self) -> list[str]:
        """Memory ids in row order."""
        self.refresh()
        return list(self._ids)

    def row_ids(self) -> RowIds:
        """The rows' ids as loaded now, without those pending: the same object, appended to,
        until the rows are read whole again (no refresh)."""
        return self._ids

    def loaded_ids(self) -> Sequence[str]:
        """Memory ids in row order as loaded now (no refresh), then those :attr:`_pending`."""
        return self._ids if self._pending is None else self._ids.joined(self._pending[0])
