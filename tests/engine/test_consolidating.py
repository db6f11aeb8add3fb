"""Consolidation plans outside the write lock: other writes go on meanwhile, and a plan that
a write meanwhile made untrue is made again (on SQLite and on PostgreSQL)."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor

import pytest

from salience import Config, Memory
from tests.conftest import FakeClock
from tests.embedder import WordHashEmbedder

BOUND_S = 10.0


class SlowLLM:
    """A summarizer that runs ``during`` (once) while it "thinks"."""

    identity = "test:slow"

    def __init__(self) -> None:
        self.during: Callable[[], None] | None = None
        self.calls = 0

    def summarize(self, texts: Sequence[str]) -> str:
        self.calls += 1
        during, self.during = self.during, None
        if during is not None:
            during()
        return "pallet scanner observations: the scanner misreads wet labels"


@pytest.fixture
def llm() -> SlowLLM:
    return SlowLLM()


@pytest.fixture
def engine(config: Config, clock: FakeClock, llm: SlowLLM) -> Iterator[Memory]:
    with Memory.open(config=config, clock=clock, embedder=WordHashEmbedder(), llm=llm) as m:
        yield m


def _observations(memory: Memory, count: int = 5) -> list[str]:
    texts = [
        "the pallet scanner misread a wet label at dock 3",
        "dock 4's pallet scanner failed on a damp label",
        "wet labels confuse the pallet scanner again",
        "scanner at dock 1 read a soaked pallet label wrong",
        "rain-soaked labels made the pallet scanner misread",
    ]
    made = [
        memory.remember(text, type="observation", tags=["scanner"], force=True).id
        for text in texts[:count]
    ]
    assert all(made)
    return [m for m in made if m is not None]


def _insights(memory: Memory) -> list[list[str]]:
    return [list(r.derived_from) for r in memory.list(type="insight")]


def in_another_thread(call: Callable[[], object]) -> object:
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(call).result(timeout=BOUND_S)


def test_a_write_goes_on_while_consolidation_summarises(engine: Memory, llm: SlowLLM) -> None:
    members = _observations(engine)
    written: list[object] = []
    llm.during = lambda: written.append(
        in_another_thread(lambda: engine.remember("the forklift battery was swapped", force=True))
    )
    report = engine.consolidate()
    assert llm.calls == 1
    assert len(written) == 1
    assert [g.action for g in report.groups] == ["create"]
    assert _insights(engine) == [sorted(members)]


def test_a_member_forgotten_meanwhile_is_left_out_of_the_insight(
    engine: Memory, llm: SlowLLM
) -> None:
    members = _observations(engine)
    llm.during = lambda: in_another_thread(lambda: engine.forget(members[0]))
    report = engine.consolidate()
    assert [len(g.members) for g in report.groups] == [4]
    assert _insights(engine) == [sorted(members[1:])]


def test_two_consolidations_at_once_make_one_insight(engine: Memory, llm: SlowLLM) -> None:
    members = _observations(engine)
    other: list[object] = []
    llm.during = lambda: other.append(in_another_thread(engine.consolidate))
    engine.consolidate()
    assert len(other) == 1
    assert _insights(engine) == [sorted(members)]
    assert engine.consolidate().groups == ()  # and idempotent after
