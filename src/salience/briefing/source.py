"""The candidates of a user's briefing and of a recall's scoring: the local store's and every
mounted layer's :class:`~salience.briefing.snapshot.ColumnSnapshot`, read as one."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from salience.briefing.columns import Columns, Vocabularies, first_copies
from salience.briefing.policies import Candidates
from salience.briefing.snapshot import ColumnSnapshot
from salience.errors import StoreError
from salience.lazy import lazy_module
from salience.models import MemoryRecord, relabel
from salience.stores.base import MemoryFilter, Store

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    from salience.briefing.passing import Ahead
else:
    np = lazy_module("numpy")


def saved_columns(store: Store) -> Path | None:
    """Where a store's columns are kept between processes: beside its SQLite file (a
    PostgreSQL store's, an in-memory one's or a read-only one's: nowhere)."""
    location = store.location
    if store.read_only or "://" in location or location in ("", ":memory:"):
        return None
    return Path(location + ".columns")


class Mounted(Protocol):
    """What a briefing needs of a mounted layer: its name and its (read-only) store."""

    @property
    def name(self) -> str: ...  # the layer's name, carried in its memories' ``layer``

    @property
    def store(self) -> Store: ...  # the layer's store


class Vanished(StoreError):
    """A memory chosen for a briefing was deleted before it could be read; try again."""


class BriefingSource:
    """The candidates of a user's briefing: the local store's and every mounted layer's
    memories as one set of columns, records fetched from their own store when shown."""

    def __init__(self, store: Store, saved: Path | None = None) -> None:
        self._vocab = Vocabularies()
        self._local = ColumnSnapshot(store, self._vocab, saved=saved)
        self._layers: dict[str, ColumnSnapshot] = {}
        # Snapshots share one vocabulary: one thread at a time brings them up to date (the
        # columns they lend out are never changed afterwards, so using them needs no lock).
        self._lock = threading.Lock()

    def discard_saved(self) -> int:
        """:meth:`ColumnSnapshot.discard_saved` of the local store's columns."""
        return self._local.discard_saved()

    def local(self, user: str | None) -> Columns:
        """The local store's memories that are not forgotten: ``user``'s newest first, or
        every user's (None) in row order."""
        with self._lock:
            return self._local.view(user) if user is not None else self._local.everyone()

    def candidates(
        self, user: str, layers: Sequence[Mounted], now: datetime, spaces: tuple[str, ...] = ()
    ) -> Candidates:
        """Every memory of ``user`` (and of the spaces it reads: owner names) that is not
        forgotten, local first, each part newest first."""
        with self._lock:
            snapshots, parts = self._views(user, layers, spaces)
        parts = first_copies(parts)
        columns = parts[0]
        for part in parts[1:]:
            columns = columns.extended(part)
        starts = np.cumsum([0] + [len(p) for p in parts])
        every = MemoryFilter(as_of=now, include_superseded=True, include_forgotten=True)

        def fetch(rows: list[int]) -> list[MemoryRecord]:
            found: dict[int, MemoryRecord] = {}
            for index, (snapshot, part) in enumerate(zip(snapshots, parts, strict=True)):
                mine = [r for r in rows if starts[index] <= r < starts[index + 1]]
                ids = [str(part.ids[r - starts[index]]) for r in mine]
                records = {r.id: r for r in self._records_of(snapshot, ids, every)}
                for row, memory_id in zip(mine, ids, strict=True):
                    if memory_id not in records:
                        raise Vanished(f"memory {memory_id} was deleted during the briefing")
                    record = records[memory_id]
                    found[row] = record if index == 0 else relabel(record, snapshot.layer)
            return [found[row] for row in rows]

        return Candidates(columns, fetch)

    def _views(
        self, user: str, layers: Sequence[Mounted], spaces: tuple[str, ...] = ()
    ) -> tuple[list[ColumnSnapshot], list[Columns]]:
        """The snapshots of the local store and of ``layers`` (made on first use), and each
        one's view for ``user`` (call under ``self._lock``)."""
        for name in [
            n for n, s in self._layers.items() if s.store not in {x.store for x in layers}
        ]:
            del self._layers[name]
        snapshots = [self._local, *(self._snapshot(layer) for layer in layers)]
        return snapshots, [self._local.view(user, spaces), *(s.view(user) for s in snapshots[1:])]

    def _snapshot(self, layer: Mounted) -> ColumnSnapshot:
        """``layer``'s snapshot, made on first use (call under ``self._lock``)."""
        snapshot = self._layers.get(layer.name)
        if snapshot is None or snapshot.store is not layer.store:
            snapshot = self._layers[layer.name] = ColumnSnapshot(
                layer.store, self._vocab, layer.name
            )
        return snapshot

    def matching(
        self, memory_ids: Sequence[str], flt: MemoryFilter
    ) -> list[tuple[int, str]] | None:
        """:meth:`ColumnSnapshot.matching` of the local store."""
        with self._lock:
            return self._local.matching(memory_ids, flt)

    def ahead(self, flt: MemoryFilter) -> Ahead | None:
        """:meth:`ColumnSnapshot.ahead` of the local store."""
        with self._lock:
            return self._local.ahead(flt)

    def passing(
        self, seqs: npt.NDArray[np.int64], flt: MemoryFilter, limit: int
    ) -> tuple[list[int], list[str]] | None:
        """:meth:`ColumnSnapshot.passing` of the local store."""
        with self._lock:
            return self._local.passing(seqs, flt, limit)

    def rows(
        self, layer: Mounted | None, seqs: Sequence[int]
    ) -> tuple[Columns, npt.NDArray[np.intp]]:
        """:meth:`ColumnSnapshot.rows` of the local store (None) or of a mounted layer."""
        with self._lock:
            return (self._local if layer is None else self._snapshot(layer)).rows(seqs)

    def records(
        self, layer: Mounted | None, memory_ids: Sequence[str], flt: MemoryFilter
    ) -> list[MemoryRecord]:
        """:meth:`ColumnSnapshot.records` of the local store (None) or of a mounted layer."""
        with self._lock:
            snapshot = self._local if layer is None else self._snapshot(layer)
            return snapshot.records(memory_ids, flt)

    def _records_of(
        self, snapshot: ColumnSnapshot, memory_ids: Sequence[str], flt: MemoryFilter
    ) -> list[MemoryRecord]:
        with self._lock:  # (a look at the store may add to the vocabulary the snapshots share)
            return snapshot.records(memory_ids, flt)
