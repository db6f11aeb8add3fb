"""An app on a fresh store, with keys for two tenants, a read-only key and an admin key."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from salience import Config, Memory
from salience.engine.keys import create_key
from salience.models import ALL_USERS
from salience.server.app import create_app
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


@pytest.fixture
def client(engine: Memory) -> Iterator[TestClient]:
    """Local mode: no key exists."""
    with local_client(create_app(engine)) as test_client:
        yield test_client


@pytest.fixture
def keys(engine: Memory, clock: FakeClock) -> Keys:
    def make(user: str, **rights: bool) -> str:
        return create_key(engine.store, user=user, now=clock.now, **rights).key

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
