"""Approximate recall by PostgreSQL's HNSW index: asked from the threshold on, exact below."""

from __future__ import annotations

import json
import random
from dataclasses import replace
from typing import Any

import numpy as np
import pytest

from salience import Config, ConfigError, Memory
from salience.search.index import VectorIndex
from salience.search.pgvector import PgvectorSearch
from salience.stores.base import MemoryFilter
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
        assert isinstance(exact.vectors._index, VectorIndex)  # pgvector is on, not used yet
        expected = [h.record.id for h in exact.search("postgres backups", touch=False)]
    with _engine(postgres_url, tmp_path, clock, pgvector_from=0) as approximate:
        assert isinstance(approximate.vectors._index, PgvectorSearch)
        found = [h.record.id for h in approximate.search("postgres backups", touch=False)]
    assert found == expected  # six vectors: HNSW finds every one


WORDS = "harbour ferry pilot tide dock crane cargo storm lighthouse anchor rope gull".split()


def _conversations(memory: Memory, turns: int = 60) -> None:
    """Sessions of several turns (and turns without one), one re-embedded late."""
    rng = random.Random(5)
    for turn in range(turns):
        words = " ".join(rng.choice(WORDS) for _ in range(5))
        session = None if turn % 7 == 0 else f"s{turn % 4}"
        memory.remember(f"turn {turn}: {words}", session_id=session)
    first = memory.store.vector_rows(0, 1)[0][1]
    memory.vectors.put(first, memory.vectors.embed(["a new turn about the storm"])[0])  # type: ignore[index]


class _AskTheStore:
    """In-memory rows searched through the store's HNSW index: the reference that
    PgvectorSearch must equal (the in-memory index's own arithmetic)."""

    def __init__(self, store: Any) -> None:
        self._store = store
        self._rows_of: Any = None

    def attach(self, rows_of: Any) -> None:
        self._rows_of = rows_of

    def usable(self, size: int) -> bool:
        return True

    def open(self, matrix: Any, state: Any) -> None: ...

    def upsert(self, rows: Any, vectors: Any) -> None: ...

    def mark(self, state: Any) -> None: ...

    def save(self) -> None: ...

    def close(self) -> None: ...

    def discard(self) -> int:
        return 0

    def search(self, query: Any, k: int) -> Any:
        vector = np.ascontiguousarray(query, dtype="<f4").tobytes()
        return self._rows_of(self._store.nearest(vector, k, max(100, k)))


@pytest.mark.parametrize("weight", [0.0, 0.5])
def test_scores_are_the_in_memory_index_s_to_the_last_bit(
    postgres_url: str, tmp_path: Any, clock: FakeClock, weight: float
) -> None:
    with _engine(postgres_url, tmp_path, clock, pgvector_from=0) as memory:
        _conversations(memory)
        remote = memory.vectors._index
        assert isinstance(remote, PgvectorSearch)
        local = VectorIndex(memory.store, _AskTheStore(memory.store))
        queries = [memory.vectors.embed([q])[0] for q in ("storm at the dock", "ferry pilot")]  # type: ignore[index]
        for query, other in (queries, queries[::-1]):
            rows, scores = remote.ranked(query, weight)(10)
            ids = [remote.loaded_ids()[r] for r in rows.tolist()]
            local_rows, local_scores = local.ranked(query, weight)(10)
            assert ids == [local.loaded_ids()[r] for r in local_rows.tolist()]
            assert scores.tobytes() == local_scores.tobytes()
            floor = remote.scores_of(rows, other, weight)
            assert floor.tobytes() == local.scores_of(local_rows, other, weight).tobytes()
        some = local.loaded_ids()[:20]
        assert remote.neighbours(some) == local.neighbours(some)
        stored = remote.stored(some)
        assert all((stored[i] == v).all() for i, v in local.stored(some).items())
        assert remote.gathered(some)[0].tobytes() == local.gathered(some)[0].tobytes()
        asked = [some[3], "01NOSUCHMEMORY0000000000000", some[0]]
        for kind in (remote, local):  # (in order; zeros and False for none)
            found, known = kind.gathered(asked)
            assert known.tolist() == [True, False, True]
            assert found[1].tolist() == [0.0] * found.shape[1]
            assert found[[0, 2]].tobytes() == local.gathered([some[3], some[0]])[0].tobytes()


