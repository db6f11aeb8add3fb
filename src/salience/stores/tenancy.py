"""When a tenant is small: one rule for every part of salience that serves a small tenant of a
large store by its own rows (its own vector index, ``salience.search.tenants``; its own rows
read first for full text on PostgreSQL, ``salience.stores.postgres.owners``, and a copy of
their full text on SQLite, ``salience.stores.sqlite.ownertext``).

A tenant is the owners a search names: a user and the spaces it reads.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from typing import Generic, TypeVar

_C = TypeVar("_C")

FROM = 20_000
"""Store rows from which a small tenant is served by its own rows (below, the store-wide
way is as fast)."""
SMALL = 20_000
"""The most rows a small tenant holds."""
RECHECK = 4096
"""Searches after which a tenant's size is counted again (tenants grow and shrink)."""


def small(count: int, total: int) -> bool:
    """Whether owners holding ``count`` rows are a small tenant of a store of ``total``: at
    most :data:`SMALL` rows, and at most a quarter of the store's."""
    return count <= SMALL and 4 * count <= total


def key_of(owners: Sequence[str]) -> tuple[str, ...]:
    """A tenant's owners as one key (in any order, each once)."""
    return tuple(sorted(set(owners)))


class TenantCopies(Generic[_C]):
    """What a process keeps of its small tenants (their vector indexes, their full text):
    the copies of the tenants searched most recently, within a budget of bytes, and the
    tenants found large, searched the store-wide way until they are counted again
    (:data:`RECHECK` searches later). Thread-safe."""

    def __init__(self, budget: int, size: Callable[[_C], int]) -> None:
        self._budget = budget
        self._size = size
        self._lock = threading.Lock()
        self._kept: OrderedDict[tuple[str, ...], _C] = OrderedDict()
        self._large: OrderedDict[tuple[str, ...], int] = OrderedDict()  # -> searches left

    def find(self, key: tuple[str, ...]) -> tuple[_C | None, bool]:
        """The copy kept for ``key`` (now the most recently used), and whether ``key`` is a
        tenant known to be large (a search counts down to its next count)."""
        with self._lock:
            copy = self._kept.get(key)
            if copy is not None:
                self._kept.move_to_end(key)
                return copy, False
            left = self._large.get(key)
            if left is None:
                return None, False
            if left <= 1:
                del self._large[key]
                return None, False
            self._large[key] = left - 1
            return None, True

    def large(self, key: tuple[str, ...]) -> None:
        """``key`` is no small tenant (any copy of it given up)."""
        with self._lock:
            self._kept.pop(key, None)
            self._large[key] = RECHECK
            self._large.move_to_end(key)
            while len(self._large) > 4096:
                self._large.popitem(last=False)

    def keep(self, key: tuple[str, ...], copy: _C, instead_of: _C | None = None) -> bool:
        """Keep ``copy`` for ``key``, the most recently used (with ``instead_of``: only if
        that is still the one kept), then give up the least recently used copies past the
        budget (the newest stays); whether it was kept."""
        with self._lock:
            if instead_of is not None and self._kept.get(key) is not instead_of:
                return False
            self._kept[key] = copy
            self._kept.move_to_end(key)
            held = sum(self._size(kept) for kept in self._kept.values())
            while held > self._budget and len(self._kept) > 1:
                _, dropped = self._kept.popitem(last=False)
                held -= self._size(dropped)
            return True

    def forget(self, key: tuple[str, ...], copy: _C) -> None:
        """Give up ``copy`` if it is the one kept for ``key``."""
        with self._lock:
            if self._kept.get(key) is copy:
                del self._kept[key]

    def kept(self, owners: Sequence[str] | None) -> _C | None:
        """The copy kept for ``owners``, if any (no change to the order of use)."""
        if not owners:
            return None
        with self._lock:
            return self._kept.get(key_of(owners))

    def clear(self) -> None:
        """Keep no copy, and count every tenant again."""
        with self._lock:
            self._kept.clear()
            self._large.clear()
