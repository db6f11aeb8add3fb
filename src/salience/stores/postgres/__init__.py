"""PostgreSQL + pgvector: the store for several processes and hosts on one memory.

The ``postgres`` extra (``pip install 'salience[postgres]'``: psycopg 3 and its pool) is
imported only when a ``postgresql://`` URL is opened (:mod:`salience.stores.registry`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

if TYPE_CHECKING:
    from salience.stores.postgres.store import PostgresStore


def open_store(
    location: str,
    *,
    busy_timeout_ms: int,
    create: bool = True,
    read_only: bool = False,
    read_url: str | None = None,
    read_max_lag_s: float = 10.0,
) -> PostgresStore:
    """The store in the database at ``location`` (its schema made or upgraded unless
    ``create`` is false or it is opened ``read_only``; reads for people from the replica
    ``read_url``): the registry's opener, called once it has checked the extra."""
    from salience.stores.postgres.store import PostgresStore

    return PostgresStore(
        location,
        busy_timeout_ms=busy_timeout_ms,
        read_only=read_only,
        create=create,
        read_url=read_url,
        read_max_lag_s=read_max_lag_s,
    )


def open_postgres(
    url: str, *, busy_timeout_ms: int = 10000, read_only: bool = False, create: bool = True
) -> PostgresStore:
    """The store at ``url``, through the registry (a clear error if the extra is missing)."""
    from salience.stores.registry import backend_of

    store = backend_of(url).open(
        url, busy_timeout_ms=busy_timeout_ms, read_only=read_only, create=create
    )
    return cast("PostgresStore", store)
