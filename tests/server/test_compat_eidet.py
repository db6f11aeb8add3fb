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


UPKEEP = "/compat/eidet/api/eidet"
ZIP = {"Content-Type": "application/zip"}


def test_consolidation_and_maintenance_answer_eidets_reports(
    client: TestClient, engine: Memory
) -> None:
    for text in (
        "the pallet scanner misread a wet label at dock 3",
        "dock 4's pallet scanner failed on a damp label",
        "wet labels confuse the pallet scanner again",
    ):
        engine.remember(text, type="observation", tags=["scanner"])
    plan = client.post(f"{UPKEEP}/consolidate", json={"dryRun": True})
    assert plan.status_code == 200, plan.text
    assert plan.json() == {
        "candidates": 3,
        "insightsCreated": 1,
        "insightsBoosted": 0,
        "dryRun": True,
    }
    done = client.post(f"{UPKEEP}/consolidate").json()
    assert (done["insightsCreated"], done["dryRun"]) == (1, False)
    upkeep = client.post(f"{UPKEEP}/maintenance", json={"dryRun": True})
    assert upkeep.status_code == 200, upkeep.text
    assert set(upkeep.json()) == {"decayed", "forgotten", "orphans", "dryRun"}


def test_a_pack_travels_with_its_id_and_version(client: TestClient, engine: Memory) -> None:
    engine.remember("Deploys go through ops/deploy.sh, never by hand", tags=["ops"])
    engine.remember("The billing service retries three times", tags=["ops"])
    pack = client.get(
        f"{UPKEEP}/packs/export",
        params={"packId": "team-ops", "name": "Team ops", "version": "1.2.0", "tags": "ops"},
    )
    assert pack.status_code == 200, pack.text
    mounted = client.post(f"{UPKEEP}/packs/import", content=pack.content, headers=ZIP)
    assert mounted.status_code == 200, mounted.text
    assert mounted.json() == {
        "imported": 2,
        "pack": "team-ops",
        "version": "1.2.0",
        "layer": "team-ops",
    }
    (layer,) = client.get(f"{UPKEEP}/layers").json()["layers"]
    assert (layer["name"], layer["kind"], layer["available"]) == ("team-ops", "base", True)


def test_eidets_errors_everywhere_under_its_prefix(client: TestClient, keys: Keys) -> None:
    for method, path in (
        ("GET", f"{UPKEEP}/no-such-route/at/all"),
        ("PATCH", f"{UPKEEP}/consolidate"),
        ("GET", "/compat/eidet/api/nothing"),
    ):
        answer = client.request(method, path, headers=bearer(keys.bob))
        assert answer.status_code in (404, 405), answer.text
        assert set(answer.json()) == {"error", "status"}, answer.text
    short = client.post(UPKEEP, json={"content": "pw hunter2x"}, headers=bearer(keys.bob))
    assert short.status_code == 422
    assert "content" in short.json()["error"]
    assert "hunter2x" not in short.text  # the refused value is never sent back
    refused = client.post(f"{UPKEEP}/maintenance", headers=bearer(keys.bob))
    assert refused.status_code == 403
    assert "admin only" in refused.json()["error"]
    bad = client.get(
        f"{UPKEEP}/packs/export", params={"packId": "x", "name": "y"}, headers=bearer(keys.bob)
    )
    assert bad.status_code == 422
    assert "version" in bad.json()["error"]
