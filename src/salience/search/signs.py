"""A first pass that may miss a few rows, for searches that can afford to: the signs.

Recall's search is exact (:mod:`salience.search.coarse`). A write's look for the memories it
may update (:mod:`salience.engine.updating`) only needs the nearest few *candidates*, which a
rule then reads word by word; it pays for them on every write. So it scores the rows by how
many of their coordinates' signs differ from the query's (a Hamming distance over 384 bits:
48 bytes a row, 0.4 ms at 100,000 rows here when they are in the caches, ~0.8 ms when the
embedding has just pushed them out, against 1-3 ms for the int8 first pass and 6 ms for
float32), takes the :func:`closest` rows, and scores those exactly, in float32
(``VectorIndex.nearby``): the order among them is exact, only a row whose signs differ more
than the rest may be missed. Of 100,000 LongMemEval turns, 500 others as queries, the 256
rows kept held 99.2-99.4 % of each one's 12 nearest (all at cosine 0.3 or more).

Measured on 30,000 LongMemEval turns embedded by MiniLM, each of 500 of them as the query: of
the nearest 8 at cosine 0.3 or more, the 64 rows of fewest differing signs held 97.6 %, 77
(one in 400: the share :func:`wanted` keeps of a large store) 98.0 %, 256 99.6 %
(``bench/updates.py`` measures the write that uses it; docs/scoring.md).

The signs are those of the int8 copy's values (:class:`~salience.search.coarse.Int8Rows`
keeps them and says which rows it wrote): a value that rounds to zero counts as not
positive, as a negative one does. They are kept as 64-bit words, one array per word of a
row (six for 384 dimensions), and counted by NumPy (``bitwise_count``, NumPy 2): a pass
reads the 48 bytes a row holds. Where numkong packs a row of signs in at most
:data:`COMPACT` bytes (its AVX2 kernels: 52 for 384 bits), full blocks of rows are also
packed for its Hamming kernel, which reads them faster still (0.54 against 0.77 ms at 100,000
rows out of the caches, here with AVX2 paths); its AVX-512 kernels pad a row to 132 bytes,
which a pass must read back from memory after the embedding (1.1 ms against NumPy's 0.8, and
13 MB more held at 100,000 rows): there, NumPy counts every row.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from functools import cache
from typing import TYPE_CHECKING, Any

from salience.lazy import lazy_module

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    Bits = npt.NDArray[np.uint8]
    Words = npt.NDArray[np.uint64]
    Counts = npt.NDArray[np.uint16]
    Rows = npt.NDArray[np.intp]
    Scores = npt.NDArray[np.float32]
else:
    np = lazy_module("numpy")

SAMPLED = 16
""":func:`closest` guesses its cut from one distance in this many (given enough rows)."""
FEWEST = 256
"""The least number of rows :func:`closest` keeps ..."""
SHARE = 400
"""... or one row in this many, if more (a larger store has more near ties) ..."""
PER_WANTED = 16
"""... or this many for each row wanted, if more still. Of 100,000 LongMemEval turns, 500
others as queries: of each one's 12 nearest at cosine 0.3 or more, 32 a row (384 rows kept)
held 99.47 %, 16 (256) 99.20 %; of the 18 nearest at 0.25, 99.57 % (576) and 98.76 % (288); the
three nearest missed 3 times in both. A write's look paid 0.15 ms for the rows 32 kept more."""


CHUNK = 65536
"""Rows counted per step: the step's temporaries stay in the core's own cache."""
GROUP = 3
"""Words of a row counted into one byte (three words: at most 192 signs differ)."""


COMPACT = 64
"""The most bytes a packed row of numkong's may take for its kernel to be used."""


def available() -> bool:
    """Whether the sign pass can be used in this process (NumPy 2 counts bits)."""
    return hasattr(np, "bitwise_count")


@cache
def _compact() -> Any | None:
    """numkong, if it packs a row of 384 signs in at most :data:`COMPACT` bytes and counts known
    differing bits exactly (else NumPy counts every row)."""
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
    return numkong if exact and _width(numkong) <= COMPACT else None


def _width(numkong: Any) -> float:
    """The bytes numkong's packing takes for a row of 384 signs (its header shared by 256)."""
    return float(numkong.hammings_pack(np.zeros((256, 48), np.uint8), "uint1").nbytes / 256)


def bits(values: npt.NDArray[Any]) -> Bits:
    """The signs of rows (or of one vector) as packed bits: 1 where a value is positive."""
    return np.packbits(values > 0, axis=-1)


def words(signs: Bits) -> Words:
    """Packed bits (:func:`bits`) as 64-bit words, zeros past the last bit: a row's words
    for one vector, else one row per word (``(words, rows)``)."""
    pad = -signs.shape[-1] % 8
    if pad:
        signs = np.concatenate([signs, np.zeros((*signs.shape[:-1], pad), np.uint8)], axis=-1)
    found = np.ascontiguousarray(signs).view(np.uint64)
    return found if found.ndim == 1 else np.ascontiguousarray(found.T)


