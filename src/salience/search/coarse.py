"""A first pass over the vectors in int8: the exact top-k in a fraction of the time.

At 100k rows of 384 dimensions the float32 matrix-vector product reads 154 MB and is bound
by memory bandwidth (~6 ms here). An int8 copy is a quarter of that, and numkong's packed
int8 kernels compute its dot products exactly, in integers (1.2-2.7 ms on two cores at 100k
here, as the machine's load moved).
The first pass does not decide the answer: each of its scores carries a proven error bound,
and every row whose bound reaches the k-th best is scored again in float32 (see
``VectorIndex.ranked``), so the result is the float32 top k.

Rows. Each row ``e`` is held as int8 ``ê = round(e / s)`` with ``s = max|e_j| / 127`` (a
float32), with ``R_e = |e - s ê|``, the norm of what rounding left out (rounded up).

The query is split into two int8 rows, ``q ~ s1 q̂1 + s2 q̂2``: the second quantises what the
first left out, so what is left, ``r_q``, is ~1/127 of one row's. One pass over the packed
rows gives both exact integer products ``q̂1·ê`` and ``q̂2·ê``; with ``q̃ = s1 q̂1 + s2 q̂2``:

    q·e = s (s1 q̂1·ê + s2 q̂2·ê) + q̃·(e - s ê) + r_q·e

so, by Cauchy-Schwarz, the first pass is within ``|q̃| R_e + |r_q| |e|`` of ``q·e``. The
float32 re-scoring is within ``gamma_d |q| |e|`` of ``q·e`` (``gamma_d = d u / (1 - d u)``,
``u = 2^-24``; the ``1.01`` below covers the rounding of the products), and the few float32
steps that combine the integers with the scales add less than ``16 u |q| |e|``:

    |first pass - float32| <= |q̃| R_e + (|r_q| + (2.02 gamma_d + 16 u) |q|) |e|

Session mixing (``VectorIndex``) carries each row's bound through
``(x_i + w (x_before + x_after)) / |m_i|``; its own four float32 steps, done alike on the first
pass and the re-scoring, add less than ``4 u`` of ``(|x_i| + w |x_before| + w |x_after|) / |m_i|``
each side, which the constant part below covers with another ``8 u |q|`` per row.

Rows past the last full block of ``BLOCK_ROWS`` are scored in float32 directly (within
``gamma_d |q| |e|`` of ``q·e``: the bound covers them too), so new rows cost the next search
nothing until they fill a block, which it then packs once (~1 ms); rewriting a row of a packed
block (re-embedding) has the next search pack that block again.

numkong is a core dependency; if it cannot be imported or does not compute a known product
exactly (see ``_numkong``), search keeps the plain float32 product.
"""

from __future__ import annotations

import os
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, Any

from salience.lazy import lazy_module
from salience.search import signs

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    Matrix = npt.NDArray[np.float32]
    Rows = npt.NDArray[np.intp]
else:
    np = lazy_module("numpy")

# Rows are scored in int8 only when every stored vector has unit length within this (all
# bundled and HTTP embedders normalise): the bound then needs no per-row |e|.
UNIT_TOLERANCE = 1e-3
ROW_NORM_MAX = 1 + UNIT_TOLERANCE
# Covers the float32 rounding of the bound's own arithmetic (per unit of |q|).
ABSOLUTE_SLACK = 1e-6
BLOCK_ROWS = 4096
LEVELS = 127  # int8 values used: -127..127 (never -128, so a sign flip cannot overflow)
_U = 2.0**-24
_UNDERFLOW = 2.0**-70  # > sqrt of float32's smallest normal (2^-63) and of its subnormal steps
# Integer sums stay below 2^31 (int32) up to this many dimensions.
MAX_DIMENSIONS = (2**31 - 1) // LEVELS**2


@cache
def _numkong() -> Any | None:
    """numkong, if it imports and computes known int8 products exactly.

    The check uses the largest values and a length that fills no register evenly: a kernel
    that saturated (16-bit pair sums) or dropped a tail would fail it. If it fails, exact
    search scores every row in float32.
    """
    try:
        import numkong
    except ImportError:  # pragma: no cover - numkong is a core dependency
        return None
    dims = 389
    rows = np.full((67, dims), LEVELS, dtype=np.int8)
    rows[1::2] = -LEVELS
    rows[5, ::3] = 0
    queries = np.stack([np.full(dims, LEVELS, np.int8), np.arange(dims) % 255 - LEVELS])
    queries = queries.astype(np.int8)
    try:
        found = np.asarray(numkong.dots_packed(queries, numkong.dots_pack(rows)))
        unpacked = np.asarray(numkong.cdist(queries, rows, "dot"))
    except (TypeError, ValueError, RuntimeError):
        return None
    want = queries.astype(np.int64) @ rows.astype(np.int64).T
    exact = all(a.shape == want.shape and bool(np.all(a == want)) for a in (found, unpacked))
    return numkong if exact else None


