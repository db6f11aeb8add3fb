"""Spies on a vector index, for the search tests."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import numpy as np

from salience.search.index import VectorIndex


@contextlib.contextmanager
def rescoring(index: VectorIndex) -> Iterator[list[int]]:
    """How many rows each float32 scoring of ``index`` scores, meanwhile."""
    rescored: list[int] = []
    real = index._rescore

    def spy(rows: np.ndarray, query: np.ndarray, weight: float) -> np.ndarray:
        rescored.append(len(rows))
        return real(rows, query, weight)

    index._rescore = spy  # type: ignore[method-assign]
    try:
        yield rescored
    finally:
        del index._rescore
