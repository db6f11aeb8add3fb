"""A small tenant's ids in a store too large for a dict of all of them.

A recall asks which of its hits still pass its filter (:mod:`salience.briefing.passing`);
the columns answer from each id's row number, and a store of up to
:data:`~salience.briefing.snapshot.SEQ_INDEX_UP_TO` rows keeps a dict of all its ids for
that. A larger store's filter was always the store's: a query per vector search, 0.31 ms of a
small tenant's recall at 500,000 rows (`bench/tenants.py --sqlite`). But a filter naming a
tenant (a user and the spaces it reads) passes none of the others' rows, so a dict of the
tenant's ids answers it: built in one pass over the owner column when the tenant is small
(:func:`~salience.stores.tenancy.small`), then followed change by change as the columns are.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from salience.briefing.passing import matching, owned
from salience.stores.filters import MemoryFilter
from salience.stores.tenancy import TenantCopies, key_of

if TYPE_CHECKING:
    from salience.briefing.columns import Columns
    from salience.models import MemoryRecord

KEPT = 64
"""Tenants whose ids are kept at most (then they are found again)."""


class TenantIds:
    """The small tenants' ids -> row numbers of one version of the columns, and the tenants
    found too large for one (counted again :data:`~salience.stores.tenancy.RECHECK`
    searches later). Its caller holds the columns' lock."""

    def __init__(self) -> None:
        self._ids: dict[tuple[str, ...], dict[str, int]] = {}
        self._for: Columns | None = None
        self._large: TenantCopies[None] = TenantCopies(0, lambda _: 0)  # (its large ones alone)

    def matching(
        self, refresh: Callable[[], Columns], memory_ids: Sequence[str], flt: MemoryFilter
    ) -> list[tuple[int, str]] | None:
        """:func:`~salience.briefing.passing.matching` of the columns as ``refresh`` gives
        them now, for a filter naming a small tenant; None for any other (the store
        answers)."""
        if flt.user is None:
            return None
        key = key_of((flt.user, *flt.spaces))
        if self._large.find(key)[1]:
            return None  # (before a refresh: a large tenant's would cost it a query)
        columns = refresh()
        seq_of = self.of(columns, key)
        return None if seq_of is None else matching(columns, seq_of, memory_ids, flt)

    def of(self, columns: Columns, key: tuple[str, ...]) -> dict[str, int] | None:
        """``key``'s ids and their row numbers in ``columns``; None for a large tenant."""
        if self._for is not columns:
            self._ids, self._for = {}, columns
        found = self._ids.get(key)
        if found is not None:
            return found
        found = owned(columns, key)
        if found is None:
            self._large.large(key)
            return None
        if len(self._ids) >= KEPT:
            self._ids.clear()
        self._ids[key] = found
        return found

    def follow(
        self,
        before: Columns,
        after: Columns,
        gone: Sequence[str],
        rows: Sequence[tuple[int, MemoryRecord]],
    ) -> None:
        """The columns ``before`` changed into ``after``: ``gone`` ids deleted, ``rows``
        written (the ids of columns other than the ones kept for are dropped)."""
        kept, self._ids, self._for = self._ids if self._for is before else {}, {}, None
        for owners, ids in kept.items():
            for memory_id in gone:
                ids.pop(memory_id, None)
            for seq, record in rows:
                if record.user in owners:
                    ids[record.id] = seq
                else:  # (no longer theirs, if it was)
                    ids.pop(record.id, None)
        if kept:
            self._ids, self._for = kept, after
