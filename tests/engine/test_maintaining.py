"""Maintenance plans outside the write lock and writes a chunk at a time: a memory written
meanwhile is left for the next run (on SQLite and on PostgreSQL)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import pytest

from salience import Config, Memory
from salience.engine import maintaining
from tests.conftest import FakeClock
from tests.embedder import WordHashEmbedder


@pytest.fixture
def kept(config: Config, clock: FakeClock) -> Iterator[Memory]:
    """An engine that forgets observations after 90 days unless consolidated."""
    retained = replace(config, retention_days=90)
    with Memory.open(config=retained, clock=clock, embedder=WordHashEmbedder()) as memory:
        yield memory


def _after_planning(memory: Memory, monkeypatch: pytest.MonkeyPatch, write: Any) -> None:
    plan = memory._maintenance_plan

    def plan_then_write(*args: Any) -> Any:
        planned = plan(*args)
        write()
        return planned

    monkeypatch.setattr(memory, "_maintenance_plan", plan_then_write)


def test_a_memory_changed_after_the_plan_is_left_for_the_next_run(
    kept: Memory, clock: FakeClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    fact = kept.remember("the crane is rated for 40 tonnes", type="fact", importance=0.8).id
    other = kept.remember("the dock opens at six", type="fact", importance=0.8).id
    assert fact
    assert other
    clock.advance(days=60)
    _after_planning(kept, monkeypatch, lambda: kept.update(fact, importance=0.9))
    report = kept.maintain()
    assert [c.memory_id for c in report.decayed] == [other]
    assert kept.get(fact).importance == 0.9  # the person's change stands
    monkeypatch.undo()
    assert kept.maintain().decayed == ()  # a person set it now: nothing to decay yet
    clock.advance(days=30)
    later = {c.memory_id: c for c in kept.maintain().decayed}
    assert later[fact].before == 0.9
    assert later[fact].after < 0.9


def test_an_observation_derived_from_meanwhile_is_not_forgotten(
    kept: Memory, clock: FakeClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen = kept.remember("observed the scanner misread a wet label").id
    assert seen
    clock.advance(days=100)

    def derive() -> None:
        kept.remember("wet labels fool the scanner", type="insight", derived_from=[seen])

    _after_planning(kept, monkeypatch, derive)
    assert kept.maintain().forgotten == ()
    assert kept.get(seen).forget_reason is None


def test_a_long_run_writes_in_chunks_each_its_own_transaction(
    memory: Memory, clock: FakeClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(maintaining, "CHUNK", 4)
    for n in range(10):
        memory.remember(f"fact number {n} about bay {n}", type="fact", importance=0.8)
    clock.advance(days=60)
    store = memory.store
    outer: list[int] = []
    transaction = store.transaction

    def counted() -> Any:
        if not store.in_transaction():
            outer.append(1)
        return transaction()

    monkeypatch.setattr(store, "transaction", counted)
    report = memory.maintain()
    assert len(report.decayed) == 10
    assert len(outer) == 3 + 1  # three chunks of at most 4, then the orphans
