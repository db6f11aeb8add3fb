"""Embeddings beside the rows: writing them, and exact nearest-neighbour search in memory.

:class:`VectorIndex` keeps every vector of a store in one NumPy matrix and brings itself up
to date before each search: vectors written since it last looked are appended (another
process's writes included: SQLite's ``data_version`` tells), and anything it cannot explain
(a purge, a re-embedding) makes it reload. Search scores every row: with a matrix-vector
product, or from 20,000 rows an int8 first pass with a proven error bound per row followed by
float32 scores for the rows that could still make the top k (``salience.search.coarse``).

:class:`Vectors` ties an embedder to a store: it records the embedder's identity in the
store, refuses to mix vectors of two models, and embeds what the engine writes.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from salience.embeddings import Embedder
from salience.embeddings.arrays import Matrix
from salience.errors import EmbedderError
from salience.models import MemoryRecord
from salience.search import coarse
from salience.search.ann import UsearchIndex
from salience.stores.base import MemoryFilter, Store

IDENTITY_KEY = "embedder"
DIMENSIONS_KEY = "embedder_dimensions"
Vector = npt.NDArray[np.float32]
_NORM_BLOCK = 4096  # rows per block when computing mixed norms


class VectorIndex:
    """Every vector of one store, in memory, with each memory's session neighbours."""

    # From this many rows, exact search scores an int8 copy first (salience.search.coarse): below
    # it the float32 product takes under a millisecond anyway.
    coarse_from = 20000

    def __init__(self, store: Store, ann: UsearchIndex | None = None) -> None:
        self._store = store
        self._ann = ann
        self._ann_ready = False
        self._marker: tuple[int, int] | None = None
        self._held = False  # see Vectors.held(): no look at the store while set
        self._reset()

    def _reset(self) -> None:
        self._ids: list[str] = []
        self._sessions: list[str | None] = []
        self._row: dict[str, int] = {}
        self._matrix: Matrix = np.zeros((0, 0), dtype=np.float32)
        self._size = 0
        self._last_vseq = 0
        self._neighbours: tuple[npt.NDArray[np.intp], npt.NDArray[np.intp]] | None = None
        self._last_in_session: dict[str, int] = {}
        self._mixed_norms: dict[float, npt.NDArray[np.float32]] = {}
        self._int8: coarse.Int8Rows | None = None  # built on first use
        self._unit = True  # every row written so far has unit length (and is finite)
        self._error_weights: dict[float, npt.NDArray[np.float32]] = {}
        self._residual_weights: dict[float, npt.NDArray[np.float32]] = {}

    def __len__(self) -> int:
        self.refresh()
        return self._size

    def refresh(self) -> None:
        """Load what other writers (or this process) added since the last look."""
        if self._held:
            return
        marker = self._store.change_marker()
        if marker == self._marker:
            return
        count, highest = self._store.vector_state()
        full = self._last_vseq == 0
        if highest < self._last_vseq:
            self._reset()
            full = True
        touched = np.zeros(0, dtype=np.intp)
        if highest != self._last_vseq:
            rows = self._store.vector_rows(self._last_vseq)
            if rows and self._size and len(rows[0][3]) != 4 * self._matrix.shape[1]:
                self._reset()  # re-embedded with a model of another size: load afresh
                rows = self._store.vector_rows(0)
                full = True
            touched = self._append(rows)
        if self._size != count:  # rows were deleted or re-embedded: start again
            self._reset()
            touched = self._append(self._store.vector_rows(0))
            full = True
        if self._ann is not None:
            state = (count, highest)
            if full or not self._ann_ready:
                self._ann.open(self._matrix[: self._size], state)
                self._ann_ready = True
            elif touched.size:
                self._ann.upsert(touched, self._matrix[touched])
                self._ann.mark(state)
        self._marker = marker

    def close(self) -> None:
        """Persist the approximate index if it changed."""
        if self._ann is not None and self._ann_ready:
            self._ann.save()

    def _append(self, rows: Sequence[tuple[int, str, str | None, bytes]]) -> npt.NDArray[np.intp]:
        """Add or overwrite rows; returns the row numbers written."""
        if not rows:
            return np.zeros(0, dtype=np.intp)
        vectors = np.frombuffer(b"".join(r[3] for r in rows), dtype=np.float32)
        dims = vectors.size // len(rows)
        vectors = vectors.reshape(len(rows), dims)
        if self._matrix.shape[1] not in (0, dims):
            raise EmbedderError("the store holds vectors of two different lengths")
        needed = self._size + len(rows)
        if needed > self._matrix.shape[0]:
            grown = np.zeros((max(needed, 2 * self._matrix.shape[0], 64), dims), np.float32)
            if self._size:
                grown[: self._size] = self._matrix[: self._size]
            self._matrix = grown
        written = []
        first_new = self._size
        row_of = self._row
        for _, memory_id, session, _ in rows:
            at = row_of.get(memory_id)
            if at is None:
                at = row_of[memory_id] = len(self._ids)
                self._ids.append(memory_id)
                self._sessions.append(session)
            written.append(at)
        self._size = len(self._ids)
        self._last_vseq = max(self._last_vseq, *(r[0] for r in rows))
        touched = np.array(written, dtype=np.intp)
        if len(set(written)) == len(written):
            self._matrix[touched] = vectors
        else:  # one memory twice: its later vector wins, as when written one by one
            for at, vector in zip(written, vectors, strict=True):
                self._matrix[at] = vector
        norms = np.sqrt(np.einsum("ij,ij->i", vectors, vectors))
        if not bool(np.all(np.abs(norms - 1) <= coarse.UNIT_TOLERANCE)):
            self._unit = False  # (a NaN fails the test too)
            self._int8 = None
        elif self._int8 is not None:
            self._int8.update(self._matrix, touched)
        self._follow(touched, first_new)
        return touched

    def _follow(self, touched: npt.NDArray[np.intp], first_new: int) -> None:
        """Bring the session neighbours and mixed norms up to date after ``_append``.

        New memories usually come last in their session: each then links to the session's
        last row, and only the rows around a touched one get their mixed norms again (at
        100k rows a full recomputation took ~200 ms, paid by the first recall after every
        write). A memory older than its session's last one is the rare case: recompute all.
        """
        self._error_weights = {}
        self._residual_weights = {}
        if self._neighbours is None:
            self._mixed_norms = {}
            return
        before, after = self._neighbours
        grow = np.full(self._size - len(before), -1, dtype=np.intp)
        before, after = np.concatenate([before, grow]), np.concatenate([after, grow])
        for row in range(first_new, self._size):
            session = self._sessions[row]
            if session is None:
                continue
            last = self._last_in_session.get(session)
            if last is not None:
                if self._ids[last] > self._ids[row]:
                    self._neighbours = None
                    self._mixed_norms = {}
                    return
                before[row], after[last] = last, row
            self._last_in_session[session] = row
        self._neighbours = (before, after)
        around = np.concatenate([touched, before[touched], after[touched]])
        around = np.unique(around[around >= 0])
        for weight, inverse in list(self._mixed_norms.items()):
            grown = np.concatenate([inverse, np.ones(self._size - len(inverse), np.float32)])
            grown[around] = self._inverse_norms(around, weight)
            self._mixed_norms[weight] = grown

    def _session_neighbours(self) -> tuple[npt.NDArray[np.intp], npt.NDArray[np.intp]]:
        """For each row, the rows written just before and after it in its session (or -1)."""
        if self._neighbours is None:
            n = self._size
            before = np.full(n, -1, dtype=np.intp)
            after = np.full(n, -1, dtype=np.intp)
            members: dict[str, list[int]] = {}
            for row, session in enumerate(self._sessions):
                if session is not None:
                    members.setdefault(session, []).append(row)
            for rows in members.values():
                rows.sort(key=self._ids.__getitem__)  # ULIDs sort by creation time
                ordered = np.array(rows, dtype=np.intp)
                before[ordered[1:]] = ordered[:-1]
                after[ordered[:-1]] = ordered[1:]
            self._last_in_session = {session: rows[-1] for session, rows in members.items()}
            self._neighbours = (before, after)
        return self._neighbours

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

    def _mix(self, sims: Matrix, neighbour_weight: float) -> Matrix:
        """Each row's score mixed with its session neighbours' (``sims``: every row's own)."""
        if neighbour_weight <= 0:
            return sims
        before, after = self._session_neighbours()
        padded = np.empty(self._size + 1, dtype=np.float32)
        padded[:-1] = sims
        padded[-1] = 0.0  # index -1 (no neighbour) -> this zero
        # In place, in float32, multiplying by stored inverse norms: a quarter of the time of
        # the plain expression at 100k rows (the matrix product itself is the rest).
        mixed = np.take(padded, before)
        mixed += np.take(padded, after)
        mixed *= np.float32(neighbour_weight)
        mixed += sims
        mixed *= self._inverse_mixed_norm(neighbour_weight)
        return mixed

    def ranked(
        self, query: Vector, neighbour_weight: float = 0.0
    ) -> Callable[[int], tuple[npt.NDArray[np.intp], Matrix]]:
        """Score the rows for ``query`` once; the result gives the best ``k`` rows and their
        scores, best first, for any ``k``.

        Exact: every row is scored. With the approximate index, its candidates (``2k``, at
        least 64) are re-scored exactly, neighbour mixing included.

        A caller that has to look deeper (filters removed some hits) asks again for a larger
        ``k`` without scoring every row a second time. With the approximate index, a deeper
        look asks the index again (its candidates depend on ``k``).
        """
        self.refresh()
        if self._ann is None and self._int8_ready():
            return self._bounded(query, neighbour_weight)
        if self._ann is None or self._size == 0:
            scores = self.similarities(query, neighbour_weight)

            return lambda k: _best(scores, k)
        return lambda k: self._approximate(query, k, neighbour_weight)

    def _int8_ready(self) -> bool:
        """Whether exact search may score the int8 copy first (built here if needed)."""
        if self._size < self.coarse_from or not self._unit or not coarse.available():
            return False
        if self._int8 is None:
            dims = self._matrix.shape[1]
            if not 0 < dims <= coarse.MAX_DIMENSIONS:
                return False
            self._int8 = coarse.Int8Rows(dims)
            self._int8.update(self._matrix, np.arange(self._size))
        return True

    def _bounded(
        self, query: Vector, neighbour_weight: float
    ) -> Callable[[int], tuple[npt.NDArray[np.intp], Matrix]]:
        """:meth:`ranked` by an int8 first pass with a proven error bound per row, then
        float32 scores for every row whose bound reaches the k-th best (salience.search.coarse).

        The answer is the float32 top k: a row left out scores below k rows even at the
        top of its bound, and each of those at the bottom of theirs.
        """
        int8 = self._int8
        assert int8 is not None
        n, dims = self._size, self._matrix.shape[1]
        split = coarse.Query.of(query) if bool(np.all(np.isfinite(query))) else None
        constant = split.constant(dims) if split is not None else np.inf
        if split is None or not np.isfinite(constant) or not np.isfinite(split.split_norm):
            scores = self._scores(query, neighbour_weight)
            return lambda k: _best(scores, k)
        approx = self._mix(int8.first_pass(split, self._matrix, n), neighbour_weight)
        # The bound's own float32 arithmetic (mixing's is in the constant: salience.search.coarse).
        slack = np.float32(coarse.ABSOLUTE_SLACK * max(1.0, split.norm))
        if neighbour_weight > 0:
            error = self._residual_weight(neighbour_weight) * np.float32(split.split_norm)
            error += self._error_weight(neighbour_weight) * np.float32(constant)
        else:
            error = int8.residuals[:n] * np.float32(split.split_norm)
            error += np.float32(constant)
        error += slack
        low, high = approx - error, approx + error
        everything: list[Matrix] = []

        def best(k: int) -> tuple[npt.NDArray[np.intp], Matrix]:
            if 0 < k < n:
                threshold = np.partition(low, n - k)[n - k]  # the k-th highest floor
                rows = np.flatnonzero(high >= threshold)
                if len(rows) <= n // 4:
                    return self._refine(rows, high[rows], k, query, neighbour_weight)
            if not everything:  # deep looks: every row in float32, once
                everything.append(self._rescore(np.arange(n), query, neighbour_weight))
            return _best(everything[0], k)

        return best

    def _refine(
        self,
        rows: npt.NDArray[np.intp],
        ceilings: Matrix,
        k: int,
        query: Vector,
        weight: float,
    ) -> tuple[npt.NDArray[np.intp], Matrix]:
        """The float32 top ``k`` among candidate ``rows``, each scoring at most its ceiling.

        Rows are scored in float32 in order of their ceilings, a growing batch at a time, and
        the rest skipped once the k-th best score so far is above every ceiling left: a
        skipped row scores below k rows already scored. The bounds are worst cases (the
        first pass is usually far closer), so this scores about half of the candidates.
        """
        order = np.argsort(-ceilings, kind="stable")
        found_rows: list[npt.NDArray[np.intp]] = []
        found_scores: list[Matrix] = []
        done, step, count = 0, max(2 * k, 64), 0
        kth = -np.inf
        while done < len(order):
            batch = np.sort(rows[order[done : done + step]])
            found_rows.append(batch)
            found_scores.append(self._rescore(batch, query, weight))
            done, step, count = done + len(batch), 2 * step, count + len(batch)
            if count >= k:
                kth = float(np.partition(np.concatenate(found_scores), count - k)[count - k])
            if done < len(order) and ceilings[order[done]] < kth:
                break
        scored_rows = np.concatenate(found_rows)
        scores = np.concatenate(found_scores)
        best = np.lexsort((scored_rows, -scores))[:k]
        return scored_rows[best], scores[best]

    def scores_of(self, rows: npt.NDArray[np.intp], query: Vector, weight: float) -> Matrix:
        """Float32 similarities of ``rows`` to ``query`` as loaded now, mixed as in search."""
        return self._rescore(rows, query, weight)

    def _rescore(self, rows: npt.NDArray[np.intp], query: Vector, weight: float) -> Matrix:
        """Float32 scores of ``rows`` (ascending), mixed as :meth:`_mix` mixes every row."""
        if weight <= 0:
            alone: Matrix = np.einsum("ij,j->i", self._matrix[rows], query)
            return alone
        before, after = self._session_neighbours()

        def own(index: npt.NDArray[np.intp]) -> Matrix:
            """Scores of rows ``index`` (0 where the index is -1: no neighbour)."""
            present = index >= 0
            scores: Matrix = np.einsum("ij,j->i", self._matrix[np.where(present, index, 0)], query)
            scores[~present] = 0.0
            return scores

        mixed = own(before[rows])
        mixed += own(after[rows])
        mixed *= np.float32(weight)
        mixed += own(rows)
        mixed *= self._inverse_mixed_norm(weight)[rows]
        return mixed

    def _error_weight(self, weight: float) -> Matrix:
        """Per row, how far mixing can carry a first-pass error of 1 per neighbour:
        (1 + weight * number of neighbours) / |mixed vector|."""
        found = self._error_weights.get(weight)
        if found is None:
            before, after = self._session_neighbours()
            count = (before >= 0).astype(np.float32) + (after >= 0).astype(np.float32)
            found = (np.float32(1) + np.float32(weight) * count) * self._inverse_mixed_norm(weight)
            self._error_weights[weight] = found
        return found

    def _residual_weight(self, weight: float) -> Matrix:
        """Per row, how far mixing carries the rows' own int8 errors per unit of |q̃|:
        (R_e + weight * (R_before + R_after)) / |mixed vector| (salience.search.coarse)."""
        found = self._residual_weights.get(weight)
        if found is None:
            assert self._int8 is not None
            found = self._mix(self._int8.residuals[: self._size], weight)  # mixed like scores
            self._residual_weights[weight] = found
        return found

    def _approximate(
        self, query: Vector, k: int, neighbour_weight: float
    ) -> tuple[npt.NDArray[np.intp], Matrix]:
        assert self._ann is not None
        rows = self._ann.search(query, max(2 * k, 64))
        rows = rows[(rows >= 0) & (rows < self._size)]
        scores = self._matrix[rows] @ query
        if neighbour_weight > 0:
            before, after = self._session_neighbours()

            def side(neighbour: npt.NDArray[np.intp]) -> Matrix:
                found = neighbour[rows]
                out = np.zeros(len(rows), dtype=np.float32)
                ok = found >= 0
                out[ok] = self._matrix[found[ok]] @ query
                return out

            mixed = scores + np.float32(neighbour_weight) * (side(before) + side(after))
            scores = mixed * self._inverse_mixed_norm(neighbour_weight)[rows]
        order = np.lexsort((rows, -scores))[:k]
        return rows[order], scores[order]

    def _inverse_mixed_norm(self, weight: float) -> npt.NDArray[np.float32]:
        """1 / |e_i + weight * (e_before + e_after)| for every row (1 where that is 0)."""
        inverse = self._mixed_norms.get(weight)
        if inverse is None:
            inverse = self._mixed_norms[weight] = self._inverse_norms(np.arange(self._size), weight)
        return inverse

    def _inverse_norms(self, rows: npt.NDArray[np.intp], weight: float) -> Matrix:
        """1 / |e_i + weight * (e_before + e_after)| for ``rows``, a block of rows at a time
        (whole-store temporaries of 150 MB at 100k rows made a first recall ~1.5 s slower)."""
        before, after = self._session_neighbours()
        inverse: Matrix = np.empty(len(rows), dtype=np.float32)
        for start in range(0, len(rows), _NORM_BLOCK):
            part = rows[start : start + _NORM_BLOCK]
            mixed = self._matrix[part]
            for neighbour in (before[part], after[part]):
                present = neighbour >= 0
                mixed[present] += np.float32(weight) * self._matrix[neighbour[present]]
            norms = np.linalg.norm(mixed, axis=1)
            norms[norms == 0] = 1.0
            inverse[start : start + len(part)] = 1.0 / norms
        return inverse

    def neighbours(self, memory_ids: Sequence[str]) -> dict[str, tuple[str | None, str | None]]:
        """The memories written just before and after each one in its session (None: none)."""
        self.refresh()
        before, after = self._session_neighbours()
        out: dict[str, tuple[str | None, str | None]] = {}
        for memory_id in memory_ids:
            row = self._row.get(memory_id)
            if row is not None:
                b, a = int(before[row]), int(after[row])
                out[memory_id] = (
                    self._ids[b] if b >= 0 else None,
                    self._ids[a] if a >= 0 else None,
                )
        return out

    def vectors_of(self, memory_ids: Sequence[str]) -> Matrix:
        """The stored vectors of those memories that have one (in the order given)."""
        self.refresh()
        rows = [self._row[i] for i in memory_ids if i in self._row]
        return self._matrix[rows].copy() if rows else np.zeros((0, 0), dtype=np.float32)

    def stored(self, memory_ids: Sequence[str]) -> dict[str, Vector]:
        """The stored vector of each of those memories that has one."""
        self.refresh()
        return {i: self._matrix[self._row[i]].copy() for i in memory_ids if i in self._row}

    def ids(self) -> list[str]:
        """Memory ids in row order."""
        self.refresh()
        return self._ids

    def loaded_ids(self) -> list[str]:
        """Memory ids in row order as loaded now (no refresh)."""
        return self._ids


