"""``/v1/eval`` and ``/v1/briefings/log``: the record's HTTP face, each user's own, a read-only
key records nothing and may not save a baseline (on SQLite and on PostgreSQL)."""

from __future__ import annotations

from fastapi.testclient import TestClient

from salience import Memory
from tests.conftest import FakeClock
from tests.server.conftest import Keys, bearer


def _seed(client: TestClient, key: str) -> list[str]:
    made = [
        client.post("/v1/memories", json={"content": text}, headers=bearer(key)).json()["id"]
        for text in ("the blue cluster deploys on port 9443", "deploys run through ops/deploy.sh")
    ]
    client.post("/v1/search", json={"query": "where do deploys run"}, headers=bearer(key))
    client.post(f"/v1/memories/{made[1]}/feedback", json={"used": True}, headers=bearer(key))
    return made


def test_eval_measures_the_callers_own_memories(client: TestClient, keys: Keys) -> None:
    made = _seed(client, keys.alice)
    answer = client.post("/v1/eval", json={"against_profile": "aide"}, headers=bearer(keys.alice))
    assert answer.status_code == 200, answer.text
    report = answer.json()
    assert [p["relevant"] for p in report["probes"]] == [[made[1]]]
    assert [r["label"] for r in report["runs"]] == ["current", "alternative"]
    assert report["runs"][0]["metrics"]["recall_at_10"] == 1.0
    theirs = client.post("/v1/eval", json={}, headers=bearer(keys.bob)).json()
    assert theirs["probes"] == []
    refused = client.post("/v1/eval", json={"save": True}, headers=bearer(keys.alice_read_only))
    assert refused.status_code == 403
    bad = client.post("/v1/eval", json={"against_recall_prior": 3}, headers=bearer(keys.alice))
    assert bad.status_code == 422
    plain = client.post(
        "/v1/eval",
        json={"against_embedder": "none", "against_label": "text only"},
        headers=bearer(keys.alice),
    ).json()
    assert [(r["label"], r["embedder"]) for r in plain["runs"]] == [
        ("current", None),
        ("text only", "none"),
    ]
    assert plain["runs"][1]["ranks"] == {p["key"]: 1 for p in plain["probes"]}
    other = client.post("/v1/eval", json={"against_embedder": "ollama"}, headers=bearer(keys.alice))
    assert other.status_code == 422  # a model at an address: not from a network client
    weighed = client.post(
        "/v1/eval",
        json={
            "against_profile": "rae",
            "against_settings": {"rae_weights": "semantic=0.9,usage=0"},
        },
        headers=bearer(keys.alice),
    )
    assert weighed.status_code == 200, weighed.text
    assert weighed.json()["runs"][1]["settings"] == {"rae_weights": "semantic=0.9,usage=0"}
    for settings in ({"rae_weights": "speed=1"}, {"briefing_budget": "9"}):
        refused = client.post(
            "/v1/eval", json={"against_settings": settings}, headers=bearer(keys.alice)
        )
        assert refused.status_code == 422, refused.text
        assert "settings" in refused.text


def test_the_briefing_log_shows_what_a_session_was_given(
    client: TestClient, keys: Keys, engine: Memory, clock: FakeClock
) -> None:
    made = _seed(client, keys.alice)
    clock.advance(minutes=1)  # the briefing is the newest trace that surfaced them
    given = client.post("/v1/briefing", json={"session_id": "s1"}, headers=bearer(keys.alice))
    assert given.status_code == 200
    client.post("/v1/briefing", json={"record": False}, headers=bearer(keys.alice))  # preview
    client.post("/v1/briefing", json={}, headers=bearer(keys.alice_read_only))  # changes nothing
    client.post(
        f"/v1/memories/{made[0]}/feedback", json={"used": False}, headers=bearer(keys.alice)
    )
    log = client.get("/v1/briefings/log", headers=bearer(keys.alice)).json()
    [entry] = log["briefings"]
    assert entry["session_id"] == "s1"
    assert {m["id"]: m["feedback"] for m in entry["memories"]} == {made[0]: ["fizzle"], made[1]: []}
    assert client.get("/v1/briefings/log", headers=bearer(keys.bob)).json()["briefings"] == []
