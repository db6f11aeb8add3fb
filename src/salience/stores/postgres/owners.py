"""Whether a search's owners are a small part of a large PostgreSQL store.

A full-text search of one user (and the spaces it reads) is planned as GIN's lists of every
row holding a query word, AND-ed with the user's rows: on a store of 1,000 tenants its cost
grows with everyone's rows when a word is common (a word of a date is in most of them: at 2M
memories a tenant of 1,000 recalled in 1.58x the time of a store of its own, p95 2.73x).
When the owners hold at most :data:`SMALL` rows and at most a quarter of a store of
:data:`FROM` rows or more, and the query's words are in more rows than :func:`per_row` times
theirs, the search reads their rows by the user index and tests each against the query
instead (a row read costs about as much as that many entries of GIN's lists): the same rows,
the same scores, a cost that is theirs. The owners' rows are counted once (at most ``SMALL +
1`` index entries) and the count kept for :data:`RECHECK` searches; either way of searching
gives the same answer, so a count grown stale costs time, never a result.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence

from salience.stores.tenancy import FROM, RECHECK, SMALL, small

PER_ROW = 32
"""Entries of GIN's lists that cost about one row read by the user index, at
:data:`PER_ROW_AT` rows or fewer (at 200k memories here: 1,000 scattered rows read and
tested in ~1 ms) ..."""
PER_ROW_AT = 200_000
PER_ROW_FALL = 0.36
"""... and fewer in a larger store, by this power of its size: an entry costs ~4x more there
(each of a common word's rows on a page of its own in the bitmap GIN's lists are read into),
a row read ~2x. Measured at 2M memories (a tenant of 1,000 among 1,000; `bench/tenants.py`):
the search by GIN's lists took 0.9 ms for words in under 5,000 rows, 2.6 ms in 10-20k, 4.3 ms
in 20-32k; the owners' rows read first, 1.8-2.1 ms whatever the words: 14 entries a row
(32 x 10^-0.36)."""


def per_row(total: int) -> float:
    """:data:`PER_ROW` in a store of ``total`` rows."""
    if total <= PER_ROW_AT:
        return PER_ROW
    return float(PER_ROW * (total / PER_ROW_AT) ** -PER_ROW_FALL)


class OwnerSizes:
    """How many rows small owner sets hold, counted when first searched and again now and
    then."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._known: OrderedDict[tuple[str, ...], tuple[int | None, int]] = OrderedDict()

    def own_rows_first(
        self,
        owners: Sequence[str],
        total: int,
        matched: int,
        count: Callable[[list[str], int], int],
    ) -> bool:
        """Whether a search of ``owners`` in a store of ``total`` rows, whose words GIN lists
        ``matched`` times in all, should read the owners' rows first; ``count(owners,
        limit)`` counts their rows, up to ``limit``."""
        entries = per_row(total)
        if total < FROM or not owners or matched <= entries:
            return False
        rows = self._rows(tuple(sorted(set(owners))), total, count)
        return rows is not None and matched > entries * rows

    def _rows(
        self, key: tuple[str, ...], total: int, count: Callable[[list[str], int], int]
    ) -> int | None:
        """The rows of ``key``'s owners if they are a small part of the store, else None."""
        with self._lock:
            known = self._known.get(key)
            if known is not None and known[1] > 0:
                self._known[key] = (known[0], known[1] - 1)
                return known[0]
        counted = count(list(key), SMALL + 1)
        rows = counted if small(counted, total) else None
        with self._lock:
            self._known[key] = (rows, RECHECK)
            self._known.move_to_end(key)
            while len(self._known) > 4096:
                self._known.popitem(last=False)
        return rows
