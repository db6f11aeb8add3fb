"""The array types embedders return (NumPy is imported only by code that embeds)."""

from __future__ import annotations

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
