"""A first pass that may miss a few rows, for searches that can afford to: the signs.

Recall's search is exact (:mod:`salience.search.coarse`). A write's look for the memories it
may update (:mod:`salience.engine.updating`) only needs the nearest few *candidates*, which a
rule then reads word by word; it pays for them on every write. So it scores the rows by how
many of their coordinates' signs differ from the query's (a Hamming distance over 384 bits:
48 bytes a row, 0.4 ms at 100,000 rows here, against 1-3 ms for the int8 first pass and 6 ms
for float32), takes the :func:`closest` rows, and scores those exactly (from their int8
copies with the first pass's bound, then in float32 those that can reach the answer:
``VectorIndex.nearby``): the order among them is exact, only a row whose signs differ more
than the rest may be missed. Of 100,000 LongMemEval turns, 500 others as queries, the 256
rows kept held 99.4 % of each one's 12 nearest (all at cosine 0.3 or more).

Measured on 30,000 LongMemEval turns embedded by MiniLM, each of 500 of them as the query: of
the nearest 8 at cosine 0.3 or more, the 64 rows of fewest differing signs held 97.6 %, 77
(one in 400: the share :func:`wanted` keeps of a large store) 98.0 %, 256 99.6 %
(``bench/updates.py`` measures the write that uses it; docs/scoring.md).

The signs are those of the int8 copy's values (:class:`~salience.search.coarse.Int8Rows`
keeps them, packed in its blocks, and packs a block again when its rows change): a value
that rounds to zero counts as not positive, as a negative one does.
"""

from __future__ import annotations

from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from functools import cache
from typing import TYPE_CHECKING, Any

from salience.lazy import lazy_module

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    Bits = npt.NDArray[np.uint8]
    Rows = npt.NDArray[np.intp]
else:
    np = lazy_module("numpy")

SAMPLED = 16
""":func:`closest` guesses its cut from one distance in this many (given enough rows)."""
FEWEST = 256
"""The least number of rows :func:`closest` keeps ..."""
SHARE = 400
"""... or one row in this many, if more (a larger store has more near ties)."""


@cache
def _numkong() -> Any | None:
    """numkong, if it imports and counts known differing bits exactly (else no sign pass:
    the caller searches as recall does)."""
    try:
        import numkong
    except ImportError:  # pragma: no cover - numkong is a core dependency
        return None
    # 37 rows of 392 bits (no register filled evenly), bytes spread by a multiplier (not
    # numpy.random: importing it costs a process ~10 ms).
    rows = ((np.arange(37 * 49) * 97 + 13) % 256).astype(np.uint8).reshape(37, 49)
    query = ((np.arange(49) * 181 + 7) % 256).astype(np.uint8).reshape(1, 49)
    try:
        packed = np.asarray(numkong.hammings_packed(query, numkong.hammings_pack(rows, "uint1")))
        plain = np.asarray(numkong.cdist(query, rows, "hamming", dtype="uint1"))
    except (TypeError, ValueError, RuntimeError):
        return None
    want = np.unpackbits(rows ^ query, axis=1).sum(axis=1)
    exact = all(a.shape == (1, 37) and bool(np.all(a[0] == want)) for a in (packed, plain))
    return numkong if exact else None


def available() -> bool:
    """Whether the sign pass can be used in this process."""
    return _numkong() is not None


def bits(values: npt.NDArray[Any]) -> Bits:
    """The signs of rows (or of one vector) as packed bits: 1 where a value is positive."""
    return np.packbits(values > 0, axis=-1)


def pack(signs: Bits) -> Any:
    """A block of rows' signs (:func:`bits`), packed for :func:`differing`."""
    numkong = _numkong()
    assert numkong is not None
    return numkong.hammings_pack(signs, "uint1")


def differing(query: Bits, packed: Any) -> npt.NDArray[np.uint32]:
    """How many signs of each row of a packed block differ from the query's."""
    numkong = _numkong()
    assert numkong is not None
    found: npt.NDArray[np.uint32] = np.asarray(numkong.hammings_packed(query[None, :], packed))
    return found.reshape(-1)


def unpacked(query: Bits, signs: Bits) -> npt.NDArray[np.uint32]:
    """:func:`differing` for rows not packed (a few thousand at most)."""
    if not len(signs):
        return np.zeros(0, dtype=np.uint32)
    numkong = _numkong()
    assert numkong is not None
    found: npt.NDArray[np.float64] = np.asarray(
        numkong.cdist(query[None, :], signs, "hamming", dtype="uint1")
    )
    return found.reshape(-1).astype(np.uint32)


