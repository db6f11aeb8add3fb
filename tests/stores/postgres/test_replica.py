"""Reads from a real streaming replica (``pg_basebackup -R`` of a primary started by the
tests): a caller reads its own writes, a session token carries them to another process, a
stopped replica leaves reads to the primary and nothing is lost, and the server says so."""

from __future__ import annotations

import itertools
import time
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest

from salience import Config, Memory
from salience.models.reading import POSITION, POSITION_HEADER, READER, parse_lsn
from salience.server.app import create_app
from salience.stores.postgres.replica import Health, Replica
from tests.embedder import WordHashEmbedder
from tests.loopback import local_client
from tests.postgres import Replicated, with_schema

pytestmark = pytest.mark.postgres
_names = itertools.count()
WAIT_S = 60  # the longest a condition is waited for (polled, never a fixed sleep)


@pytest.fixture(scope="module")
def servers() -> Iterator[Replicated]:
    pair = Replicated()
    yield pair
    pair.stop()


@pytest.fixture
def urls(servers: Replicated) -> Iterator[tuple[str, str]]:
    """A schema of this test's own: its URL on the primary and on the replica."""
    name = f"rep{next(_names)}"
    with psycopg.connect(servers.url, autocommit=True) as admin:
        admin.execute(f"CREATE SCHEMA {name}")
    try:
        yield with_schema(servers.url, name), with_schema(servers.replica_url, name)
    finally:
        with psycopg.connect(servers.url, autocommit=True) as admin:
            admin.execute(f"DROP SCHEMA {name} CASCADE")


def _open(tmp_path: Path, urls: tuple[str, str], name: str = "a", lag: float = 10) -> Memory:
    primary, replica = urls
    config = Config(
        home=tmp_path / name,
        signal_gate=False,
        store_url=primary,
        store_read_url=replica,
        read_max_lag_s=lag,
    )
    return Memory.open(config=config, embedder=WordHashEmbedder())


def _replica(memory: Memory) -> Replica:
    replica = memory.store.read_replica()
    assert isinstance(replica, Replica)
    return replica


def _caught_up(memory: Memory) -> Health:
    """Wait until the replica is well and has replayed everything the primary holds now."""
    replica = _replica(memory)
    target = memory.store._primary_position()  # type: ignore[attr-defined]
    deadline = time.monotonic() + WAIT_S
    while True:
        health = replica.check()
        if health.state == "ok" and health.replayed >= target:
            return health
        assert time.monotonic() < deadline, f"the replica did not catch up: {health}"
        time.sleep(0.05)  # (polling a condition)


def _replay(servers: Replicated, *, paused: bool) -> None:
    with psycopg.connect(servers.replica_url, autocommit=True) as conn:
        conn.execute("SELECT pg_wal_replay_pause()" if paused else "SELECT pg_wal_replay_resume()")


def _ids(memory: Memory) -> set[str]:
    return {r.id for r in memory.list(limit=1000)}


def test_lsn_text_round_trips_and_bad_text_is_refused() -> None:
    assert parse_lsn("16/B374D848") == (0x16 << 32) | 0xB374D848
    for bad in ("", "16", "x/y", "1/2/3", "123456789/0"):
        with pytest.raises(ValueError, match="not a WAL position"):
            parse_lsn(bad)


def test_a_caller_reads_its_writes_and_a_token_carries_them_to_another_process(
    servers: Replicated, urls: tuple[str, str], tmp_path: Path
) -> None:
    with _open(tmp_path, urls, "a") as a, _open(tmp_path, urls, "b") as b:
        first = a.remember("the crane on pier seven was serviced").id
        _caught_up(a)
        assert first in _ids(a)
        assert _replica(a).reads["replica"] >= 1  # (caught up: read from the replica)
        _replay(servers, paused=True)
        try:
            second = a.remember("the crane on pier nine needs new cables").id
            behind = _replica(a).reads["behind"]
            hits = [h.record.id for h in a.search("crane pier cables")]
            assert second in hits  # its own write, though the replica has not replayed it
            assert second in _ids(a)
            assert _replica(a).reads["behind"] > behind  # (read from the primary)
            # Another process knows nothing of that write: it reads the replica, as it was.
            assert first in _ids(b)
            assert second not in _ids(b)
            # With the writer's position as a session token, it reads the write.
            token = _replica(a).token("")
            assert token is not None
            given = POSITION.set(parse_lsn(token))
            try:
                assert second in _ids(b)
            finally:
                POSITION.reset(given)
            # Another caller of the same process has written nothing: the replica serves it.
            other = READER.set("someone-else")
            try:
                assert second not in {r.id for r in a.list(limit=1000)}
            finally:
                READER.reset(other)
        finally:
            _replay(servers, paused=False)
        _caught_up(a)
        replica_reads = _replica(b).reads["replica"]
        assert second in _ids(b)  # replayed now: every process reads it from the replica
        assert _replica(b).reads["replica"] > replica_reads