def slack(query: Query) -> np.float32:
    """What covers the float32 rounding of a bound's own arithmetic (mixing's is in
    :meth:`Query.constant`)."""
    return np.float32(ABSOLUTE_SLACK * max(1.0, query.norm))


def available() -> bool:
    """Whether the int8 kernels can be used in this process."""
    return _numkong() is not None


def gamma(dimensions: int) -> float:
    """gamma_d: the relative error bound of a float32 sum of ``dimensions`` products."""
    du = dimensions * _U
    return du / (1 - du)


def quantise(rows: Matrix) -> tuple[npt.NDArray[np.int8], Matrix, Matrix]:
    """Rows (float32, finite) -> int8 rows, their float32 scales, and upper bounds on the
    norms of what rounding left out (``R_e``, float32).

    In float32 for speed; the bound covers its rounding. With p = fl(s ê_j) and
    r~_j = fl(e_j - p), |r~_j - r_j| <= u |r_j| + 2.01 u (|e_j| + |r_j|), so
    |r| <= (|r~| + 2.01 u |e|) / (1 - 3.02 u); the float32 norm of r~ is within gamma_(d+2)
    of |r~|; and |e| <= sqrt(d) max|e_j|. Values so small that they (or their squares)
    leave float32's normal range lose at most ``_UNDERFLOW`` each, added once per dimension.
    """
    magnitude = np.abs(rows).max(axis=1)
    scale = magnitude / np.float32(LEVELS)
    scale[scale == 0] = 1.0  # an all-zero row: any scale, nothing left out
    values = rows * (np.float32(1) / scale)[:, None]
    np.rint(values, out=values)
    np.clip(values, -LEVELS, LEVELS, out=values)
    left = values * scale[:, None]
    np.subtract(rows, left, out=left)
    norm = np.sqrt(np.einsum("ij,ij->i", left, left)).astype(np.float64)
    dims = rows.shape[1]
    bound = norm / (1 - gamma(dims + 2)) + 2.01 * _U * np.sqrt(dims) * magnitude
    bound /= 1 - 3.02 * _U
    bound += np.sqrt(dims) * _UNDERFLOW
    residual = np.nextafter(bound.astype(np.float32), np.float32(np.inf))
    return values.astype(np.int8), scale, residual


@dataclass(frozen=True)
class Query:
    """A query split into two int8 rows (see the module docstring)."""

    vector: Matrix  # q itself (float32)
    rows: npt.NDArray[np.int8]  # shape (2, d)
    scales: tuple[np.float32, np.float32]
    norm: float  # |q|
    split_norm: float  # |q̃|, rounded up
    left: float  # |r_q|, rounded up

    @classmethod
    def of(cls, query: Matrix) -> Query:
        wide = query.astype(np.float64)
        parts = []
        scales = []
        rest = wide
        for _ in range(2):
            scale = np.float32(np.abs(rest).max() / LEVELS)
            scale = scale if scale > 0 else np.float32(1)
            part = np.clip(np.rint(rest / np.float64(scale)), -LEVELS, LEVELS)
            rest = rest - np.float64(scale) * part  # exact in float64 (see the docstring)
            parts.append(part)
            scales.append(scale)
        split = wide - rest
        return cls(
            vector=query,
            rows=np.stack(parts).astype(np.int8),
            scales=(scales[0], scales[1]),
            norm=float(np.linalg.norm(wide)),
            split_norm=float(np.linalg.norm(split)) * (1 + 1e-9),
            left=float(np.linalg.norm(rest)) * (1 + 1e-9) + 1e-12 * float(np.abs(wide).max()),
        )

    def constant(self, dimensions: int) -> float:
        """The part of the bound that is the same for every row, with mixing's rounding:
        ``(|r_q| + (2.02 gamma_d + 24 u) |q|) |e|_max``."""
        relative = 2.02 * gamma(dimensions) + 24 * _U
        return (self.left + relative * self.norm) * ROW_NORM_MAX


