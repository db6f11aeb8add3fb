"""An app on a fresh store, with keys for two tenants, a read-only key and an admin key."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from salience import Config, Memory
from salience.models import ALL_USERS
from salience.server.app import create_app
from salience.server.context import Engine
from salience.server.mcp_http import Gate
from tests.conftest import FakeClock
from tests.embedder import WordHashEmbedder
from tests.loopback import local_client


@dataclass
class Keys:
    alice: str
    bob: str
    alice_read_only: str
    admin: str


@pytest.fixture
def engine(tmp_path: Path, clock: FakeClock, store_url: str) -> Iterator[Memory]:
    """The engine behind the app, on each store in turn (SQLite, PostgreSQL)."""
    config = Config(home=tmp_path / "home", signal_gate=False, store_url=store_url)
    with Memory.open(config=config, clock=clock, embedder=WordHashEmbedder()) as memory:
        yield memory


_APPS: dict[int, FastAPI] = {}


def app_for(memory: Memory) -> FastAPI:
    """The app of :func:`create_app` around ``memory``: one per test process (per body
    limit), pointed at each test's engine in turn. FastAPI builds an app's ~150 routes on
    its first request (~0.7 s here); a test of one request would pay that every time. The
    app keeps nothing of a store but its engine: the engine, the MCP gate's engine and the
    metrics are the new test's."""
    limit = memory.config.max_request_bytes
    app = _APPS.get(limit)
    if app is None:
        app = _APPS[limit] = create_app(memory)
        return app
    engine = Engine(memory)
    app.state.engine = engine
    app.state.metrics.__init__()  # the middleware holds this object: empty it in place
    for route in app.router.routes:
        if isinstance(getattr(route, "app", None), Gate):
            route.app.engine, route.app.app = engine, None  # type: ignore[attr-defined]
    return app


@pytest.fixture
def client(engine: Memory) -> Iterator[TestClient]:
    """Local mode: no key exists."""
    with local_client(app_for(engine)) as test_client:
        yield test_client


@pytest.fixture
def keys(engine: Memory, clock: FakeClock) -> Keys:
    def make(user: str, **rights: bool) -> str:
        return engine.create_key(user=user, **rights).key

    return Keys(
        alice=make("alice"),
        bob=make("bob"),
        alice_read_only=make("alice", read_only=True),
        admin=make("root", admin=True),
    )


def bearer(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


def fingerprint(engine: Memory) -> tuple[list[str], list[str], list[str]]:
    """Every stored value a request could change: each memory with every field (access
    counts and times included), the audit log and the sessions, of every user."""
    return (
        list(engine.export_lines(user=ALL_USERS)),
        [repr(entry) for entry in engine.store.audit_entries(None, None)],
        [repr(session) for session in engine.store.sessions()],
    )
