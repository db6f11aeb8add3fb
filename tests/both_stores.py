"""Fixtures that run a directory's engine tests on both stores: SQLite and PostgreSQL.

A directory's conftest imports them; a test that is about SQLite itself (its file, its
modes, its pragmas) says so with ``@pytest.mark.sqlite_only`` and runs on SQLite alone.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from salience import Config, Memory
from tests.conftest import FakeClock
from tests.embedder import WordHashEmbedder


@pytest.fixture
def config(home: Path, store_url: str) -> Config:
    """The test settings, on the backend's store."""
    return Config(home=home, signal_gate=False, store_url=store_url)


@pytest.fixture
def gated(
    home: Path, store_url: str, clock: FakeClock, embedder: WordHashEmbedder
) -> Iterator[Memory]:
    """An engine with every gate on, as a user gets it, on the backend's store."""
    config = Config(home=home, store_url=store_url)
    with Memory.open(config=config, clock=clock, embedder=embedder) as engine:
        yield engine


def stored_bytes(memory: Memory) -> bytes:
    """Everything the store holds, as bytes: the SQLite file with its WAL (checkpointed
    first), or every row of every table of the PostgreSQL schema as text."""
    from salience.stores.registry import is_local

    location = memory.store.location
    if is_local(location):
        import sqlite3

        conn = sqlite3.connect(location)
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        conn.close()
        path = Path(location)
        return b"".join(
            p.read_bytes() for p in path.parent.iterdir() if p.name.startswith(path.name)
        )
    rows = memory.store._rows(  # type: ignore[attr-defined]
        "SELECT tablename FROM pg_tables WHERE schemaname = current_schema()"
    )
    dump = []
    for (table,) in rows:
        dump += [str(r[0]) for r in memory.store._rows(f"SELECT t::text FROM {table} t")]  # type: ignore[attr-defined]
    return "\n".join(dump).encode()
