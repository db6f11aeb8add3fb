"""eidet's REST face (server/compat_eidet.py): its store refuses a second copy of a text."""

from __future__ import annotations

from fastapi.testclient import TestClient

from salience import Memory
from tests.server.conftest import Keys, bearer

STORE = "/compat/eidet/api/eidet"
TEXT = "Deploys go through ops/deploy.sh, never by hand"


def test_the_same_content_twice_answers_409_with_the_first_id(
    client: TestClient, engine: Memory
) -> None:
    first = client.post(STORE, json={"content": TEXT, "type": "procedure"})
    assert first.status_code == 201, first.text
    for again in (TEXT, "  deploys go THROUGH ops/deploy.sh,   never by hand "):
        twice = client.post(STORE, json={"content": again, "type": "procedure"})
        assert twice.status_code == 409, twice.text
        assert twice.json()["duplicateId"] == first.json()["id"]
        assert "duplicate" in twice.json()["error"]
    assert len(engine.list()) == 1


def test_a_superseding_store_is_not_a_duplicate(client: TestClient, engine: Memory) -> None:
    first = client.post(STORE, json={"content": TEXT, "type": "procedure"}).json()["id"]
    newer = client.post(
        STORE, json={"content": TEXT + " (since May)", "type": "procedure", "supersedes": first}
    )
    assert newer.status_code == 201, newer.text


def test_another_users_copy_is_not_a_duplicate(client: TestClient, keys: Keys) -> None:
    alice = client.post(STORE, json={"content": TEXT}, headers=bearer(keys.alice))
    bob = client.post(STORE, json={"content": TEXT}, headers=bearer(keys.bob))
    assert (alice.status_code, bob.status_code) == (201, 201)
    assert alice.json()["id"] != bob.json()["id"]
