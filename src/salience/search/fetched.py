"""What a vector search's rounds have fetched from the store, each id once.

A search that looks deeper (the store's filter, or a ``skip``, left too few of the best rows:
:meth:`salience.search.vectors.Vectors.search`) asks again for more rows, and the deeper
rows hold most of the ids the round before fetched. On real chat a write's look past
documents fetched the twelve nearest texts, then the twenty-four nearest, long answers among
them, again: here a later round fetches only the ids no earlier round did.
"""

from __future__ import annotations

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
