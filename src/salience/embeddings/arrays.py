"""The array types embedders return (NumPy is imported only by code that embeds)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

Matrix = npt.NDArray[np.float32]
Vector = npt.NDArray[np.float32]  # one embedding (a row of a Matrix)


def normalise(matrix: npt.NDArray[np.floating]) -> Matrix:
    """Rows scaled to unit length (an all-zero row stays zero)."""
    rows = np.asarray(matrix, dtype=np.float32)
    norms = np.linalg.norm(rows, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return np.ascontiguousarray(rows / norms, dtype=np.float32)


def moved_toward(query: Vector, examples: Sequence[Vector], weight: float) -> Vector:
    """``normalise(query + weight * mean(examples))`` (Rocchio's relevance feedback); the query
    itself when there are no examples or the sum is zero."""
    if not examples or weight <= 0:
        return query
    moved = query + np.float32(weight) * np.mean(np.stack(examples), axis=0, dtype=np.float32)
    norm = float(np.sqrt(moved.dot(moved)))  # (np.linalg.norm's own steps, without its checks)
    return (moved / norm).astype(np.float32) if norm > 0 else query
