"""A server's copy of a PostgreSQL store's vectors, loaded while the HNSW index answers."""

from __future__ import annotations

import random
import threading
from dataclasses import replace
from typing import Any

import numpy as np
import pytest

from salience import Config, ConfigError, Memory
from salience.search import rows as rows_module
from salience.search.index import VectorIndex
from salience.search.pgvector import PgvectorSearch
from salience.search.warm import Warming, footprint
from salience.server.context import Engine
from tests.conftest import FakeClock
from tests.embedder import WordHashEmbedder

WORDS = "harbour ferry pilot tide dock crane cargo storm lighthouse anchor rope gull".split()
QUERIES = ("storm at the dock", "the ferry pilot", "cargo crane rope", "gull over the harbour")


def _engine(url: str, tmp_path: Any, clock: FakeClock, **settings: Any) -> Memory:
    config = Config(home=tmp_path / "home", signal_gate=False, store_url=url, pgvector_from=0)
    return Memory.open(config=replace(config, **settings), clock=clock, embedder=WordHashEmbedder())


def _fill(memory: Memory, turns: int = 80) -> list[str]:
    rng = random.Random(3)
    ids = []
    for turn in range(turns):
        words = " ".join(rng.choice(WORDS) for _ in range(5))
        session = None if turn % 6 == 0 else f"s{turn % 5}"
        ids.append(memory.remember(f"turn {turn}: {words}", session_id=session).id)
    return ids


def _ranked(memory: Memory) -> list[list[tuple[str, float]]]:
    return [
        [(h.record.id, h.score) for h in memory.search(q, limit=8, touch=False)] for q in QUERIES
    ]


class _Asked:
    """Counts the store's HNSW searches."""

    def __init__(self, memory: Memory, monkeypatch: pytest.MonkeyPatch) -> None:
        self.count = 0
        nearest = memory.store.nearest  # type: ignore[attr-defined]

        def counted(*args: Any) -> Any:
            self.count += 1
            return nearest(*args)

        monkeypatch.setattr(memory.store, "nearest", counted)


class _Held:
    """Holds the store's vector reads (a load's pages) until released."""

    def __init__(self, memory: Memory, monkeypatch: pytest.MonkeyPatch) -> None:
        self.go = threading.Event()
        vector_rows = memory.store.vector_rows

        def held(*args: Any) -> Any:
            assert self.go.wait(30)
            return vector_rows(*args)

        monkeypatch.setattr(memory.store, "vector_rows", held)


def _warmed(memory: Memory) -> VectorIndex:
    """Search once (the HNSW index answers and a load starts), wait for the copy, adopt it."""
    memory.search(QUERIES[0], touch=False)
    warming = memory.vectors.warming
    assert warming is not None
    assert warming.wait(30)
    memory.search(QUERIES[0], touch=False)
    assert warming.index is not None, warming.failure
    return warming.index