def closest(distances: npt.NDArray[np.uint32], count: int) -> Rows:
    """The rows (ascending) of the ``count`` smallest distances, and every row tied with the
    last of them: a histogram of the distances (at most one per bit) finds the cut.

    On many rows, one distance in :data:`SAMPLED` guesses a cut that should keep about twice
    ``count``; if the rows within it are ``count`` or more, the cut sought is within it too,
    and only those rows are read again (the same rows as the whole histogram's, in a
    fifth of its time: 0.05 ms at 100,000 rows here, not 0.24)."""
    size = len(distances)
    if count >= size:
        return np.arange(size, dtype=np.intp)
    if size >= SAMPLED * 4 * count:
        sample = distances[::SAMPLED]
        guess = _cut(sample, min(len(sample), 2 * count // SAMPLED + 16))
        rows = np.flatnonzero(distances <= guess)
        if len(rows) >= count:
            return rows[distances[rows] <= _cut(distances[rows], count)]
    return np.flatnonzero(distances <= _cut(distances, count))


def _cut(distances: npt.NDArray[np.uint32], count: int) -> int:
    """The least distance that ``count`` of the rows reach (``count`` at most their number)."""
    at_most = np.cumsum(np.bincount(distances))
    return int(np.searchsorted(at_most, count))


def wanted(size: int, k: int) -> int:
    """How many rows to keep of ``size`` for a top ``k``: :data:`FEWEST`, one in
    :data:`SHARE`, or ``32 k``, whichever is largest."""
    return max(FEWEST, size // SHARE, 32 * k)


class Signs:
    """The signs of an int8 copy's rows (:class:`~salience.search.coarse.Int8Rows` keeps
    one and says which rows it wrote), packed by block for :func:`differing`."""

    def __init__(self, dimensions: int) -> None:
        self._packed: list[Any | None] = []  # one per full block; None: to pack again
        self._bits = np.zeros((0, (dimensions + 7) // 8), dtype=np.uint8)  # each row's signs
        self._signed = 0  # rows with their signs in _bits (made on first use)

    def touched(self, values: npt.NDArray[np.int8], rows: Rows, block_rows: int) -> None:
        """``rows`` of ``values`` were (re)written: their signs follow."""
        signed = rows[rows < self._signed]
        if len(signed):
            self._bits[signed] = bits(values[signed])
        for block in np.unique(rows // block_rows).tolist():
            if block < len(self._packed):
                self._packed[block] = None

    def differing(
        self,
        query: Bits,
        values: npt.NDArray[np.int8],
        size: int,
        block_rows: int,
        helper: ThreadPoolExecutor | None,
    ) -> npt.NDArray[np.uint32]:
        """How many signs of each of the first ``size`` rows differ from the query's: full
        blocks packed, the rows past them not. With a ``helper``, both threads take the next
        block until none is left, so that a helper which wakes late takes fewer."""
        self._sign(values, size)
        full = size // block_rows
        self._packed.extend([None] * (full - len(self._packed)))
        out = np.empty(size, dtype=np.uint32)
        blocks = iter(range(full))  # (shared: each next() is one step under the GIL)
        pending = None
        if helper is not None and full > 1:
            pending = helper.submit(self._blocks, query, blocks, block_rows, out)
        try:
            out[full * block_rows :] = unpacked(query, self._bits[full * block_rows : size])
            self._blocks(query, blocks, block_rows, out)
        finally:
            if pending is not None:
                pending.result()
        return out

    def _blocks(
        self, query: Bits, blocks: Iterator[int], block_rows: int, out: npt.NDArray[np.uint32]
    ) -> None:
        for block in blocks:
            start, end = block * block_rows, (block + 1) * block_rows
            packed = self._packed[block]
            if packed is None:
                packed = self._packed[block] = pack(self._bits[start:end])
            out[start:end] = differing(query, packed)

    def _sign(self, values: npt.NDArray[np.int8], size: int) -> None:
        """Make the signs of the rows up to ``size`` that have none yet."""
        done = self._signed
        if done >= size:
            return
        if len(self._bits) < size:
            grown = np.zeros((max(size, 2 * len(self._bits)), self._bits.shape[1]), np.uint8)
            grown[:done] = self._bits[:done]
            self._bits = grown
        self._bits[done:size] = bits(values[done:size])
        self._signed = size
