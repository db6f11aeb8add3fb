"""What a vector search's rounds have fetched from the store, each id once.

A search that looks deeper (the store's filter, or a ``skip``, left too few of the best rows:
:meth:`salience.search.vectors.Vectors.search`) asks again for more rows, and the deeper
rows hold most of the ids the round before fetched. On real chat a write's look past
documents fetched the twelve nearest texts, then the twenty-four nearest, long answers among
them, again: here a later round fetches only the ids no earlier round did. And a search
that skips asks, in its first round, for as many more rows as recent ones skipped
(:class:`Skipping`), so that one round mostly does.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Generic, TypeVar

from salience.stores.base import MemoryFilter

_Found = TypeVar("_Found")


class Fetched(Generic[_Found]):
    """``fetch`` (the store's (found, id) for the ids that pass ``flt``, in their order)
    asked once per id over a search's rounds; ``skip``: what is fetched but is no hit."""

    def __init__(
        self,
        fetch: Callable[[Sequence[str], MemoryFilter], Sequence[tuple[_Found, str]]],
        flt: MemoryFilter,
        skip: Callable[[_Found], bool] | None = None,
    ) -> None:
        self._fetch = fetch
        self._flt = flt
        self._skip = skip
        self._first: tuple[Sequence[str], Sequence[tuple[_Found, str]]] | None = None
        self._hits: dict[str, _Found] = {}
        self._asked: set[str] = set()  # (every id fetched: a hit, or no hit)

    def __call__(self, ids: Sequence[str]) -> Sequence[tuple[_Found, str]]:
        """(found, id) of the ``ids`` that pass the filter and are not skipped, in order."""
        skip = self._skip
        if self._first is None and not self._asked:  # (the first round: most searches' only)
            found = self._fetch(ids, self._flt)
            matched = found if skip is None else [m for m in found if not skip(m[0])]
            self._first = (ids, matched)
            return matched
        asked, hits = self._asked, self._hits
        if self._first is not None:  # (a second round: what the first fetched, kept)
            asked.update(self._first[0])
            hits.update((i, item) for item, i in self._first[1])
            self._first = None
        new = [i for i in ids if i not in asked]
        if new:
            for item, memory_id in self._fetch(new, self._flt):
                if skip is None or not skip(item):
                    hits[memory_id] = item
            asked.update(new)
        return [(hits[i], i) for i in ids if i in hits]

    def counts(self) -> tuple[int, int]:
        """How many ids its rounds fetched, and how many of them were hits."""
        if self._first is not None:
            return len(self._first[0]), len(self._first[1])
        return len(self._asked), len(self._hits)


class Skipping:
    """How many rows a search that skips some (a write's look, past documents) asks for in
    its first round: enough that, were the skipped rows spread evenly at the share of fetched
    rows recent such searches kept, nine in ten would find ``k`` hits (``k`` where nothing is
    skipped), and at most :data:`AT_MOST` times ``k``. Asking ``k`` alone past LongMemEval's
    documents (about half of chat turns) came back short in most looks, and a second round
    followed; asking twice ``k`` always fetched twice the texts where nothing is skipped
    (0.25-0.33 ms a write at 100,000 synthetic memories). The share is a running average: a
    heuristic, which changes how many rounds a search takes and how wide its first net is (a
    write's look keeps more rows of its sign pass for more rows asked:
    :func:`~salience.search.signs.wanted`), so a candidate may only give way to a nearer
    one."""

    AT_MOST = 2
    WEIGHT = 1 / 8
    """Of the newest search in the running average."""
    SURE = 1.28
    """Standard deviations of the hits' count above its mean: nine in ten (a normal's 90th
    percentile)."""

    def __init__(self) -> None:
        self.kept = 1.0  # (none seen yet: as if nothing were skipped)

    def rows(self, k: int) -> int:
        """The rows to ask for first, for ``k`` hits: ``n`` with ``n p - SURE sqrt(n p
        (1 - p))`` about ``k`` (``p`` the share kept), as ``(k + SURE sqrt(k (1 - p))) / p``."""
        kept = max(self.kept, 1 / self.AT_MOST)
        wanted = (k + self.SURE * math.sqrt(k * (1 - kept))) / kept
        return min(self.AT_MOST * k, math.floor(wanted + 0.5))

    def saw(self, fetched: int, hits: int) -> None:
        """A search fetched ``fetched`` rows, of which ``hits`` were kept."""
        if fetched:
            self.kept += (hits / fetched - self.kept) * self.WEIGHT
