"""Approximate vector search by PostgreSQL's HNSW index (pgvector), for large stores.

The index lives in the database (:mod:`salience.stores.postgres.vectors`): every process on
every host shares it, and every write extends it, so nothing is built here and no query waits
for a build. Below ``threshold`` vectors a store is searched exactly in memory instead (the
exact search is faster there, and exact). Candidates come back by the plain cosine of their
own vectors, ``2k`` of them and at least 64, and :class:`~salience.search.index.VectorIndex`
scores them exactly, session-neighbour mixing included, as it does usearch's.
"""

from __future__ import annotations

from typing import Protocol

import numpy as np
import numpy.typing as npt

from salience.search.ann import RowsOf, State

EF_SEARCH = 100  # HNSW's candidate list at query time (pgvector's default is 40)


class NearestStore(Protocol):
    """A store that can ask its own nearest-neighbour index (PostgresStore)."""

    def nearest(self, vector: bytes, k: int, ef_search: int = EF_SEARCH) -> list[str]: ...


class PgvectorIndex:
    """The :class:`~salience.search.ann.ApproximateIndex` over a PostgreSQL store's vectors."""

    def __init__(self, store: object, threshold: int) -> None:
        nearest = getattr(store, "nearest", None)
        if nearest is None:
            raise TypeError("PgvectorIndex needs a store with a nearest() search")
        self._store: NearestStore = store  # type: ignore[assignment]
        self._threshold = threshold
        self._rows_of: RowsOf | None = None

    def attach(self, rows_of: RowsOf) -> None:
        """Learn how to turn the memory ids the database returns into row numbers."""
        self._rows_of = rows_of

    def usable(self, size: int) -> bool:
        """From ``threshold`` vectors on."""
        return size >= self._threshold

    def open(self, matrix: npt.NDArray[np.float32], state: State) -> None:
        """Nothing to load: the index is in the database."""

    def upsert(self, rows: npt.NDArray[np.intp], vectors: npt.NDArray[np.float32]) -> None:
        """Nothing to add: the store's writes extend the index."""

    def mark(self, state: State) -> None:
        """Nothing to record."""

    def save(self) -> None:
        """Nothing to persist."""

    def close(self) -> None:
        """Nothing to persist or stop."""

    def discard(self) -> int:
        """Nothing kept on disk here (the index is in the database, erased with the rows)."""
        return 0

    def search(self, query: npt.NDArray[np.float32], k: int) -> npt.NDArray[np.intp]:
        """Row numbers of about the ``k`` nearest vectors (cosine)."""
        if k <= 0 or self._rows_of is None:
            return np.zeros(0, dtype=np.intp)
        vector = np.ascontiguousarray(query, dtype="<f4").tobytes()
        ids = self._store.nearest(vector, k, max(EF_SEARCH, k))
        return self._rows_of(ids)
