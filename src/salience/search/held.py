"""Holding a store's vector index for a verb (:meth:`Vectors.held`): brought up to date once,
then used as it is by this thread alone until the block ends. Part of :class:`Vectors`, whose
own attributes it sets."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from salience.search.vectors import Vectors


class Held:
    """The context manager of :meth:`Vectors.held` (re-entrant: only the outermost acts)."""

    __slots__ = ("_outer", "_pending", "_vectors")

    def __init__(self, vectors: Vectors, pending: int) -> None:
        self._vectors, self._pending, self._outer = vectors, pending, False

    def __enter__(self) -> None:
        vectors = self._vectors
        guard = vectors._local.guard  # (the one guard of both indexes)
        guard.acquire()
        if vectors._holding is not None:  # (only this thread can have set it: it holds the guard)
            return
        try:
            index = vectors._choose()
            if vectors._embedder is not None:
                vectors._check()
            if not (self._pending and vectors._local.hold_pending(self._pending, index)):
                index.refresh()
        except BaseException:
            guard.release()
            raise
        index._held = self._outer = True
        vectors._holding = index

    def __exit__(self, *exc: object) -> None:
        vectors = self._vectors
        if self._outer:
            assert vectors._holding is not None
            vectors._holding._held = False
            vectors._holding = None
            vectors._local.release_pending()
        vectors._local.guard.release()
