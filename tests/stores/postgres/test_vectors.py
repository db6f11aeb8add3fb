"""A tenant's vectors as PostgreSQL counts them: from what was written since when nothing
written before went, else whole (stores/postgres/vectors.py), as SQLite does."""

from __future__ import annotations

import pytest

from salience.stores.postgres.store import PostgresStore
from tests.stores.churn import OWNERS, churn


def _truth(store: PostgresStore) -> tuple[int, int]:
    row = store._rows(
        "SELECT count(*), coalesce(max(v.vseq), 0) FROM memories m JOIN memory_vectors v "
        'ON v.memory_id = m.id WHERE m."user" = ANY(%s)',
        (list(OWNERS),),
    )[0]
    return int(row[0]), int(row[1])


def test_a_tenants_vector_state_follows_every_change(
    postgres_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = PostgresStore(postgres_url)
    other = PostgresStore(postgres_url)  # (another process)
    wholes: list[tuple[str, ...]] = []
    count_whole = store._owner_state_whole
    monkeypatch.setattr(store, "_owner_state_whole", lambda k: wholes.append(k) or count_whole(k))
    try:
        for step in churn(store, other, 40, erase_at=30):
            assert store.owner_vector_state(OWNERS) == _truth(store), step
        assert 5 < len(wholes) < 30  # (counted whole after a vector went, else from the new ones)
    finally:
        other.close()
        store.close()