class Int8Rows:
    """int8 copies of the first rows of a float32 matrix, packed for numkong in blocks.

    The owner calls :meth:`update` with the rows it wrote; blocks holding them are packed
    again on the next :meth:`first_pass`. Scales and residual norms are kept for every row.
    """

    def __init__(self, dimensions: int) -> None:
        if not 0 < dimensions <= MAX_DIMENSIONS:
            raise ValueError(f"int8 first pass needs 1..{MAX_DIMENSIONS} dimensions")
        self.dimensions = dimensions
        self._packed: list[Any | None] = []  # one per full block; None: to pack again
        self._signs = signs.Signs(dimensions)  # the rows' signs, made on first use
        self._values = np.zeros((0, dimensions), dtype=np.int8)
        self._scale: Matrix = np.zeros(0, dtype=np.float32)
        self._residual: Matrix = np.zeros(0, dtype=np.float32)
        # Integer sums convert to float32 exactly below 2^24; past that, work in float64.
        exact32 = dimensions * LEVELS**2 < 2**24
        self._work = np.float32 if exact32 else np.float64

    @classmethod
    def restored(cls, values: npt.NDArray[np.int8], scale: Matrix, residual: Matrix) -> Int8Rows:
        """Rows as :meth:`arrays` gave them (kept on disk: salience.search.saved), used in
        place: nothing is packed until a search scores it."""
        rows = cls(int(values.shape[1]))
        rows._values, rows._scale, rows._residual = values, scale, residual
        return rows

    def arrays(self) -> tuple[npt.NDArray[np.int8], Matrix, Matrix]:
        """The int8 rows, their scales and residual norms (index = row; rows past the
        owner's last are room to grow)."""
        return self._values, self._scale, self._residual

    @property
    def residuals(self) -> Matrix:
        """``R_e`` of every row held (index = row)."""
        return self._residual

    def update(self, matrix: Matrix, rows: Rows) -> None:
        """(Re)quantise ``rows`` of ``matrix`` (finite values)."""
        if not len(rows):
            return
        needed = int(rows.max()) + 1
        if needed > len(self._scale):
            grown = max(needed, 2 * len(self._scale))
            values = np.zeros((grown, self.dimensions), dtype=np.int8)
            values[: len(self._values)] = self._values
            scale = np.ones(grown, dtype=np.float32)
            scale[: len(self._scale)] = self._scale
            residual = np.zeros(grown, dtype=np.float32)
            residual[: len(self._residual)] = self._residual
            self._values, self._scale, self._residual = values, scale, residual
        for start in range(0, len(rows), BLOCK_ROWS):  # bounded temporaries
            some = rows[start : start + BLOCK_ROWS]
            values, scale, residual = quantise(matrix[some])
            self._values[some] = values
            self._scale[some] = scale
            self._residual[some] = residual
        self._signs.touched(self._values, rows, BLOCK_ROWS)
        for block in np.unique(rows // BLOCK_ROWS).tolist():
            if block < len(self._packed):
                self._packed[block] = None

    def first_pass(self, query: Query, matrix: Matrix, size: int) -> Matrix:
        """Approximate ``matrix[:size] @ q`` for ``query`` (see the module docstring).

        With two or more CPUs the second half of the blocks is scored on a helper thread
        (numkong and NumPy release the GIL): the pass is bound by memory bandwidth, which
        one core does not use up."""
        assert size <= len(self._scale)
        full = size // BLOCK_ROWS
        while len(self._packed) < full:
            self._packed.append(None)
        out: Matrix = np.empty(size, dtype=np.float32)
        half = full // 2
        helper = _helper() if half else None
        pending = helper.submit(self._blocks, query, half, full, out) if helper else None
        try:
            self._blocks(query, 0, half if pending else full, out)
            tail = full * BLOCK_ROWS
            if tail < size:  # not packed yet: float32 (einsum, not BLAS: see VectorIndex)
                out[tail:] = np.einsum("ij,j->i", matrix[tail:size], query.vector)
        finally:
            if pending is not None:
                pending.result()
        return out

    def differing(self, query: npt.NDArray[np.uint8], size: int) -> npt.NDArray[np.uint16]:
        """How many signs of each of the first ``size`` rows differ from the query's
        (:func:`salience.search.signs.bits`)."""
        return self._signs.differing(query, self._values, size, BLOCK_ROWS, _helper())

    def bounds(self, query: Query, rows: Rows | slice) -> Matrix:
        """How far the first pass's score of each of ``rows`` may be from its float32 score
        (no session mixing): ``|q̃| R_e``, the part every row shares, and the bound's own
        float32 arithmetic, added in that order."""
        error = self._residual[rows] * np.float32(query.split_norm)
        error += np.float32(query.constant(self.dimensions))
        error += slack(query)
        return error

    def _combined(self, sums: Any, query: Query, scale: Matrix) -> Matrix:
        """``s (s1 q̂1·ê + s2 q̂2·ê)`` from the two rows of integer products."""
        work = self._work
        combined = sums[0].astype(work)
        combined *= work(query.scales[0])
        combined += work(query.scales[1]) * sums[1].astype(work)
        combined *= scale
        return combined  # type: ignore[no-any-return]

    def _blocks(self, query: Query, first: int, stop: int, out: Matrix) -> None:
        """Score blocks ``first`` to ``stop`` (exclusive) into ``out``."""
        numkong = _numkong()
        assert numkong is not None
        packs = PACKS_PER_PASS
        for block in range(first, stop):
            start, end = block * BLOCK_ROWS, (block + 1) * BLOCK_ROWS
            packed = self._packed[block]
            if packed is None and packs > 0:
                packs -= 1
                packed = self._packed[block] = numkong.dots_pack(self._values[start:end])
            if packed is None:  # the same exact integers, unpacked (see PACKS_PER_PASS)
                sums = np.asarray(numkong.cdist(query.rows, self._values[start:end], "dot"))
            else:
                sums = np.asarray(numkong.dots_packed(query.rows, packed))
            out[start:end] = self._combined(sums, query, self._scale[start:end])


PACKS_PER_PASS = 8
"""Blocks a first pass packs (per thread); the others it scores unpacked. Packing a block
takes ~1.4 ms and makes its later passes ~1.5x faster than unpacked (0.35 against 0.5 ms
here): rows mapped from disk (a million of them: 245 blocks) are not all packed by the first
search of a new process, but over its first dozens."""

BUILD_CHUNK = 65536
"""Rows quantised per step of a background build (~0.2 s here): how long stopping it takes."""


class Int8Build:
    """:class:`Int8Rows` of a matrix's first ``size`` rows, made on a thread of its own.

    The owner keeps writing meanwhile: it lists the rows it writes in :attr:`touched`, and
    when the build is :meth:`done` quantises those again, with the rows past ``size``, before
    it uses :attr:`rows` (the thread may have read a row while it was being written). The
    matrix object given is only read, and only its first ``size`` rows.
    """

    def __init__(self, matrix: Matrix, size: int) -> None:
        self.size = size
        self.rows = Int8Rows(int(matrix.shape[1]))
        self.touched: list[Rows] = []
        self.failure: BaseException | None = None
        self._stopped = False
        self._thread = threading.Thread(
            target=self._run, args=(matrix,), name="salience-int8-build", daemon=True
        )
        self._thread.start()

    def _run(self, matrix: Matrix) -> None:
        try:
            for start in range(0, self.size, BUILD_CHUNK):
                if self._stopped:
                    return
                self.rows.update(matrix, np.arange(start, min(start + BUILD_CHUNK, self.size)))
        except BaseException as exc:  # e.g. out of memory: search stays in float32
            self.failure = exc

    def done(self) -> bool:
        """Whether the thread has finished (or failed: see :attr:`failure`)."""
        return not self._thread.is_alive()

    def wait(self, timeout: float | None = None) -> bool:
        """Wait for the thread (tests, benchmarks); True when it has finished."""
        self._thread.join(timeout)
        return self.done()

    def stop(self) -> None:
        """Stop after the chunk being quantised, and wait for that."""
        self._stopped = True
        self._thread.join()


_helpers: dict[int, ThreadPoolExecutor | None] = {}


def _helper() -> ThreadPoolExecutor | None:
    """One helper thread for the first pass (None on a single CPU), per process: a forked
    child inherits the pool but not its thread, and would wait on it forever. (The CPUs are
    counted once: ``os.cpu_count()`` reads the system, 6-50 µs a search.)"""
    pid = os.getpid()
    if pid not in _helpers:
        _helpers.clear()
        alone = (os.cpu_count() or 1) < 2
        _helpers[pid] = None if alone else ThreadPoolExecutor(1, thread_name_prefix="salience-int8")
    return _helpers[pid]
