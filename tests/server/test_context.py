"""The server's mode (server/context.py): fixed at start, it only ever tightens; local mode
answers loopback peers and loopback names only."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from salience import Memory
from salience.server.app import create_app
from salience.server.context import is_loopback
from tests.conftest import FakeClock
from tests.loopback import BASE, PEER, local_client
from tests.server.conftest import Keys, bearer


def test_revoking_every_key_does_not_turn_authentication_off(
    engine: Memory, clock: FakeClock
) -> None:
    made = engine.create_key(user="alice")
    with local_client(create_app(engine)) as client:
        assert client.get("/healthz").json()["mode"] == "keys"
        assert client.get("/v1/memories", headers=bearer(made.key)).status_code == 200
        engine.revoke_key(made.record.id)
        for method, path in (("GET", "/v1/memories"), ("POST", "/v1/sessions/start")):
            answer = client.request(method, path)
            assert answer.status_code == 401, answer.text
        assert client.get("/v1/memories", headers=bearer(made.key)).status_code == 401
        assert client.get("/healthz").json()["mode"] == "keys"
        assert client.get("/ui/session").json()["authenticated"] is False


def test_a_key_made_while_in_local_mode_ends_local_mode_for_good(
    client: TestClient, engine: Memory, clock: FakeClock
) -> None:
    assert client.get("/healthz").json()["mode"] == "local"
    assert client.get("/v1/memories").status_code == 200
    made = engine.create_key(user="alice")
    assert client.get("/v1/memories").status_code == 401
    engine.revoke_key(made.record.id)
    assert client.get("/v1/memories").status_code == 401
    assert client.get("/healthz").json()["mode"] == "keys"


@pytest.mark.parametrize("peer", ["203.0.113.9", "10.0.0.2", "192.168.1.4", "::ffff:8.8.8.8"])
def test_local_mode_refuses_a_peer_that_is_not_loopback(engine: Memory, peer: str) -> None:
    """What reaches a server on 0.0.0.0 (started with keys, then every key revoked, or a
    misconfigured proxy) from another machine, even naming the host ``localhost``."""
    with TestClient(create_app(engine), base_url=BASE, client=(peer, 4000)) as client:
        for host in ("127.0.0.1", "localhost"):
            answer = client.get("/v1/memories", headers={"Host": host})
            assert answer.status_code == 403, answer.text
            assert "loopback" in answer.json()["error"]["message"]
        assert client.post("/v1/sessions/start").status_code == 403


@pytest.mark.parametrize("host", ["127.0.0.2", "127.1.2.3", "[::1]", "localhost:8377", "LOCALHOST"])
def test_local_mode_answers_every_loopback_name(engine: Memory, host: str) -> None:
    with TestClient(create_app(engine), base_url=BASE, client=PEER) as client:
        assert client.get("/v1/memories", headers={"Host": host}).status_code == 200


@pytest.mark.parametrize("host", ["evil.example", "127.0.0.1.evil.example", "10.0.0.1"])
def test_local_mode_refuses_a_name_that_is_not_loopback(client: TestClient, host: str) -> None:
    """DNS rebinding: the browser sends the attacker's name with a loopback address."""
    assert client.get("/v1/memories", headers={"Host": host}).status_code == 403


def test_keys_still_work_from_any_peer(engine: Memory, keys: Keys) -> None:
    with TestClient(create_app(engine), base_url=BASE, client=("203.0.113.9", 4000)) as client:
        assert client.get("/v1/memories", headers=bearer(keys.alice)).status_code == 200


@pytest.mark.parametrize(
    ("host", "loopback"),
    [
        ("127.0.0.1", True),
        ("127.255.0.9", True),
        ("::1", True),
        ("[::1]", True),
        ("localhost", True),
        ("0.0.0.0", False),
        ("::", False),
        ("localhost.evil.example", False),
        ("", False),
        (None, False),
    ],
)
def test_is_loopback(host: str | None, loopback: bool) -> None:
    assert is_loopback(host) is loopback


def test_healthz_says_keys_as_soon_as_a_key_exists_without_another_request(
    client: TestClient, engine: Memory, clock: FakeClock
) -> None:
    """A key made by another process (here, straight into the store) while the server runs:
    the next /healthz already says ``keys``, as every request would enforce."""
    assert client.get("/healthz").json()["mode"] == "local"
    engine.create_key(user="alice")
    assert client.get("/healthz").json()["mode"] == "keys"
