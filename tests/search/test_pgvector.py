"""Approximate recall by PostgreSQL's HNSW index: asked from the threshold on, exact below."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np
import pytest

from salience import Config, ConfigError, Memory
from salience.search.pgvector import PgvectorIndex
from tests.conftest import FakeClock
from tests.embedder import WordHashEmbedder

FACTS = [
    "the printer on floor two needs toner",
    "the scanner driver crashes on macOS",
    "the staging database runs postgres 16",
    "lunch is at noon on fridays",
    "the deploy pipeline has five stages",
    "postgres backups run nightly at two",
]


def _engine(postgres_url: str, tmp_path: Any, clock: FakeClock, **settings: Any) -> Memory:
    config = Config(home=tmp_path / "home", signal_gate=False, store_url=postgres_url)
    return Memory.open(config=replace(config, **settings), clock=clock, embedder=WordHashEmbedder())


def test_recall_asks_the_hnsw_index_from_the_threshold(
    postgres_url: str, tmp_path: Any, clock: FakeClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    with _engine(postgres_url, tmp_path, clock, pgvector_from=0) as memory:
        ids = {memory.remember(fact).id: fact for fact in FACTS}
        asked: list[int] = []
        nearest = memory.store.nearest  # type: ignore[attr-defined]

        def spy(vector: bytes, k: int, ef_search: int = 100) -> list[str]:
            asked.append(k)
            found: list[str] = nearest(vector, k, ef_search)
            return found

        monkeypatch.setattr(memory.store, "nearest", spy)
        hits = memory.search("postgres database backups", touch=False)
        assert asked, "the HNSW index was not asked"
        assert asked[0] >= 64
        assert {ids[h.record.id] for h in hits[:2]} == {FACTS[2], FACTS[5]}


def test_below_the_threshold_recall_is_exact_and_the_same(
    postgres_url: str, tmp_path: Any, clock: FakeClock
) -> None:
    with _engine(postgres_url, tmp_path, clock) as exact:
        for fact in FACTS:
            exact.remember(fact)
        assert exact.vectors._index._ann is not None  # pgvector is on, but not used yet
        assert not exact.vectors._index._ann.usable(len(FACTS))
        expected = [h.record.id for h in exact.search("postgres backups", touch=False)]
    with _engine(postgres_url, tmp_path, clock, pgvector_from=0) as approximate:
        found = [h.record.id for h in approximate.search("postgres backups", touch=False)]
    assert found == expected  # six vectors: HNSW finds every one


def test_the_index_returns_rows_of_loaded_memories_only(
    postgres_url: str, tmp_path: Any, clock: FakeClock
) -> None:
    with _engine(postgres_url, tmp_path, clock, pgvector_from=0) as memory:
        for fact in FACTS:
            memory.remember(fact)
        index = memory.vectors._index
        index.refresh()
        ann = index._ann
        assert isinstance(ann, PgvectorIndex)
        query = np.asarray(memory.vectors.embed(["printer toner"]))[0]
        rows = ann.search(query, 3)
        assert len(rows) == 3
        assert all(0 <= r < len(FACTS) for r in rows)
        assert (
            index.loaded_ids()[rows[0]] == memory.search("printer toner", touch=False)[0].record.id
        )
        assert len(ann.search(query, 0)) == 0


def test_pgvector_needs_a_postgresql_store(tmp_path: Any, clock: FakeClock) -> None:
    config = Config(home=tmp_path / "home", signal_gate=False, vector_index="pgvector")
    with (
        Memory.open(config=config, clock=clock, embedder=WordHashEmbedder()) as memory,
        pytest.raises(ConfigError, match="needs a PostgreSQL store"),
    ):
        memory.remember("the printer needs toner")
