"""Which rows of a vector index pass a recall's filter, worked out while the query embeds.

A recall's vector side keeps, of its few hundred best rows, those whose memories pass the
filter: each row was turned into its id, and each id looked up in
:class:`~salience.briefing.passing.Ahead` (~0.17 ms on LoCoMo's conv-41 once the model has
run and the caches hold its weights). The worker that searches the full text beside the
embedding also reads, row by row of the index, each row's memory's row number in the store
if it passed (:class:`RowsAhead`); the vector side then answers with one gather, and turns
into ids only the rows it keeps. The same answers: a row the index appended since, an index
read whole again since (its list of ids replaced), another filter, or an id the ``Ahead`` did
not hold, is answered by ids, as before.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from salience.briefing.passing import NOT_PASSED
from salience.lazy import lazy_module
from salience.search.rowids import take

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    from salience.briefing.passing import Ahead
    from salience.search.index import VectorIndex
    from salience.stores.filters import MemoryFilter
else:
    np = lazy_module("numpy")

FAILED = NOT_PASSED
"""A row whose memory the filter leaves out."""
UNKNOWN = NOT_PASSED + 1
"""A row whose memory the ``Ahead`` did not hold (written since the columns were read)."""


class RowsAhead:
    """Each row's memory's row number in the store if it passed ``flt`` (:data:`FAILED`,
    :data:`UNKNOWN`), for the index's rows as they were when it was made."""

    __slots__ = ("_flt", "_ids", "_index", "_seqs")

    def __init__(
        self, index: VectorIndex, flt: MemoryFilter, ids: object, seqs: npt.NDArray[np.int64]
    ) -> None:
        self._index, self._flt, self._ids, self._seqs = index, flt, ids, seqs

    def seqs(
        self, index: object, rows: npt.NDArray[np.intp], flt: MemoryFilter
    ) -> npt.NDArray[np.int64] | None:
        """Those rows' entries, or None if any must be answered by its id (another index or
        filter, the rows read again or appended since, a memory not held then)."""
        if index is not self._index or flt != self._flt or self._index.row_ids() is not self._ids:
            return None
        if len(rows) and int(rows.max()) >= len(self._seqs):
            return None
        seqs: npt.NDArray[np.int64] = self._seqs[rows]
        return None if bool((seqs == UNKNOWN).any()) else seqs


def rows_ahead(index: VectorIndex, ahead: Ahead, flt: MemoryFilter) -> RowsAhead | None:
    """``ahead``'s answers for every row of ``index`` as loaded now (no refresh: rows
    appended later are answered by id); None for another filter than ``ahead``'s."""
    ids = index.row_ids()
    if ids.saved is not None:  # (rows read from the file beside the store: each id decoded)
        return None
    seqs = ahead.row_numbers(ids, flt, UNKNOWN)
    return None if seqs is None else RowsAhead(index, flt, ids, seqs)


def passed(seqs: npt.NDArray[np.int64]) -> npt.NDArray[np.bool_]:
    """Which of :meth:`RowsAhead.seqs`' entries passed the filter."""
    found: npt.NDArray[np.bool_] = seqs > UNKNOWN
    return found


def kept(
    ids: Sequence[str],
    rows: npt.NDArray[np.intp],
    scores: npt.NDArray[np.float32],
    seqs: npt.NDArray[np.int64],
    k: int,
) -> list[tuple[int, str, float]]:
    """The first ``k`` of ``rows`` that passed, as (row number in the store, id, score)."""
    chosen = np.flatnonzero(passed(seqs))[:k]
    found = take(ids, rows[chosen].tolist())
    return list(zip(seqs[chosen].tolist(), found, scores[chosen].tolist(), strict=True))
