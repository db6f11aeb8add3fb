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
        self._vectors: dict[str, Vector] = {}
        self._places: dict[str, tuple[int, str | None, str | None]] = {}
        self._inverse: dict[tuple[str, float], np.float32] = {}

    def usable(self) -> bool:
        """Whether the store holds ``threshold`` vectors or more (asked once per change)."""
        self.refresh()
        return self._count >= self._threshold

    def refresh(self) -> None:
        """Learn the store's vector count, and forget what was read if anyone wrote since."""
        with self.guard:
            if self._held:
                return
            marker = self._store.change_marker()
            if marker != self._marker:
                self._count = self._store.vector_state()[0]
                self._forget()
                self._marker = marker

    def _forget(self) -> None:
        self._vectors.clear()
        self._places.clear()
        self._inverse.clear()

    def __len__(self) -> int:
        return self._count

    def close(self) -> None:
        """Nothing to persist: the index is in the database."""

    def ranked(
        self, query: Vector, neighbour_weight: float = 0.0
    ) -> Callable[[int], tuple[Rows, Matrix]]:
        """For any ``k``: the best ``k`` of the index's candidates for ``query`` (``2k``, at
        least 64), as rows of :meth:`loaded_ids`, scored exactly, best first."""
        self.refresh()
        if len(self._vectors) > KEEP:  # (what was read stays until a write, within bounds)
            self._forget()
        self._seen = Seen(self._count)
        return lambda k: self._best(query, k, neighbour_weight)

    def loaded_ids(self) -> Sequence[str]:
        """The ids of the rows the last :meth:`ranked` gave (and will give)."""
        return self._seen

    def _best(self, query: Vector, k: int, weight: float) -> tuple[Rows, Matrix]:
        if k <= 0:
            return np.zeros(0, dtype=np.intp), np.zeros(0, dtype=np.float32)
        vector = np.ascontiguousarray(query, dtype="<f4").tobytes()
        ids = self._nearest.nearest(vector, max(2 * k, 64), max(EF_SEARCH, 2 * k))
        ids = [i for i in ids if i in self._read(ids)]  # (deleted meanwhile: none)
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
        dims = len(query)
        own = self._matrix(ids, dims)
        if weight <= 0:
            if product:
                plain: Matrix = own @ query
                return plain
            alone: Matrix = np.einsum("ij,j->i", own, query)
            return alone
        before = [self._places[i][1] for i in ids]
        after = [self._places[i][2] for i in ids]
        if product:
            scores = own @ query
            mixed = scores + np.float32(weight) * (
                self._side(before, query) + self._side(after, query)
            )
        else:
            mixed = self._dots(before, query, dims)
            mixed += self._dots(after, query, dims)
            mixed *= np.float32(weight)
            mixed += np.einsum("ij,j->i", own, query)
        inverse = np.array([self._inverse_norm(i, weight, dims) for i in ids], dtype=np.float32)
        result: Matrix = mixed * inverse
        return result

    def _side(self, neighbours: list[str | None], query: Vector) -> Matrix:
        """As VectorIndex._approximate's ``side``: the neighbours' scores (0: none)."""
        out = np.zeros(len(neighbours), dtype=np.float32)
        present = [n for n in neighbours if n is not None]
        if present:
            ok = np.array([n is not None for n in neighbours])
            out[ok] = self._matrix(present, len(query)) @ query
        return out

    def _dots(self, neighbours: list[str | None], query: Vector, dims: int) -> Matrix:
        """As VectorIndex._rescore's ``own``: each neighbour's score by einsum (0: none)."""
        matrix = self._matrix([n if n is not None else "" for n in neighbours], dims)
        scores: Matrix = np.einsum("ij,j->i", matrix, query)
        scores[[n is None for n in neighbours]] = 0.0
        return scores

    def _inverse_norm(self, memory_id: str, weight: float, dims: int) -> np.float32:
        """1 / |e + w e_before + w e_after| (1 where 0), as VectorIndex._inverse_norms."""
        key = (memory_id, weight)
        found = self._inverse.get(key)
        if found is None:
            _, before, after = self._places[memory_id]
            mixed = self._matrix([memory_id], dims)
            for neighbour in (before, after):
                other = self._matrix([neighbour or ""], dims)
                other *= np.float32(weight)
                mixed += other
            norms = np.linalg.norm(mixed, axis=1)
            norms[norms == 0] = 1.0
            found = self._inverse[key] = np.float32((1.0 / norms)[0])
        return found

    def _matrix(self, ids: Sequence[str], dims: int) -> Matrix:
        """The vectors of ``ids`` as rows ("": a zero row)."""
        zero = np.zeros(dims, dtype=np.float32)
        if not ids:
            return np.zeros((0, dims), dtype=np.float32)
        return np.stack([self._vectors.get(i, zero) if i else zero for i in ids])

    def _read(self, ids: Sequence[str]) -> set[str]:
        """Read the places (vseq, session neighbours) of ``ids`` and the vectors of them and
        their neighbours, where not read yet; the ids that have a vector."""
        wanted = [i for i in dict.fromkeys(ids) if i not in self._places]
        if wanted:
            places = self._nearest.vector_places(wanted)
            for memory_id, vseq, before, after in places:
                self._places[memory_id] = (vseq, before, after)
            missing = {i for p in places for i in (p[0], p[2], p[3]) if i is not None}
            missing -= self._vectors.keys()
            if missing:
                for memory_id, data in self._store.vectors_of(sorted(missing)).items():
                    self._vectors[memory_id] = np.frombuffer(data, dtype=np.float32)
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

    def vectors_of(self, memory_ids: Sequence[str]) -> Matrix:
        """The stored vectors of those memories that have one (in the order given)."""
        found = self.stored(memory_ids)
        rows = [found[i] for i in memory_ids if i in found]
        return np.stack(rows) if rows else np.zeros((0, 0), dtype=np.float32)
