"""Vector search where the vectors are: PostgreSQL's HNSW index (pgvector), for large stores.

The index lives in the database (:mod:`salience.stores.postgres.vectors`): every process on
every host shares it, and every write extends it, so nothing is built here and no query waits
for a build. Nor is any vector loaded that a query does not score: a process's first search
of a store of a million vectors reads about two hundred of them, not the million (reading
them all took 96-129 s). Below ``threshold`` vectors a store is searched exactly in memory
instead (:class:`~salience.search.index.VectorIndex`: faster there, and exact).

Candidates come back by the plain cosine of their own vectors, ``2k`` of them and at least
64; they are scored here as the in-memory index scores rows, session-neighbour mixing
included: each memory's neighbours are the memories written just before and after it in its
session (by ``vseq``, the order a process that reads the store whole puts them in), and the
arithmetic is the in-memory index's, step for step, so the scores are the same floats.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Sequence
from typing import Protocol

import numpy as np
import numpy.typing as npt

from salience.embeddings.arrays import Matrix, Vector
from salience.stores.base import Store

EF_SEARCH = 100  # HNSW's candidate list at query time (pgvector's default is 40)
KEEP = 20_000  # vectors read and kept between searches (30 MB of MiniLM's), at most
Rows = npt.NDArray[np.intp]


class NearestStore(Protocol):
    """What a store with its own nearest-neighbour index answers (PostgresStore)."""

    def nearest(self, vector: bytes, k: int, ef_search: int = EF_SEARCH) -> list[str]: ...

    def vector_places(
        self, memory_ids: Sequence[str]
    ) -> list[tuple[str, int, str | None, str | None]]: ...

    def vector_version(self) -> tuple[int, int, int]: ...


class Seen(Sequence[str]):
    """The memory ids of one search's rows: rows are numbered as candidates come, and the
    length is the store's (a caller that has asked for every row has seen everything)."""

    def __init__(self, total: int) -> None:
        self.ids: list[str] = []
        self.total = total

    def __len__(self) -> int:
        return self.total

    def __getitem__(self, row: int) -> str:  # type: ignore[override]
        return self.ids[row]

    def __iter__(self) -> Iterator[str]:
        return iter(self.ids)


