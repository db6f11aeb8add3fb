"""A small tenant's own vector index: on a store of many users, a recall pays for its own
memories, not for everyone's.

The store-wide index scores every vector and then keeps the caller's (a recall asks for more
when other users' rows crowd its top k): at 1,000 users over 100,000 memories, a user of
1,000 memories paid for all 100,000, and more than once. PostgreSQL's HNSW index is worse
off: it finds the nearest vectors of the whole store and leaves a small user few or none.

So a search that names its owners (the user and the spaces it reads) is answered, once the
store holds :data:`FROM` vectors or more, by an exact index of those owners' vectors alone
when they hold at most :data:`SMALL` of them and at most a quarter of the store's: the same
:class:`~salience.search.index.VectorIndex` (session-neighbour mixing included), fed by the
store's ``owner_vector_rows`` and kept current as the store-wide index is (the store's
change marker; one indexed query after a write). Its scores equal the store-wide index's
within float32 rounding (a product over fewer rows may sum in another order); the hits of
the tests' recalls are the same, in the same order. Within one recall its session
neighbours and stored vectors (relevance feedback) are read from it too. Copies are kept for the
owner sets searched most recently, within :data:`BUDGET_BYTES`. Larger owners use the
store-wide index, as before: it is as fast for them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from salience.search.index import VectorIndex
from salience.stores.tenancy import FROM, TenantCopies, key_of, small

if TYPE_CHECKING:
    from salience.stores.base import Store

BUDGET_BYTES = 256 * 2**20
"""The most the tenants' copies hold in all (float32 rows), the least recently used first
given up."""


class _Owned:
    """A store as a tenant's index reads it: the vectors of ``owners`` alone."""

    def __init__(self, store: Store, owners: tuple[str, ...]) -> None:
        self._store = store
        self._owners = owners
        self.location = store.location
        self.read_only = True  # (nothing of a tenant's copy is saved beside the store)

    def change_marker(self) -> tuple[int, int]:
        return self._store.change_marker()

    def vector_state(self) -> tuple[int, int]:
        return self._store.owner_vector_state(self._owners)

    def vector_rows(
        self, after: int, limit: int | None = None
    ) -> list[tuple[int, str, str | None, bytes]]:
        return self._store.owner_vector_rows(self._owners, after, limit)


class TenantIndexes:
    """The small tenants' own indexes of one store (see the module docstring)."""

    def __init__(self, store: Store, budget: int = BUDGET_BYTES) -> None:
        self._store = store
        self._copies: TenantCopies[VectorIndex] = TenantCopies(budget, VectorIndex.held_bytes)

    def index_for(self, owners: Sequence[str], total: int) -> VectorIndex | None:
        """The exact index of ``owners``' vectors, up to date, if they are a small part of a
        large store (``total`` vectors); None: search the store-wide index."""
        if total < FROM or not owners:
            return None
        key = key_of(owners)
        index, large = self._copies.find(key)
        if large:
            return None
        if index is None:
            count, _ = self._store.owner_vector_state(key)
            if not small(count, total):
                self._copies.large(key)
                return None
            index = VectorIndex(_Owned(self._store, key))  # type: ignore[arg-type]
        index.refresh()
        size = len(index.loaded_ids())
        if not small(size, total):  # (it grew past the bound: the store-wide index again)
            self._copies.large(key)
            return None
        self._copies.keep(key, index)
        return index

    def kept(self, owners: Sequence[str] | None) -> VectorIndex | None:
        """The index of ``owners`` as the last search left it, if one is kept (no look at
        the store: for the rest of the recall that searched it)."""
        return self._copies.kept(owners)

    def clear(self) -> None:
        """Forget every copy (an erasure: they may hold its vectors)."""
        self._copies.clear()
