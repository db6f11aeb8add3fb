"""Shared fixtures: a controllable clock and an engine on a SQLite file in a temp dir."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from salience import Config, Memory
from tests.embedder import WordHashEmbedder

T0 = datetime(2026, 4, 20, 12, 0, 0, tzinfo=UTC)


class FakeClock:
    """A clock that only moves when told to."""

    def __init__(self, start: datetime = T0) -> None:
        self.now = start

    def __call__(self) -> datetime:
        return self.now

    def advance(self, **delta: float) -> datetime:
        self.now += timedelta(**delta)
        return self.now


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def home(tmp_path: Path) -> Path:
    return tmp_path / "home"


@pytest.fixture
def config(home: Path) -> Config:
    # Tests of the verbs use short placeholder texts; the signal gate has its own tests.
    return Config(home=home, signal_gate=False)


@pytest.fixture
def embedder() -> WordHashEmbedder:
    return WordHashEmbedder()


@pytest.fixture
def gated(home: Path, clock: FakeClock, embedder: WordHashEmbedder) -> Iterator[Memory]:
    """An engine with every gate on, as a user gets it."""
    with Memory.open(config=Config(home=home), clock=clock, embedder=embedder) as engine:
        yield engine


@pytest.fixture
def memory(config: Config, clock: FakeClock, embedder: WordHashEmbedder) -> Iterator[Memory]:
    """An engine on a fresh store, with the deterministic test embedder."""
    with Memory.open(config=config, clock=clock, embedder=embedder) as engine:
        yield engine
