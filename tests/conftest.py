"""Shared fixtures: a controllable clock and an engine on a SQLite file in a temp dir."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from salience import Config, Memory
from tests.embedder import WordHashEmbedder
from tests.postgres import Server

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


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[Server]:
    """A real PostgreSQL with pgvector for this test session (tests/postgres.py)."""
    server = Server()
    yield server
    server.stop()


@pytest.fixture
def postgres_url(postgres_server: Server) -> Iterator[str]:
    """A store URL on the test server, in a schema of its own."""
    with postgres_server.schema() as url:
        yield url


@pytest.fixture(params=["sqlite", "postgres"])
def backend(request: pytest.FixtureRequest) -> str:
    """Which store a contract test runs on: both, one after the other."""
    return str(request.param)


@pytest.fixture
def store_url(backend: str, request: pytest.FixtureRequest) -> str:
    """The store of this backend: "" (the home's SQLite file) or a PostgreSQL URL."""
    if backend == "sqlite":
        return ""
    return str(request.getfixturevalue("postgres_url"))


POSTGRES_FIXTURES = frozenset({"postgres_url", "postgres_server"})
BROWSER_FIXTURES = frozenset({"browser", "page"})


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """A test marked ``sqlite_only`` runs on SQLite alone (it is about SQLite itself). A test
    on the PostgreSQL server is marked ``postgres``, one that drives Chromium ``browser``, so
    that ``make test-fast`` can leave them out (``make test`` runs everything)."""
    kept, dropped = [], []
    for item in items:
        param = getattr(item, "callspec", None)
        backend = param.params.get("backend") if param is not None else None
        if backend == "postgres" and item.get_closest_marker("sqlite_only"):
            dropped.append(item)
            continue
        fixtures = set(getattr(item, "fixturenames", ()))
        if backend == "postgres" or fixtures & POSTGRES_FIXTURES:
            item.add_marker(pytest.mark.postgres)
        if fixtures & BROWSER_FIXTURES:
            item.add_marker(pytest.mark.browser)
        kept.append(item)
    items[:] = kept
    if dropped:
        config.hook.pytest_deselected(items=dropped)