def counted(query: Words, rows: Words, size: int) -> Counts:
    """How many signs of each of the first ``size`` rows (``(words, rows)``, as
    :func:`words` gives them) differ from the query's."""
    out = np.empty(size, dtype=np.uint16)
    step = min(CHUNK, size)
    if not step:
        return out
    scratch = np.empty(step, dtype=np.uint64)
    count = np.empty(step, dtype=np.uint8)
    sums = np.empty((-(-len(query) // GROUP), step), dtype=np.uint8)
    for start in range(0, size, step):
        end = min(size, start + step)
        n = end - start
        xor, one = scratch[:n], count[:n]
        for group, first in enumerate(range(0, len(query), GROUP)):
            into = sums[group, :n]
            np.bitwise_xor(rows[first, start:end], query[first], out=xor)
            np.bitwise_count(xor, out=into)
            for word in range(first + 1, min(len(query), first + GROUP)):
                np.bitwise_xor(rows[word, start:end], query[word], out=xor)
                np.bitwise_count(xor, out=one)
                np.add(into, one, out=into)
        total = out[start:end]
        total[...] = sums[0, :n]
        for group in range(1, len(sums)):
            np.add(total, sums[group, :n], out=total)
    return out


def closest(distances: Counts, count: int) -> Rows:
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


def rescored(
    rows: Rows,
    before: tuple[Rows, Scores] | None,
    score: Callable[[Rows, Scores, float], Scores],
    query: Scores,
) -> Scores:
    """``score(rows, query, 0)`` (float32, each row scored alone) for the rows :func:`closest`
    kept, those a shallower round kept (``before``: its rows, ascending, and their scores)
    taken from it: a deeper look keeps those rows and more."""
    if before is None or not len(before[0]):
        return score(rows, query, 0.0)
    at = np.searchsorted(before[0], rows)
    known = at < len(before[0])
    known[known] = before[0][at[known]] == rows[known]
    scores = np.empty(len(rows), dtype=np.float32)
    scores[known] = before[1][at[known]]
    scores[~known] = score(rows[~known], query, 0.0)
    return scores


def _cut(distances: Counts, count: int) -> int:
    """The least distance that ``count`` of the rows reach (``count`` at most their number)."""
    at_most = np.cumsum(np.bincount(distances))
    return int(np.searchsorted(at_most, count))


def wanted(size: int, k: int) -> int:
    """How many rows to keep of ``size`` for a top ``k``: :data:`FEWEST`, one in
    :data:`SHARE`, or :data:`PER_WANTED` per row wanted, whichever is largest."""
    return max(FEWEST, size // SHARE, PER_WANTED * k)


class Signs:
    """The signs of an int8 copy's rows (:class:`~salience.search.coarse.Int8Rows` keeps
    one and says which rows it wrote): with a compact numkong, a row's packed bits each
    (``(rows, bytes)``) and full blocks of them packed for its kernel; else as 64-bit words
    (``(words, rows)``: :func:`words`) that NumPy counts."""

    def __init__(self, dimensions: int) -> None:
        self._rowwise = _compact() is not None
        width = -(-dimensions // 8)
        self._held: npt.NDArray[Any] = (
            np.zeros((0, width), np.uint8)
            if self._rowwise
            else np.zeros((-(-width // 8), 0), np.uint64)
        )
        self._signed = 0  # rows with their signs made (on first use)
        self._packed: list[Any | None] = []  # one per full block; None: to pack again

    def touched(self, values: npt.NDArray[np.int8], rows: Rows, block_rows: int) -> None:
        """``rows`` of ``values`` were (re)written: their signs follow."""
        signed = rows[rows < self._signed]
        if len(signed):
            self._put(signed, values[signed])
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
    ) -> Counts:
        """How many signs of each of the first ``size`` rows differ from the query's. With
        a compact numkong, full blocks packed (with a ``helper``, both threads take the next
        block until none is left) and the rows past them not."""
        self._sign(values, size)
        if not self._rowwise:
            return counted(words(query), self._held, size)
        full = size // block_rows
        self._packed.extend([None] * (full - len(self._packed)))
        out = np.empty(size, dtype=np.uint16)
        blocks = iter(range(full))  # (shared: each next() is one step under the GIL)
        pending = None
        if helper is not None and full > 1:
            pending = helper.submit(self._blocks, query, blocks, block_rows, out)
        try:
            out[full * block_rows :] = _unpacked(query, self._held[full * block_rows : size])
            self._blocks(query, blocks, block_rows, out)
        finally:
            if pending is not None:
                pending.result()
        return out

    def _blocks(self, query: Bits, blocks: Iterator[int], block_rows: int, out: Counts) -> None:
        numkong = _compact()
        assert numkong is not None
        for block in blocks:
            start, end = block * block_rows, (block + 1) * block_rows
            packed = self._packed[block]
            if packed is None:
                packed = self._packed[block] = numkong.hammings_pack(self._held[start:end], "uint1")
            out[start:end] = np.asarray(numkong.hammings_packed(query[None, :], packed))[0]

    def _put(self, rows: Rows | slice, values: npt.NDArray[np.int8]) -> None:
        if self._rowwise:
            self._held[rows] = bits(values)
        else:
            self._held[:, rows] = words(bits(values))

    def _sign(self, values: npt.NDArray[np.int8], size: int) -> None:
        """Make the signs of the rows up to ``size`` that have none yet."""
        done = self._signed
        if done >= size:
            return
        held = self._held if self._rowwise else self._held.T
        if len(held) < size:
            grown = np.zeros((max(size, 2 * len(held)), held.shape[1]), held.dtype)
            grown[:done] = held[:done]
            self._held = grown if self._rowwise else np.ascontiguousarray(grown.T)
        for start in range(done, size, CHUNK):  # (bounded temporaries)
            end = min(size, start + CHUNK)
            self._put(slice(start, end), values[start:end])
        self._signed = size


def _unpacked(query: Bits, signs: Bits) -> Counts:
    """How many signs of each of a few rows (a block's worth at most), not packed, differ
    from the query's (numkong, compact)."""
    if not len(signs):
        return np.zeros(0, dtype=np.uint16)
    numkong = _compact()
    assert numkong is not None
    found = np.asarray(numkong.cdist(query[None, :], signs, "hamming", dtype="uint1"))
    return found.reshape(-1).astype(np.uint16)
