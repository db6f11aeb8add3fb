"""PostgreSQL + pgvector: the store for several processes and hosts on one memory.

The ``postgres`` extra (``pip install 'salience[postgres]'``: psycopg 3 and its pool) is
imported only when a ``postgresql://`` URL is opened.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from salience.errors import ConfigError

if TYPE_CHECKING:
    from salience.stores.postgres.store import PostgresStore

SCHEMES = ("postgresql", "postgres")


def is_postgres_url(target: object) -> bool:
    """Whether ``target`` names a PostgreSQL database (``postgresql://…``)."""
    text = str(target)
    return "://" in text and text.split("://", 1)[0].lower() in SCHEMES


def open_postgres(
    url: str, *, busy_timeout_ms: int = 10000, read_only: bool = False, create: bool = True
) -> PostgresStore:
    """The store in the database at ``url`` (its schema made or upgraded unless ``create`` is
    false or it is opened ``read_only``)."""
    try:
        import psycopg  # noqa: F401
        import psycopg_pool  # noqa: F401
    except ImportError:
        raise ConfigError(
            "PostgreSQL stores need the postgres extra: pip install 'salience[postgres]'"
        ) from None
    from salience.stores.postgres.store import PostgresStore

    return PostgresStore(url, busy_timeout_ms=busy_timeout_ms, read_only=read_only, create=create)