def test_a_stopped_replica_leaves_reads_to_the_primary_and_nothing_is_lost(
    servers: Replicated, urls: tuple[str, str], tmp_path: Path
) -> None:
    with _open(tmp_path, urls) as memory:
        written = {memory.remember(f"note {i} about the harbour crane").id for i in range(5)}
        _caught_up(memory)
        assert _ids(memory) == written
        servers.stop_replica()
        try:
            # The last check said "ok": the read finds the replica gone and asks the primary.
            assert len(memory.search("harbour crane", limit=10)) == 5
            written |= {memory.remember(f"later note {i} on the crane").id for i in range(3)}
            assert _ids(memory) == written
            assert _replica(memory).check().state == "down"
            assert _replica(memory).reads["down"] >= 1
        finally:
            servers.start_replica()
        _caught_up(memory)
        before = _replica(memory).reads["replica"]
        assert _ids(memory) == written  # every write, read back from the replica
        assert _replica(memory).reads["replica"] > before


def test_a_replica_lagging_past_the_bound_leaves_every_read_to_the_primary(
    servers: Replicated, urls: tuple[str, str], tmp_path: Path
) -> None:
    with _open(tmp_path, urls, lag=0.2) as memory:
        memory.remember("the crane on pier seven was serviced")
        _caught_up(memory)
        _replay(servers, paused=True)
        reader = READER.set("a reader with no writes")
        try:
            memory.remember("the crane on pier nine needs new cables")
            deadline = time.monotonic() + WAIT_S
            while (health := _replica(memory).check()).state != "lagging":
                assert time.monotonic() < deadline, health
                time.sleep(0.05)  # (polling a condition)
            assert health.lag_s > 0.2
            lagging = _replica(memory).reads["lagging"]
            memory.list(limit=10)
            assert _replica(memory).reads["lagging"] == lagging + 1
        finally:
            READER.reset(reader)
            _replay(servers, paused=False)
        assert _caught_up(memory).lag_s == 0


def test_the_server_answers_positions_and_reports_the_replica(
    servers: Replicated, urls: tuple[str, str], tmp_path: Path
) -> None:
    with _open(tmp_path, urls) as memory:
        client = local_client(create_app(memory))
        _caught_up(memory)
        ready = client.get("/readyz").json()
        assert ready["replica"] == "ok"
        wrote = client.post("/v1/memories", json={"content": "the pier seven crane is blue"})
        assert wrote.status_code == 201
        position = wrote.headers[POSITION_HEADER]
        assert parse_lsn(position) > 0
        # A position from another process is honoured; a malformed one is refused.
        assert client.get("/v1/memories", headers={POSITION_HEADER: position}).status_code == 200
        bad = client.get("/v1/memories", headers={POSITION_HEADER: "yesterday"})
        assert bad.status_code in (400, 422)
        assert POSITION_HEADER in bad.json()["error"]["message"] + str(bad.json())
        servers.stop_replica()
        try:
            memory.store.read_replica().check()  # type: ignore[union-attr]
            ready = client.get("/readyz")
            assert ready.status_code == 200
            assert ready.json()["replica"] == "down"
            assert client.get("/v1/memories").status_code == 200
            metrics = client.get("/metrics").text
            assert "salience_replica_up 0" in metrics
            assert 'salience_replica_reads_total{to="primary",why="down"}' in metrics
        finally:
            servers.start_replica()