def test_nothing_is_loaded_but_what_a_search_scores(
    postgres_url: str, tmp_path: Any, clock: FakeClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    with _engine(postgres_url, tmp_path, clock, pgvector_from=0) as memory:
        rng = random.Random(8)
        turns = [
            {
                "content": " ".join(f"w{rng.randrange(3000)}" for _ in range(6)),
                "session_id": f"s{n % 50}",
            }
            for n in range(1000)
        ]
        memory.import_([json.dumps(t) for t in turns])
    with _engine(postgres_url, tmp_path, clock, pgvector_from=0) as memory:
        read: list[int] = []
        vectors_of = memory.store.vectors_of

        def counted(ids: Any) -> Any:
            read.append(len(ids))
            return vectors_of(ids)

        monkeypatch.setattr(memory.store, "vectors_of", counted)
        monkeypatch.setattr(memory.store, "vector_rows", None)  # (a load would fail)
        query = memory.vectors.embed([turns[10]["content"]])[0]  # type: ignore[index]
        hits = memory.vectors.search(query, MemoryFilter(clock.now), 5, neighbour_weight=0.5)
        assert hits[0].record.content == turns[10]["content"]
        assert memory.vectors._local._size == 0
        assert 0 < sum(read) <= 3 * 64  # 64 candidates and their neighbours, of 1,000
        assert memory.search(turns[10]["content"], limit=3, touch=False)


def test_writes_and_deletions_are_seen_by_the_next_search(
    postgres_url: str, tmp_path: Any, clock: FakeClock
) -> None:
    with _engine(postgres_url, tmp_path, clock, pgvector_from=0) as memory:
        for fact in FACTS:
            memory.remember(fact)
        before = {h.record.id for h in memory.search("lighthouse keeper", touch=False)}
        kept = memory.remember("the lighthouse keeper retires in May")
        assert memory.search("lighthouse keeper", touch=False)[0].record.id == kept.id
        memory.purge(kept.id)
        assert {h.record.id for h in memory.search("lighthouse keeper", touch=False)} == before


def test_pgvector_needs_a_postgresql_store(tmp_path: Any, clock: FakeClock) -> None:
    config = Config(home=tmp_path / "home", signal_gate=False, vector_index="pgvector")
    with (
        Memory.open(config=config, clock=clock, embedder=WordHashEmbedder()) as memory,
        pytest.raises(ConfigError, match="needs a PostgreSQL store"),
    ):
        memory.remember("the printer needs toner")


def test_what_was_read_is_read_again_only_when_vectors_or_sessions_change(
    postgres_url: str, tmp_path: Any, clock: FakeClock
) -> None:
    with _engine(postgres_url, tmp_path, clock, pgvector_from=0) as memory:
        turns = [memory.remember(f"turn {i} about the ferry", session_id="a") for i in range(4)]
        remote = memory.vectors._index
        assert isinstance(remote, PgvectorSearch)
        ids = [t.id for t in turns]
        assert remote.neighbours(ids[1:2]) == {ids[1]: (ids[0], ids[2])}
        marker = memory.store.change_marker()
        memory.store.touch([ids[0]], clock.now)  # a write, but no vector changed
        assert memory.store.change_marker() != marker
        remote.refresh()
        assert ids[1] in remote._places  # still held
        store = memory.store
        with store.transaction():
            store._exec("UPDATE memories SET session_id = 'b' WHERE id = %s", (ids[2],))  # type: ignore[attr-defined]
        assert remote.neighbours(ids[1:2]) == {ids[1]: (ids[0], ids[3])}
        later = memory.remember("turn 9 about the ferry", session_id="a")
        assert remote.neighbours([ids[3]]) == {ids[3]: (ids[1], later.id)}


def test_a_deep_look_past_pgvector_s_largest_candidate_list_is_no_error(
    postgres_url: str, tmp_path: Any, clock: FakeClock
) -> None:
    """A filter that keeps few of the nearest rows makes recall look deeper and deeper; past
    pgvector's largest ``hnsw.ef_search`` (1,000) the store asked for more and failed."""
    with _engine(postgres_url, tmp_path, clock, pgvector_from=0) as memory:
        for fact in FACTS:
            memory.remember(fact)
        (vector,) = memory.vectors.embed(["postgres database"])  # type: ignore[misc]
        query = np.asarray(vector, dtype="<f4").tobytes()
        found = memory.store.nearest(query, 1500, 3000)  # type: ignore[attr-defined]
        assert len(found) == len(FACTS)


def test_a_write_s_nearby_look_is_the_hnsw_index_s(
    postgres_url: str, tmp_path: Any, clock: FakeClock
) -> None:
    with _engine(postgres_url, tmp_path, clock, pgvector_from=0) as memory:
        _conversations(memory)
        remote = memory.vectors._index
        assert isinstance(remote, PgvectorSearch)
        query = memory.vectors.embed(["storm at the dock"])[0]  # type: ignore[index]
        rows, scores = remote.nearby(query)(8)
        ids = [remote.loaded_ids()[r] for r in rows.tolist()]
        want_rows, want_scores = remote.ranked(query)(8)
        assert ids == [remote.loaded_ids()[r] for r in want_rows.tolist()]
        assert scores.tobytes() == want_scores.tobytes()