@dataclass(frozen=True)
class VectorHit:
    """A memory found by vector search, with its similarity to the query."""

    record: MemoryRecord
    similarity: float


def moved_toward(query: Vector, examples: Sequence[Vector], weight: float) -> Vector:
    """``normalise(query + weight * mean(examples))`` (Rocchio's relevance feedback); the query
    itself when there are no examples or the sum is zero."""
    if not examples or weight <= 0:
        return query
    moved = query + np.float32(weight) * np.mean(np.stack(examples), axis=0, dtype=np.float32)
    norm = float(np.linalg.norm(moved))
    return (moved / norm).astype(np.float32) if norm > 0 else query


def _best(scores: Matrix, k: int) -> tuple[npt.NDArray[np.intp], Matrix]:
    rows = top_rows(scores, k)
    return rows, scores[rows]


def top_rows(scores: Matrix, k: int) -> npt.NDArray[np.intp]:
    """Indices of the ``k`` highest scores, best first (ties: lower index first)."""
    if k <= 0 or scores.size == 0:
        return np.zeros(0, dtype=np.intp)
    part = np.argpartition(-scores, k - 1)[:k] if k < scores.size else np.arange(scores.size)
    return part[np.lexsort((part, -scores[part]))]


class Vectors:
    """One store's embeddings, made by one embedder."""

    def __init__(
        self, store: Store, embedder: Embedder | None, ann: UsearchIndex | None = None
    ) -> None:
        self._store = store
        self._embedder = embedder
        self._index = VectorIndex(store, ann)
        self._checked_at: tuple[int, int] | None = None

    def close(self) -> None:
        """Persist what needs persisting (the approximate index)."""
        self._index.close()

    @property
    def embedder(self) -> Embedder | None:
        """The embedder in use (None: full-text only)."""
        return self._embedder

    def count(self) -> int:
        """How many memories have a vector."""
        return len(self._index)

    @property
    def active(self) -> bool:
        """Whether writes are embedded and recall uses vectors."""
        return self._embedder is not None

    def stored_identity(self) -> str | None:
        """The identity of the embedder that made the store's vectors, if any."""
        return self._store.get_meta(IDENTITY_KEY)

    def held(self) -> _Held:
        """``with vectors.held():`` — bring the index up to date once, then use it as it is
        until the block ends. A recall holds it so that its vector side never queries the
        store's connection while the full-text search runs on it in another thread (SQLite
        serialises calls on one connection: each check would wait for the whole search)."""
        return _Held(self)

    def _check(self) -> Embedder:
        embedder = self._embedder
        assert embedder is not None
        if self._index._held:
            return embedder
        # Re-checked whenever anyone wrote since the last check: another process may have
        # re-embedded the store with another model meanwhile.
        marker = self._store.change_marker()
        if marker != self._checked_at:
            stored = self.stored_identity()
            if stored is not None and stored != embedder.identity and len(self._index):
                raise EmbedderError(
                    f"this store's vectors were made by {stored}, but the configured embedder "
                    f"is {embedder.identity}; run `salience reindex` to re-embed every memory "
                    "with it, or set SALIENCE_EMBEDDER back"
                )
            self._checked_at = marker
        return embedder

    def embed(self, texts: Sequence[str]) -> Matrix | None:
        """Vectors for texts about to be written (None when no embedder is configured)."""
        if self._embedder is None:
            return None
        return self._check().embed(texts)

    def put(self, memory_id: str, vector: Vector) -> None:
        """Store a vector (call inside the write's transaction)."""
        embedder = self._check()
        if self.stored_identity() != embedder.identity:
            self._store.set_meta(IDENTITY_KEY, embedder.identity)
            self._store.set_meta(DIMENSIONS_KEY, str(embedder.dimensions))
        self._store.set_vector(memory_id, np.asarray(vector, dtype=np.float32).tobytes())

    def search(
        self,
        query: Vector,
        flt: MemoryFilter,
        k: int,
        *,
        min_similarity: float = -1.0,
        neighbour_weight: float = 0.0,
        floor_query: Vector | None = None,
    ) -> list[VectorHit]:
        """The ``k`` memories matching ``flt`` most similar to ``query``, best first.

        ``min_similarity`` (and "more than 0") applies to the similarity to ``floor_query``
        when it is given as well: the query before relevance feedback moved it, so that a hit
        is always related to what was asked."""
        self._check()
        best = self._index.ranked(query, neighbour_weight)
        # The ids of the rows just scored: a refresh may replace the list (another process
        # wrote meanwhile), so never use one taken before ranked().
        ids = self._index.loaded_ids()
        wanted = k
        while True:
            rows, scores = best(wanted)
            found = len(rows)
            # A cosine of 0 or less says "unrelated": never a vector hit.
            keep = (scores >= min_similarity) & (scores > 0)
            if floor_query is not None:
                floor = self._index.scores_of(rows, floor_query, neighbour_weight)
                keep &= (floor >= min_similarity) & (floor > 0)
            rows, scores = rows[keep], scores[keep]
            records = self._store.get_many([ids[r] for r in rows], flt)
            # Look deeper only when the store's filter removed hits: rows below the
            # similarity floor stay below it however deep one looks.
            if len(records) >= k or found < wanted or len(rows) < found or wanted >= len(ids):
                break
            wanted *= 4
        similarity = {ids[r]: float(s) for r, s in zip(rows, scores, strict=True)}
        return [VectorHit(r, similarity[r.id]) for r in records[:k]]

    def neighbours(self, memory_ids: Sequence[str]) -> dict[str, tuple[str | None, str | None]]:
        """Session neighbours of memories that have vectors (see :class:`VectorIndex`)."""
        return self._index.neighbours(memory_ids)

    def stored(self, memory_ids: Sequence[str]) -> dict[str, Vector]:
        """The stored vector of each of those memories that has one."""
        return self._index.stored(memory_ids)

    def centroid(self, memory_ids: Sequence[str]) -> Vector | None:
        """The normalised mean of the memories' vectors (None if none of them has one)."""
        matrix = self._index.vectors_of(memory_ids)
        if not len(matrix):
            return None
        mean = matrix.mean(axis=0)
        norm = float(np.linalg.norm(mean))
        return None if norm == 0 else (mean / norm).astype(np.float32)

    def query_vector(self, text: str) -> Vector | None:
        """The query's embedding, or None when recall has no vectors to search."""
        if self._embedder is None or not len(self._index):
            return None
        matrix = self.embed([text])
        assert matrix is not None
        row: Vector = matrix[0]
        return row

    def reindex(
        self, *, batch: int = 256, progress: Callable[[int, int], None] | None = None
    ) -> int:
        """Embed every memory that has no vector (all of them, if the embedder changed)."""
        embedder = self._embedder
        if embedder is None:
            raise EmbedderError("no embedder is configured (SALIENCE_EMBEDDER=none)")
        if self.stored_identity() not in (None, embedder.identity):
            with self._store.transaction():
                self._store.clear_vectors()
                self._store.set_meta(IDENTITY_KEY, None)
        self._checked_at = None
        total = self._store.count_without_vectors()
        done = 0
        while records := self._store.without_vectors(batch):
            vectors = embedder.embed([r.content for r in records])
            with self._store.transaction():
                for record, vector in zip(records, vectors, strict=True):
                    self.put(record.id, vector)
            done += len(records)
            if progress is not None:
                progress(done, total)
        return done


class _Held:
    """The context manager of :meth:`Vectors.held` (re-entrant: only the outermost acts)."""

    __slots__ = ("_outer", "_vectors")

    def __init__(self, vectors: Vectors) -> None:
        self._vectors = vectors
        self._outer = False

    def __enter__(self) -> None:
        index = self._vectors._index
        if index._held:
            return
        if self._vectors._embedder is not None:
            self._vectors._check()
        index.refresh()
        index._held = self._outer = True

    def __exit__(self, *exc: object) -> None:
        if self._outer:
            self._vectors._index._held = False
