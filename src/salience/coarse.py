"""A first pass over the vectors in bfloat16: the exact top-k in less time.

At 100k rows of 384 dimensions the float32 matrix-vector product reads 154 MB and is bound
by memory bandwidth (~6-7 ms here, no faster on two threads). A bfloat16 copy halves what is
read, and simsimd's kernels score it with float32 accumulation on every CPU they target
(AVX-512 BF16, AVX2, NEON, and the portable one). The first pass does not decide the answer:
each of its scores carries a proven error bound, and every row whose bound reaches the k-th
best is scored again in float32 (see ``VectorIndex.ranked``), so the result is the float32
top-k.

The bound. Rounding a float32 to bfloat16 (8 significant bits, to nearest) moves it by at most
2^-8 of itself, so each product of rounded coordinates is within (2 * 2^-8 + 2^-16) |q_j e_j|
of q_j e_j. A float32 sum of d terms is within gamma_d = d u / (1 - d u), u = 2^-24, of the
exact sum of its terms, for the first pass and for the float32 re-scoring alike (the
``1.01`` below covers the rounded terms being up to 2^-7 larger). With
sum |q_j e_j| <= |q| |e|:

    |first pass - float32| <= (2^-7 + 2^-16 + 2.02 gamma_d) |q| |e|

simsimd is a core dependency; if it cannot be imported or does not work (see ``_simsimd``),
search keeps the plain float32 product.
"""

from __future__ import annotations

import os
from functools import cache
from typing import TYPE_CHECKING, Any

from salience.lazy import lazy_module

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    Coarse = npt.NDArray[np.uint16]
    Scores = npt.NDArray[np.float32]
else:
    np = lazy_module("numpy")

# Rows are scored in bfloat16 only when every stored vector has unit length within this
# (all bundled and HTTP embedders normalise): the bound is then relative to |q| alone.
UNIT_TOLERANCE = 1e-3
ROW_NORM_MAX = 1 + UNIT_TOLERANCE
# Covers the float32 rounding of the few element-wise steps of session mixing (|values| ~ 1).
ABSOLUTE_SLACK = 1e-6
_CHUNK_ROWS = 8192
_THREADS = max(1, min(4, os.cpu_count() or 1))  # memory-bound: more threads add nothing


@cache
def _simsimd() -> Any | None:
    """simsimd, if it imports and computes a known bfloat16 dot product correctly.

    The check is not idle: once usearch (the ann extra, built on simsimd's successor numkong)
    is loaded, a simsimd loaded after it refuses every input (seen with usearch 2.26).
    salience's own ann module imports simsimd first; the check covers a process that did not.
    """
    try:
        import simsimd
    except ImportError:  # pragma: no cover - simsimd is a core dependency
        return None
    query = np.array([[0x3F80, 0x4000, 0xBF80]], dtype=np.uint16)  # 1, 2, -1
    rows = np.array([[0x4040, 0x3F00, 0x3F80]], dtype=np.uint16)  # 3, 0.5, 1
    try:
        found = simsimd.cdist(query, rows, "dot", dtype="bf16", out_dtype="float32")
        works = np.asarray(found, dtype=np.float32).tolist() == [[3.0]]
    except (TypeError, ValueError):
        works = False
    return simsimd if works else None


def available() -> bool:
    """Whether the bfloat16 kernels can be used in this process."""
    return _simsimd() is not None


def relative_bound(dimensions: int) -> float:
    """The bound above, per unit of |q| |e|."""
    du = dimensions * 2.0**-24
    gamma = du / (1 - du)
    return 2.0**-7 + 2.0**-16 + 2.02 * gamma


def to_bfloat16(values: npt.NDArray[np.float32]) -> Coarse:
    """float32 -> bfloat16 bits (as uint16), rounded to nearest, ties to even.

    For finite values only (the callers check): the carry of a rounding never overflows 32
    bits below the infinities."""
    flat = np.ascontiguousarray(values, dtype=np.float32)
    out = np.empty(flat.shape, dtype=np.uint16)
    source = flat.reshape(-1, flat.shape[-1]) if flat.ndim > 1 else flat.reshape(1, -1)
    target = out.reshape(source.shape)
    for start in range(0, len(source), _CHUNK_ROWS):
        bits = source[start : start + _CHUNK_ROWS].view(np.uint32)
        rounded = bits + np.uint32(0x7FFF)
        rounded += (bits >> np.uint32(16)) & np.uint32(1)
        rounded >>= np.uint32(16)
        target[start : start + _CHUNK_ROWS] = rounded
    return out


def first_pass(query: Coarse, matrix: Coarse) -> Scores:
    """Dot product of the bfloat16 ``query`` with every row of ``matrix``, as float32."""
    simsimd = _simsimd()
    assert simsimd is not None
    found = simsimd.cdist(
        query.reshape(1, -1), matrix, "dot", dtype="bf16", out_dtype="float32", threads=_THREADS
    )
    scores: Scores = np.asarray(found, dtype=np.float32).reshape(len(matrix))
    return scores
