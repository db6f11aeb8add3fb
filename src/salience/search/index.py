"""Exact (and, with the ``ann`` extra, approximate) nearest-neighbour search over
:class:`~salience.search.rows.VectorRows`.

Search scores every row: with a matrix-vector product, or from 20,000 rows an int8 first pass
with a proven error bound per row followed by float32 scores for the rows that could still
make the top k (:mod:`salience.search.coarse`). The int8 copy is made on the first search that
needs it, or from 50,000 rows on a thread of its own while searches score float32.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import numpy.typing as npt

from salience.briefing.passing import placed
from salience.embeddings.arrays import Matrix, Vector
from salience.search import coarse, signs
from salience.search.mapped import MappedRows

DENSE_SLOTS = 16
"""Up to this many rows an id asked, :meth:`VectorIndex.neighbour_slots` places the ids by
an array over every row (one scatter, a gather a side) rather than by binary searches: a
small store's recall asks of ~370 ids after its query's embedding has emptied the caches."""


class VectorIndex(MappedRows):
    """Search over every vector of one store (see the module docstring)."""

    # From this many rows, exact search scores an int8 copy first (salience.search.coarse): below
    # it the float32 product takes under a millisecond anyway.
    coarse_from = 20000
    # From this many rows the int8 copy is made on a thread of its own (0.35 s at 100k, 3.6 s
    # at 1M here): the first recall of a process does not wait for it.
    int8_background_from = 50000

    def ranked(
        self, query: Vector, neighbour_weight: float = 0.0, floor: float = -np.inf
    ) -> Callable[[int], tuple[npt.NDArray[np.intp], Matrix]]:
        """Score the rows for ``query`` once; the result gives the best ``k`` rows and their
        scores, best first, for any ``k``.

        ``floor``: a score below which no row is wanted. The int8 first pass proves which
        rows cannot reach it, and they are never scored in float32: the best ``k`` may then
        hold fewer rows, and every row it leaves out scores below ``floor`` (a search whose
        rows mostly fall below its similarity floor scores almost none of them again).

        Exact: every row is scored. With the approximate index, its candidates (``2k``, at
        least 64) are re-scored exactly, neighbour mixing included.

        A caller that has to look deeper (filters removed some hits) asks again for a larger
        ``k`` without scoring every row a second time. With the approximate index, a deeper
        look asks the index again (its candidates depend on ``k``).
        """
        self.refresh()
        ann = self._ann if self._ann is not None and self._ann.usable(self._size) else None
        if ann is None and self._int8_ready():
            if not self._saved_parts[0]:  # a new int8 copy: worth keeping for the next process
                self.keep()
            return self._bounded(query, neighbour_weight, floor)
        if ann is None or self._size == 0:
            scores = self.similarities(query, neighbour_weight)

            return lambda k: _best(scores, k)
        return lambda k: self._approximate(query, k, neighbour_weight)

    def nearby(
        self, query: Vector, floor: float = -np.inf
    ) -> Callable[[int], tuple[npt.NDArray[np.intp], Matrix]]:
        """:meth:`ranked` (no session mixing) for a search that may miss a few rows: from
        :attr:`coarse_from` rows, with the int8 copy made, the rows of fewest signs differing
        from the query's (:mod:`salience.search.signs`) are kept and scored in float32, and
        the best ``k`` of them returned. Otherwise as :meth:`ranked`.

        The kept rows (a few hundred) are scored whole, not bounded first from their int8
        copies: in a write, after the embedding has emptied the caches, each NumPy call costs
        several times what it does in a loop, and the bound's own calls (splitting the query,
        the int8 products, the ceilings) cost about what the rows they spare do (the search
        0.08 ms faster so, the median of six rounds in a write: +0.03 to -0.23 ms).
        ``floor`` is the caller's: rows under it are dropped there."""
        self.refresh()
        if not (self._signs_usable() and bool(np.all(np.isfinite(query)))):
            if self._pending is not None:
                self._refresh()  # (appended: the exact search scores every row)
            return self.ranked(query, floor=floor)
        int8, size = self._int8, self._size
        assert int8 is not None
        distances = int8.differing(signs.bits(query), size)
        pending = self._pending
        extra = None  # (the vectors pending, each scored: rows after the last)
        if pending is not None and len(pending[0]):
            extra = np.einsum("ij,j->i", pending[1], query)
        extra_rows = np.arange(size, size + (0 if extra is None else len(extra)), dtype=np.intp)

        kept: list[tuple[npt.NDArray[np.intp], Matrix]] = []  # (the last rows scored)

        def best(k: int) -> tuple[npt.NDArray[np.intp], Matrix]:
            rows = signs.closest(distances, signs.wanted(size, k))
            scores = signs.rescored(rows, kept[0] if kept else None, self._rescore, query)
            kept[:] = [(rows, scores)]
            if extra is not None:
                rows, scores = np.concatenate((rows, extra_rows)), np.concatenate((scores, extra))
            top = np.lexsort((rows, -scores))[:k]
            return rows[top], scores[top]

        return best

    def _signs_usable(self) -> bool:
        """Whether :meth:`nearby` takes the sign pass (else it searches exactly)."""
        usable = self._ann is None or not self._ann.usable(self._size)
        return usable and signs.available() and self._int8_ready()

    def hold_pending(self, most: int, index: object) -> bool:
        """For a write's look (:meth:`nearby`, in a held block): whether the rows may stay as
        they are, the vectors written since they were last brought up to date (new memories,
        at most ``most``) scored beside them, exactly; they are appended at the next refresh,
        several at once. Appending one memory's vector took a write's look 0.3-0.4 ms at
        100,000 memories (its int8 copy and signs made again), for a recall that catches up
        anyway. False (or ``index``, the one the look takes, is another): the caller
        refreshes first."""
        if index is not self or not self._signs_usable():
            return False
        found = self.pending(most)
        if found is None:
            return False
        self._pending = found if found[0] else None
        return True

    def release_pending(self) -> None:
        """The held block is over: the vectors pending wait for the next refresh."""
        self._pending = None

    def held_bytes(self) -> int:
        """What its rows take in memory: the float32 matrix (and the int8 copy, if made)."""
        int8 = () if self._int8 is None else self._int8.arrays()
        return int(self._matrix.nbytes) + sum(a.nbytes for a in int8)

    def neighbour_slots(
        self, memory_ids: Sequence[str]
    ) -> tuple[npt.NDArray[np.intp], npt.NDArray[np.intp]]:
        """:meth:`neighbours` as positions among ``memory_ids`` (unique): where the memory
        written just before and just after each one in its session is (``len(memory_ids)``:
        none, or not among them). In NumPy: no id of a neighbour is looked up."""
        self.refresh()
        n = len(memory_ids)
        rows = self._row.rows_of(memory_ids)
        given = np.flatnonzero(rows >= 0)  # the positions with a row
        if not len(given):
            return np.full(n, n, dtype=np.intp), np.full(n, n, dtype=np.intp)
        sides = []
        if self._size <= DENSE_SLOTS * n:  # (each row's position, by one scatter and a gather)
            slot = placed(rows[given], self._size, n, given)  # (row -1, no neighbour: n)
            for neighbour in self._session_neighbours():
                side = np.full(n, n, dtype=np.intp)
                side[given] = slot[neighbour[rows[given]]]
                sides.append(side)
            return sides[0], sides[1]
        order = np.argsort(rows[given])
        known, at = rows[given][order], given[order]  # rows ascending, and their positions
        for neighbour in self._session_neighbours():
            near = np.full(n, -1, dtype=np.intp)
            near[given] = neighbour[rows[given]]
            found = np.minimum(np.searchsorted(known, near), len(known) - 1)
            sides.append(np.where(known[found] == near, at[found], n))  # (-1: no row)
        return sides[0], sides[1]

    def _int8_ready(self) -> bool:
        """Whether exact search may score the int8 copy first (built here if needed, or on a
        thread of its own from :attr:`int8_background_from` rows: searches score float32
        until it is done, with the same answers)."""
        if self._size < self.coarse_from or not self._unit or not coarse.available():
            return False
        if self._int8 is not None:
            return True
        dims = self._matrix.shape[1]
        if not 0 < dims <= coarse.MAX_DIMENSIONS:
            return False
        if self._int8_build is not None:
            return self._adopt_int8(self._int8_build)
        if self._size >= self.int8_background_from:
            self._int8_build = coarse.Int8Build(self._matrix, self._size)
            return False
        self._int8 = coarse.Int8Rows(dims)
        self._int8.update(self._matrix, np.arange(self._size))
        return True

    @property
    def shape(self) -> tuple[int, int]:
        """(rows, dimensions) held now, without looking at the store."""
        return self._size, int(self._matrix.shape[1])

    def prepare(self) -> None:
        """Read every vector and make the int8 copy, on this thread (a loader's: see
        salience.search.warm), so that the first search after it scores as a warm one does."""
        with self.guard:
            self.refresh()
            if self._int8 is None and self._int8_build is None:
                self.int8_background_from = self._size + 1  # (made here, not on a thread)
                self._int8_ready()

    def close(self) -> None:
        """Close as rows do; an int8 copy still being made is waited for first when rows are
        saved beside the store (a one-shot process that read the store whole leaves the next
        one the int8 copy too, instead of another build that it would not live to finish)."""
        with self.guard:
            build = self._int8_build
            if build is not None and self._saved_at is not None and not self._store.read_only:
                build.wait()
                self._adopt_int8(build)
        super().close()

    def _adopt_int8(self, build: coarse.Int8Build) -> bool:
        """Take the int8 copy of a finished background build (False while it runs, or if it
        failed: no second build in this process, float32 stays exact)."""
        if not build.done() or build.failure is not None:
            return False
        self._int8_build = None
        again = np.concatenate([*build.touched, np.arange(build.size, self._size)])
        if again.size:  # written while it was built
            build.rows.update(self._matrix, np.unique(again))
        self._int8 = build.rows
        return True

    def _bounded(
        self, query: Vector, neighbour_weight: float, floor: float = -np.inf
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
        if neighbour_weight > 0:
            error = self._residual_weight(neighbour_weight) * np.float32(split.split_norm)
            error += self._error_weight(neighbour_weight) * np.float32(constant)
            error += coarse.slack(split)
        else:
            error = int8.bounds(split, slice(0, n))
        low, high = approx - error, approx + error
        everything: list[Matrix] = []

        def best(k: int) -> tuple[npt.NDArray[np.intp], Matrix]:
            if k > 0:
                # a row whose ceiling is under the caller's floor scores under it, and one
                # under the k-th highest floor (``low``) under k rows
                cut = np.float32(floor)
                if k < n:
                    cut = max(np.partition(low, n - k)[n - k], cut)
                rows = np.flatnonzero(high >= cut)
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
        if not len(rows):  # (none can reach the caller's floor)
            return rows, np.zeros(0, dtype=np.float32)
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
        """Float32 similarities of ``rows`` to ``query`` as loaded now, mixed as in search.
        Asked of a third of the rows or more (a small store's recall asks of 250), every row
        is scored once and the rows' scores taken: the same floats as :meth:`_rescore`'s
        product over the rows and their neighbours gathered, without copying them."""
        if 3 * len(rows) < self._size:
            return self._rescore(rows, query, weight)
        every: Matrix = np.einsum("ij,j->i", self._matrix[: self._size], query)
        every = np.append(every, every.dtype.type(0))  # (row -1: no neighbour, scores 0)
        if weight <= 0:
            alone: Matrix = every[rows]
            return alone
        before, after = self._session_neighbours()
        mixed: Matrix = every[before[rows]] + every[after[rows]]  # as _rescore mixes them
        mixed *= np.float32(weight)
        mixed += every[rows]
        mixed *= self._inverse_mixed_norm(weight)[rows]
        return mixed

    def _rescore(self, rows: npt.NDArray[np.intp], query: Vector, weight: float) -> Matrix:
        """Float32 scores of ``rows`` (ascending), mixed as :meth:`_mix` mixes every row."""
        if weight <= 0:
            alone: Matrix = np.einsum("ij,j->i", self._matrix[rows], query)
            return alone
        before, after = self._session_neighbours()
        # One gather and one product for the rows and both their neighbours (0 where a row
        # has no neighbour: index -1), then mixed in the order the first pass assumes.
        n = len(rows)
        index = np.concatenate((before[rows], after[rows], rows))
        present = index >= 0
        scores: Matrix = np.einsum("ij,j->i", self._matrix[np.where(present, index, 0)], query)
        scores[~present] = 0.0
        mixed: Matrix = scores[:n] + scores[n : 2 * n]
        mixed *= np.float32(weight)
        mixed += scores[2 * n :]
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


def _best(scores: Matrix, k: int) -> tuple[npt.NDArray[np.intp], Matrix]:
    rows = top_rows(scores, k)
    return rows, scores[rows]


def top_rows(scores: Matrix, k: int) -> npt.NDArray[np.intp]:
    """Indices of the ``k`` highest scores, best first (ties: lower index first)."""
    if k <= 0 or scores.size == 0:
        return np.zeros(0, dtype=np.intp)
    part = np.argpartition(-scores, k - 1)[:k] if k < scores.size else np.arange(scores.size)
    return part[np.lexsort((part, -scores[part]))]
