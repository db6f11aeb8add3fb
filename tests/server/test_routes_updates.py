"""``/v1/updates`` over HTTP: the pairs listed with why, confirmed or dismissed, per tenant,
and an agent's key does not end a person's memory by confirming."""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient

from salience import Memory
from tests.server.conftest import Keys, bearer

OLD = "The staging API listens on port 8080."
NEW = "The staging API listens on port 9090 now."


def _pair(client: TestClient, key: str, clock: Any) -> tuple[str, str]:
    said = {"content": OLD, "source": "user"}  # (a person's key: the person's own words)
    old = client.post("/v1/memories", json=said, headers=bearer(key)).json()
    clock.advance(days=1)
    new = client.post("/v1/memories", json={"content": NEW}, headers=bearer(key)).json()
    assert [(x["old_id"], x["state"]) for x in new["updates"]] == [(old["id"], "open")]
    assert "8080 -> 9090" in new["updates"][0]["why"]
    return old["id"], new["id"]


def test_pairs_are_listed_confirmed_and_dismissed(
    client: TestClient, keys: Keys, clock: Any
) -> None:
    old_id, new_id = _pair(client, keys.alice, clock)
    listed = client.get("/v1/updates", headers=bearer(keys.alice)).json()
    assert [(x["new_id"], x["old_id"]) for x in listed] == [(new_id, old_id)]
    assert client.get("/v1/updates", headers=bearer(keys.bob)).json() == []  # (a tenant's own)
    foreign = client.post(f"/v1/updates/{new_id}/{old_id}/confirm", headers=bearer(keys.bob))
    assert foreign.status_code == 404
    done = client.post(f"/v1/updates/{new_id}/{old_id}/confirm", headers=bearer(keys.alice))
    assert (done.status_code, done.json()["outcome"]) == (200, "updated")
    assert done.json()["record"]["parent_id"] == old_id
    again = client.post(f"/v1/updates/{new_id}/{old_id}/confirm", headers=bearer(keys.alice))
    assert (again.status_code, again.json()["error"]["code"]) == (409, "conflict")
    every = client.get("/v1/updates?state=all", headers=bearer(keys.alice)).json()
    assert [x["state"] for x in every] == ["confirmed"]
    bad = client.get("/v1/updates?state=later", headers=bearer(keys.alice))
    assert bad.status_code == 422


def test_a_dismissed_pair_leaves_both_memories(client: TestClient, keys: Keys, clock: Any) -> None:
    old_id, new_id = _pair(client, keys.alice, clock)
    read_only = client.post(
        f"/v1/updates/{new_id}/{old_id}/dismiss", headers=bearer(keys.alice_read_only)
    )
    assert read_only.status_code == 403
    dismissed = client.post(f"/v1/updates/{new_id}/{old_id}/dismiss", headers=bearer(keys.alice))
    assert (dismissed.status_code, dismissed.json()["state"]) == (200, "dismissed")
    assert client.get("/v1/updates", headers=bearer(keys.alice)).json() == []
    old = client.get(f"/v1/memories/{old_id}", headers=bearer(keys.alice)).json()
    assert old["valid_until"] is None


def test_an_agents_key_cannot_confirm_over_a_persons_memory(
    client: TestClient, engine: Memory, keys: Keys, clock: Any
) -> None:
    agent = engine.create_key(user="alice", source="agent").key
    old_id, new_id = _pair(client, keys.alice, clock)  # (alice's key: a person's words)
    refused = client.post(f"/v1/updates/{new_id}/{old_id}/confirm", headers=bearer(agent))
    assert refused.status_code == 403
    old = client.get(f"/v1/memories/{old_id}", headers=bearer(keys.alice)).json()
    assert old["valid_until"] is None