class PgvectorSearch:
    """The vector index of a PostgreSQL store from ``threshold`` vectors on (see the module)."""

    def __init__(self, store: Store, threshold: int, guard: threading.RLock) -> None:
        if getattr(store, "nearest", None) is None:
            raise TypeError("PgvectorSearch needs a store with a nearest() search")
        self._store = store
        self._nearest: NearestStore = store  # type: ignore[assignment]
        self._threshold = threshold
        self.guard = guard
        self._held = False  # (see Vectors.held)
        self._marker: object = None
        self._count = 0
        self._seen = Seen(0)
        # The vectors read, as rows of one matrix; row 0 stays zero (no neighbour).
        self._data: Matrix = np.zeros((1, 0), dtype=np.float32)
        self._row: dict[str, int] = {}
        self._places: dict[str, tuple[int, str | None, str | None]] = {}

    def usable(self) -> bool:
        """Whether the store holds ``threshold`` vectors or more (asked once per change)."""
        self.refresh()
        return self._count >= self._threshold

    def refresh(self) -> None:
        """Learn the store's vector count, and forget what was read if a vector was written
        or deleted, or a memory changed its session, since (other writes, such as the
        record of each recall, leave it: vectors are read again only when they changed)."""
        with self.guard:
            if self._held:
                return
            version = self._nearest.vector_version()
            if version != self._marker:
                self._count = version[0]
                self._forget()
                self._marker = version

    def _forget(self) -> None:
        self._data = np.zeros((1, self._data.shape[1]), dtype=np.float32)
        self._row.clear()
        self._places.clear()

    def __len__(self) -> int:
        self.refresh()
        return self._count

    @property
    def counted(self) -> int:
        """The store's number of vectors at the last look (no query)."""
        return self._count

    def close(self) -> None:
        """Nothing to persist: the index is in the database."""

    def ranked(
        self, query: Vector, neighbour_weight: float = 0.0, floor: float = -np.inf
    ) -> Callable[[int], tuple[Rows, Matrix]]:
        """For any ``k``: the best ``k`` of the index's candidates for ``query`` (``2k``, at
        least 64), as rows of :meth:`loaded_ids`, scored exactly, best first (``floor``: as
        :meth:`VectorIndex.ranked`'s, which PostgreSQL's index does not use)."""
        self.refresh()
        if len(self._row) > KEEP:  # (what was read stays until a write, within bounds)
            self._forget()
        self._seen = Seen(self._count)
        return lambda k: self._best(query, k, neighbour_weight)

    def nearby(self, query: Vector, floor: float = -np.inf) -> Callable[[int], tuple[Rows, Matrix]]:
        """:meth:`ranked`: PostgreSQL's index already looks at a few candidates only."""
        return self.ranked(query, floor=floor)

    def loaded_ids(self) -> Sequence[str]:
        """The ids of the rows the last :meth:`ranked` gave (and will give)."""
        return self._seen

    def _best(self, query: Vector, k: int, weight: float) -> tuple[Rows, Matrix]:
        if k <= 0:
            return np.zeros(0, dtype=np.intp), np.zeros(0, dtype=np.float32)
        vector = np.ascontiguousarray(query, dtype="<f4").tobytes()
        ids = self._nearest.nearest(vector, max(2 * k, 64), max(EF_SEARCH, 2 * k))
        present = self._read(ids)
        ids = [i for i in ids if i in present]  # (deleted meanwhile: none)
        seen = self._seen
        known = {memory_id: row for row, memory_id in enumerate(seen.ids)}
        rows = []
        for memory_id in ids:
            if memory_id not in known:
                known[memory_id] = len(seen.ids)
                seen.ids.append(memory_id)
            rows.append(known[memory_id])
        scores = self._mixed(ids, query, weight, product=True)
        vseqs = np.array([self._places[i][0] for i in ids], dtype=np.int64)
        order = np.lexsort((vseqs, -scores))[:k]  # (ties: the in-memory index's row order)
        return np.array(rows, dtype=np.intp)[order], scores[order]

    def scores_of(self, rows: Rows, query: Vector, weight: float) -> Matrix:
        """Scores of rows of the last :meth:`ranked` for another query, mixed as there."""
        ids = [self._seen.ids[r] for r in rows.tolist()]
        self._read(ids)
        return self._mixed(ids, query, weight, product=False)

    def _mixed(self, ids: list[str], query: Vector, weight: float, *, product: bool) -> Matrix:
        """Each memory's score, mixed with its session neighbours' as VectorIndex mixes it
        (``product``: as its approximate search computes, else as its re-scoring does)."""
        own = self._data[self._rows(ids)]
        if weight <= 0:
            if product:
                plain: Matrix = own @ query
                return plain
            alone: Matrix = np.einsum("ij,j->i", own, query)
            return alone
        before = self._rows([self._places[i][1] for i in ids])
        after = self._rows([self._places[i][2] for i in ids])
        if product:  # (VectorIndex._approximate)
            scores = own @ query
            mixed = scores + np.float32(weight) * (
                self._side(before, query) + self._side(after, query)
            )
        else:  # (VectorIndex._rescore)
            mixed = self._dots(before, query)
            mixed += self._dots(after, query)
            mixed *= np.float32(weight)
            mixed += np.einsum("ij,j->i", own, query)
        result: Matrix = mixed * self._inverse_norms(own, before, after, weight)
        return result

    def _side(self, rows: Rows, query: Vector) -> Matrix:
        """As VectorIndex._approximate's ``side``: the neighbours' scores (0: none)."""
        out = np.zeros(len(rows), dtype=np.float32)
        ok = rows > 0
        out[ok] = self._data[rows[ok]] @ query
        return out

    def _dots(self, rows: Rows, query: Vector) -> Matrix:
        """As VectorIndex._rescore's ``own``: each neighbour's score by einsum (0: none)."""
        scores: Matrix = np.einsum("ij,j->i", self._data[rows], query)
        scores[rows == 0] = 0.0
        return scores

    def _inverse_norms(self, own: Matrix, before: Rows, after: Rows, weight: float) -> Matrix:
        """1 / |e + w e_before + w e_after| (1 where 0), as VectorIndex._inverse_norms makes
        them, row by row."""
        scale = np.float32(weight)
        mixed = own.copy()
        for rows in (before, after):
            other = self._data[rows]
            other *= scale
            mixed += other
        norms = np.linalg.norm(mixed, axis=1)
        norms[norms == 0] = 1.0
        inverse: Matrix = (1.0 / norms).astype(np.float32)
        return inverse

    def _rows(self, ids: Sequence[str | None]) -> Rows:
        """Rows of :attr:`_data` holding the vectors of ``ids`` (0, a zero row: None, or a
        vector deleted between the two reads)."""
        row = self._row
        return np.array([row.get(i, 0) if i is not None else 0 for i in ids], dtype=np.intp)

    def _append(self, ids: list[str], vectors: Matrix) -> None:
        """Keep ``vectors`` as rows of :attr:`_data` (room grows by half)."""
        size = len(self._row) + 1
        if self._data.shape[1] != vectors.shape[1]:  # (the first read: the width)
            self._row.clear()
            size = 1
            self._data = np.zeros((1, vectors.shape[1]), dtype=np.float32)
        if size + len(ids) > len(self._data):
            rows = max(size + len(ids), len(self._data) * 3 // 2)
            grown = np.zeros((rows, vectors.shape[1]), dtype=np.float32)
            grown[:size] = self._data[:size]
            self._data = grown
        self._data[size : size + len(ids)] = vectors
        self._row.update(zip(ids, range(size, size + len(ids)), strict=True))

    def _read(self, ids: Sequence[str]) -> set[str]:
        """Read the places (vseq, session neighbours) of ``ids`` and the vectors of them and
        their neighbours, where not read yet; the ids that have a vector."""
        wanted = [i for i in dict.fromkeys(ids) if i not in self._places]
        if wanted:
            places = self._nearest.vector_places(wanted)
            for memory_id, vseq, before, after in places:
                self._places[memory_id] = (vseq, before, after)
            missing = {i for p in places for i in (p[0], p[2], p[3]) if i is not None}
            found = self._store.vectors_of(sorted(missing - self._row.keys()))
            if found:
                vectors = np.frombuffer(b"".join(found.values()), dtype=np.float32)
                vectors = vectors.reshape(len(found), -1)
                self._append(list(found), vectors)
        return {i for i in ids if i in self._places}

    def neighbours(self, memory_ids: Sequence[str]) -> dict[str, tuple[str | None, str | None]]:
        """The memories written just before and after each one in its session (None: none)."""
        self.refresh()
        present = self._read(memory_ids)
        return {i: self._places[i][1:] for i in memory_ids if i in present}

    def stored(self, memory_ids: Sequence[str]) -> dict[str, Vector]:
        """The stored vector of each of those memories that has one."""
        found = self._store.vectors_of(list(memory_ids))
        return {
            i: np.frombuffer(found[i], dtype=np.float32).copy() for i in memory_ids if i in found
        }

    def gathered(self, memory_ids: Sequence[str]) -> tuple[Matrix, npt.NDArray[np.bool_]]:
        """As :meth:`salience.search.rows.MappedRows.gathered`, read from the store."""
        found = self.stored(memory_ids)
        known = np.array([i in found for i in memory_ids], dtype=np.bool_)
        if not found:
            return np.zeros((len(memory_ids), 0), dtype=np.float32), known
        width = len(next(iter(found.values())))
        out = np.zeros((len(memory_ids), width), dtype=np.float32)
        for n, memory_id in enumerate(memory_ids):
            if memory_id in found:
                out[n] = found[memory_id]
        return out, known
