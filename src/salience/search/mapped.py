""":class:`~salience.search.rows.VectorRows` that start from the rows kept on disk
(:mod:`salience.search.saved`) and keep them there.

A new process maps the saved rows instead of reading every vector out of the store, then
catches up like a long-running one. Whoever reads many rows from the store (a first load, a
server following writes) saves them again, on a thread of its own: searches go on meanwhile.
"""

from __future__ import annotations

import contextlib
import threading
from pathlib import Path

import numpy as np
import numpy.typing as npt

from salience.errors import StoreError
from salience.search import coarse, saved
from salience.search.ann import ApproximateIndex
from salience.search.rowids import RowLookup
from salience.search.rows import VectorRows
from salience.stores.arrays import file_key
from salience.stores.base import COLUMNS_KEY, Store


class MappedRows(VectorRows):
    """Vector rows resumed from, and saved to, ``saved`` (None: kept in memory only)."""

    def __init__(
        self, store: Store, ann: ApproximateIndex | None = None, saved_at: Path | None = None
    ) -> None:
        self._saved_at = saved_at
        self._unsaved = 0  # rows read from the store since the last save
        # What the last save (or the file resumed) held besides the rows: whether the int8
        # copy and the session neighbours, and which mixing weights' norms.
        self._saved_parts: tuple[bool, bool, frozenset[float]] = (False, False, frozenset())
        self._saving: threading.Thread | None = None
        self._mapped = False
        super().__init__(store, ann)

    @property
    def mapped(self) -> bool:
        """Whether the rows in use were mapped from disk (not read from the store)."""
        return self._mapped

    def _reset(self) -> None:
        super()._reset()
        self._mapped = False

    def _resume(self) -> None:
        if self._saved_at is None:
            return
        key = self._store.get_meta(COLUMNS_KEY)
        if key is None:
            return
        snapshot = saved.load(self._saved_at, key)
        if snapshot is None:
            return
        self._ids, self._sessions = snapshot.ids, snapshot.sessions
        self._row = RowLookup(self._ids)
        self._matrix, self._size = snapshot.matrix, snapshot.size
        self._last_vseq, self._unit, self._order = snapshot.last_vseq, snapshot.unit, snapshot.order
        self._neighbours = snapshot.neighbours
        self._last_in_session = {}
        if snapshot.neighbours is not None:
            last = np.flatnonzero(snapshot.neighbours[1] < 0).tolist()
            sessions = snapshot.sessions
            self._last_in_session = {s: r for r in last if (s := sessions[r]) is not None}
        self._mixed_norms = snapshot.mixed_norms
        dims = int(snapshot.matrix.shape[1])
        if snapshot.int8 is not None and snapshot.unit and 0 < dims <= coarse.MAX_DIMENSIONS:
            self._int8 = coarse.Int8Rows.restored(*snapshot.int8)
        self._saved_parts = self._parts()
        self._unsaved = 0
        self._mapped = True

    def _refreshed(self, full: bool, touched: npt.NDArray[np.intp]) -> None:
        self._unsaved = self._size if full else self._unsaved + len(touched)
        self.keep()

    def _save_due(self) -> bool:
        if self._saved_at is None or self._store.read_only:
            return False
        if self._size < saved.SAVE_FROM:
            return False
        if self._unsaved >= max(saved.SAVE_AFTER, self._size // 64):
            return True
        int8, neighbours, weights = self._saved_parts
        now = self._parts()  # (something made since the last save: worth keeping)
        return (now[0] and not int8) or (now[1] and not neighbours) or not now[2] <= weights

    def _parts(self) -> tuple[bool, bool, frozenset[float]]:
        return self._int8 is not None, self._neighbours is not None, frozenset(self._mixed_norms)

    def keep(self, wait: bool = False) -> None:
        """Save the rows if enough were read from the store since the last save (or the int8
        copy was made since): on a thread of its own, or now with ``wait``. Best effort: a
        failure costs the next process a read of the store."""
        with self.guard:
            running = self._saving
            if running is not None and running.is_alive():
                if not wait:
                    return
                running.join()
            if not self._save_due():
                return
            key = self._store_key()
            if key is None:
                return
            assert self._saved_at is not None
            self._settle()  # (the neighbours and mixed norms saved follow every row)
            snapshot = saved.Snapshot(
                key=key,
                order=self._order,
                last_vseq=self._last_vseq,
                size=self._size,
                unit=self._unit,
                ids=self._ids,
                sessions=self._sessions[: self._size],
                matrix=self._matrix,
                neighbours=self._neighbours,
                mixed_norms=dict(self._mixed_norms),
                int8=None if self._int8 is None else self._int8.arrays(),
            )
            self._unsaved, self._saved_parts = 0, self._parts()
            # Rows written after this moment have higher vseqs than the snapshot's: a process
            # resuming it reads them again, so the thread may see them half-changed.
            thread = threading.Thread(
                target=_write, args=(self._saved_at, snapshot), name="salience-vectors-save"
            )
            self._saving = thread
            thread.start()
            if wait:
                thread.join()

    def _store_key(self) -> str | None:
        """The store's file key (made now if it has none yet), or None if it cannot say."""
        try:
            return file_key(self._store)
        except StoreError:
            return None

    def discard_saved(self) -> int:
        """Zero and delete the saved rows and approximate index (after an erasure: they hold
        its vectors); the next search that reads the store whole writes them again. How
        many files went."""
        with self.guard:
            if self._saving is not None:
                self._saving.join()
            # The rows held may have an erased memory's vector: the next look reads the store
            # whole (and saves that).
            self._reset()
            self._marker = None
            gone = self._ann.discard() if self._ann is not None else 0
            return gone + int(self._saved_at is not None and saved.discard(self._saved_at))

    def close(self) -> None:
        """Finish a save still running (and save what is due), then close as rows do."""
        with self.guard:
            self.keep(wait=True)
        super().close()


def _write(path: Path, snapshot: saved.Snapshot) -> None:
    with contextlib.suppress(OSError):
        saved.save(path, snapshot)