def test_a_server_searches_its_copy_exactly_once_loaded(
    postgres_url: str, tmp_path: Any, clock: FakeClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    with _engine(postgres_url, tmp_path, clock) as writer:
        _fill(writer)
    with _engine(postgres_url, tmp_path, clock, pgvector_from=10**6) as exact:
        expected = _ranked(exact)  # every vector scored in memory
    with _engine(postgres_url, tmp_path, clock) as server:
        Engine(server)  # the HTTP server's: a long-running process
        asked, load = _Asked(server, monkeypatch), _Held(server, monkeypatch)
        server.search(QUERIES[0], touch=False)
        server.search(QUERIES[1], touch=False)
        assert asked.count == 2  # the HNSW index answers while the copy loads
        load.go.set()
        copy = _warmed(server)
        asked.count = 0
        assert _ranked(server) == expected  # ids and scores, exactly
        assert asked.count == 0
        assert server.vectors._index is copy
        assert copy.shape[0] == 80


def test_a_one_shot_process_keeps_no_copy(
    postgres_url: str, tmp_path: Any, clock: FakeClock
) -> None:
    with _engine(postgres_url, tmp_path, clock) as memory:
        _fill(memory, 10)
        memory.search(QUERIES[0], touch=False)
        assert memory.vectors.warming is None
        assert isinstance(memory.vectors._index, PgvectorSearch)
    with _engine(postgres_url, tmp_path, clock, pgvector_warm_mb=0) as memory:
        memory.long_running()
        memory.search(QUERIES[0], touch=False)
        assert memory.vectors.warming is None  # 0: never


def test_writes_are_followed_and_a_deletion_drops_the_copy(
    postgres_url: str, tmp_path: Any, clock: FakeClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    with _engine(postgres_url, tmp_path, clock) as server:
        ids = _fill(server, 40)
        server.long_running()
        copy = _warmed(server)
        asked = _Asked(server, monkeypatch)
        with _engine(postgres_url, tmp_path, clock) as other:  # another process writes
            kept = other.remember("the lighthouse keeper retires in May")
        assert server.search("lighthouse keeper", touch=False)[0].record.id == kept.id
        assert asked.count == 0
        assert server.vectors._index is copy
        assert copy.shape[0] == 41
        with _engine(postgres_url, tmp_path, clock) as other:
            other.purge(ids[3])  # a deletion: the copy cannot follow without a reload
        load = _Held(server, monkeypatch)
        found = server.search("lighthouse keeper", touch=False)
        assert asked.count == 1  # asked the HNSW index at once, not reloaded on this thread
        assert ids[3] not in {h.record.id for h in found}
        warming = server.vectors.warming
        assert warming is not None
        assert warming.index is None
        assert warming.loads == 2
        load.go.set()
        again = _warmed(server)
        assert again is not copy
        assert again.shape[0] == 40


def test_an_erasure_drops_the_copy(postgres_url: str, tmp_path: Any, clock: FakeClock) -> None:
    with _engine(postgres_url, tmp_path, clock) as server:
        _fill(server, 20)
        server.long_running()
        _warmed(server)
        server.vectors.discard_saved()
        warming = server.vectors.warming
        assert warming is not None
        assert warming.index is None
        assert isinstance(server.vectors._index, PgvectorSearch)


def test_a_copy_over_the_budget_is_neither_loaded_nor_kept(
    postgres_url: str, tmp_path: Any, clock: FakeClock
) -> None:
    with _engine(postgres_url, tmp_path, clock) as server:
        _fill(server, 20)
        server.long_running()
        warming = server.vectors.warming
        assert warming is not None
        dims = WordHashEmbedder().dimensions
        warming.budget = footprint(20, dims) - 1
        server.search(QUERIES[0], touch=False)
        assert warming.loads == 0
        warming.budget = footprint(21, dims)
        _warmed(server)
        server.remember("a twenty-first turn about the storm")
        server.remember("a twenty-second turn about the storm")  # now over the budget
        server.search(QUERIES[0], touch=False)
        assert warming.index is None
        assert warming.loads == 1
        assert isinstance(server.vectors._index, PgvectorSearch)


def test_a_load_stops_between_pages_when_told(
    postgres_url: str, tmp_path: Any, clock: FakeClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    with _engine(postgres_url, tmp_path, clock) as memory:
        _fill(memory, 10)
        warming = Warming(memory.store, 1 << 30)
        monkeypatch.setattr(rows_module, "LOAD_PAGE", 3)
        pages = []
        vector_rows = memory.store.vector_rows

        def paged(after: int, limit: int | None = None) -> Any:
            pages.append(after)
            warming._stop.set()  # told to stop while a page is read
            return vector_rows(after, limit)

        monkeypatch.setattr(memory.store, "vector_rows", paged)
        warming.start(10, WordHashEmbedder().dimensions)
        assert warming.wait(30)
        assert len(pages) == 1
        assert isinstance(warming.failure, rows_module.StoppedError)
        assert warming.current(memory.vectors._local.guard) is None


def test_a_copy_that_may_not_reload_says_it_is_stale(tmp_path: Any, clock: FakeClock) -> None:
    config = Config(home=tmp_path / "home", signal_gate=False)
    with Memory.open(config=config, clock=clock, embedder=WordHashEmbedder()) as memory:
        ids = [memory.remember(f"note {i} about the {w}").id for i, w in enumerate(WORDS)]
        copy = VectorIndex(memory.store)
        copy.prepare()
        copy.reloads = False
        memory.remember("one more note about the anchor")
        copy.refresh()
        assert not copy.stale
        assert copy.shape[0] == len(WORDS) + 1
        before = np.array(copy.loaded_ids())
        memory.purge(ids[0])
        copy.refresh()
        assert copy.stale
        assert list(copy.loaded_ids()) == before.tolist()  # left as it was, not read again


def test_the_budget_must_not_be_negative(tmp_path: Any) -> None:
    with pytest.raises(ConfigError, match="pgvector_warm_mb must not be negative"):
        Config(home=tmp_path, pgvector_warm_mb=-1)
