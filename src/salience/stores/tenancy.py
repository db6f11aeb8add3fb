"""When a tenant is small: one rule for every part of salience that serves a small tenant of a
large store by its own rows (its own vector index, ``salience.search.tenants``; its own rows
read first for full text on PostgreSQL, ``salience.stores.postgres.owners``).

A tenant is the owners a search names: a user and the spaces it reads.
"""

from __future__ import annotations

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
