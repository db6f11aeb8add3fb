"""The native API, route by route, through the real ASGI app (local mode unless keyed)."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

import pytest
from fastapi.testclient import TestClient

from salience import Memory
from salience.ids import SKEW, ulid_time
from tests.conftest import FakeClock
from tests.server.conftest import Keys, bearer

SECRET = "ghp_" + "Zq8Rt2Lm5Xw9Kp3Vn7Bc1Hd4Fj6Gs0Ay2Eu"


def _remember(client: TestClient, content: str, **fields: object) -> str:
    answer = client.post("/v1/memories", json={"content": content, **fields})
    assert answer.status_code == 201, answer.text
    return str(answer.json()["id"])


def test_remember_answers_every_outcome(client: TestClient) -> None:
    created = client.post("/v1/memories", json={"content": "The staging API listens on 8080"})
    assert created.status_code == 201
    assert created.json()["outcome"] == "created"
    assert created.json()["record"]["user"] == "default"
    again = client.post("/v1/memories", json={"content": "the staging API listens on 8080"})
    assert again.status_code == 200
    assert (again.json()["outcome"], again.json()["id"]) == ("duplicate", created.json()["id"])
    refused = client.post("/v1/memories", json={"content": f"the token is {SECRET}"})
    assert refused.status_code == 422
    error = refused.json()["error"]
    assert (error["code"], error["gate"]) == ("rejected", "secret")
    assert "line 1, column" in error["message"]
    assert SECRET not in refused.text


def test_get_update_supersede_history_forget_purge(client: TestClient, clock: FakeClock) -> None:
    memory_id = _remember(client, "Deploys go through Jenkins", type="decision")
    assert client.get(f"/v1/memories/{memory_id}").json()["type"] == "decision"
    updated = client.patch(f"/v1/memories/{memory_id}", json={"importance": 0.9})
    assert (updated.status_code, updated.json()["record"]["importance"]) == (200, 0.9)
    clock.advance(minutes=1)
    new = client.post(f"/v1/memories/{memory_id}/supersede", json={"content": "Deploys use CI"})
    assert new.status_code == 201
    new_id = new.json()["id"]
    chain = client.get(f"/v1/memories/{new_id}/history").json()
    assert [r["id"] for r in chain] == [new_id, memory_id]
    forgotten = client.post(f"/v1/memories/{new_id}/forget", json={"reason": "obsolete"})
    assert forgotten.json()["outcome"] == "forgotten"
    assert client.get("/v1/memories").json() == []
    assert len(client.get("/v1/memories", params={"status": "all"}).json()) == 2
    assert [r["id"] for r in client.get("/v1/memories?status=forgotten").json()] == [new_id]
    conflict = client.patch(f"/v1/memories/{memory_id}", json={"importance": 0.1})
    assert (conflict.status_code, conflict.json()["error"]["code"]) == (409, "conflict")
    purged = client.delete(f"/v1/memories/{new_id}")
    assert (purged.status_code, purged.json()["outcome"]) == (200, "deleted")
    for gone in (new_id, memory_id):  # (the whole chain: its older version too)
        missing = client.get(f"/v1/memories/{gone}")
        assert missing.status_code == 404
        assert missing.json()["error"]["code"] == "not_found"


def test_list_pages(client: TestClient, clock: FakeClock) -> None:
    ids = []
    for n in range(5):
        ids.append(_remember(client, f"memory number {n} about paging"))
        clock.advance(minutes=1)
    first = client.get("/v1/memories", params={"limit": 2}).json()
    second = client.get("/v1/memories", params={"limit": 2, "offset": 2}).json()
    assert [r["id"] for r in first + second] == ids[::-1][:4]


def test_search_explains_and_feedback_moves_importance(client: TestClient) -> None:
    memory_id = _remember(client, "The billing service retries failed charges three times")
    _remember(client, "The search service uses BM25 over titles")
    hits = client.post("/v1/search", json={"query": "billing retries", "limit": 5}).json()["hits"]
    assert hits[0]["record"]["id"] == memory_id
    assert hits[0]["relevance"]["fused"] is not None
    assert {c["name"] for c in hits[0]["breakdown"]} >= {"relevance"}
    echo = client.post(f"/v1/memories/{memory_id}/feedback", json={"used": True})
    assert echo.json()["record"]["importance"] == 0.55
    other = client.post("/v1/search", json={"query": "billing", "profile": "aide"})
    assert other.status_code == 200
    unknown = client.post("/v1/search", json={"query": "billing", "profile": "nope"})
    assert (unknown.status_code, unknown.json()["error"]["code"]) == (400, "config")


def test_rank_briefing_and_sessions(client: TestClient) -> None:
    _remember(client, "User prefers tabs over spaces", type="preference")
    ranked = client.get("/v1/rank", params={"profile": "talome"}).json()
    assert ranked[0]["breakdown"]
    briefing = client.post("/v1/briefing", json={"profile": "talome"}).json()
    assert briefing["text"].startswith("## What I Remember About You")
    assert briefing["manifest"][0]["kept"] is True
    assert briefing["context"].endswith(briefing["text"])  # (what a hook injects)
    text_alone = client.post("/v1/briefing", json={"profile": "talome", "manifest": False})
    assert text_alone.json()["manifest"] == []
    assert text_alone.json()["text"] == briefing["text"]
    started = client.post("/v1/sessions/start").json()
    assert started["is_new"] is True
    ended = client.post("/v1/sessions/end", json={"summary": "Set up the editor config"})
    assert ended.json()["record"]["session_id"] == started["session_id"]


def test_store_routes(client: TestClient, engine: Memory) -> None:
    _remember(client, "Edit src/app.py and restart redis on port 6379")
    assert client.get("/v1/entities").json()
    graph = client.get("/v1/graph").json()
    assert {n["kind"] for n in graph["nodes"]} == {"memory", "entity"}
    assert {e["relation"] for e in graph["edges"]} == {"mentions"}
    assert client.get("/v1/audit").json()[0]["action"] == "create"
    assert client.get("/v1/stats").json()["total"] == 1
    assert any(p["default"] for p in client.get("/v1/profiles").json())
    exported = client.get("/v1/export")
    assert exported.headers["content-type"].startswith("application/x-ndjson")
    lines = exported.text.splitlines()
    assert json.loads(lines[0])["content"].startswith("Edit src/app.py")
    line = json.dumps({"content": "Imported through the API"})
    lines_type = {"Content-Type": "application/x-ndjson"}
    imported = client.post("/v1/import", content=line + "\n", headers=lines_type)
    assert imported.json() == {"created": 1, "updated": 0, "unchanged": 0, "renamed": 0}
    bad = client.post("/v1/import", content=b'{"content": "ok"}\n{broken\n', headers=lines_type)
    assert (bad.status_code, bad.json()["error"]["line"]) == (422, 2)
    assert client.post("/v1/consolidate", json={"dry_run": True}).json()["dry_run"] is True
    assert client.post("/v1/maintain", json={"dry_run": True}).status_code == 200


def test_errors_have_one_shape(client: TestClient) -> None:
    for answer in (
        client.get("/v1/memories/01ARZ3NDEKTSV4RRFFQ69G5FAV"),
        client.post("/v1/memories", json={"content": "x", "bogus": 1}),
        client.post("/v1/memories", content=b"not json"),
        client.get("/v1/nowhere"),
        client.put("/v1/memories"),
        client.post("/v1/search", json={"query": "x", "types": ["a"], "types_exclude": ["b"]}),
    ):
        body = answer.json()
        assert set(body) == {"error"}, answer.text
        assert body["error"]["code"]
        assert body["error"]["message"]


def test_large_bodies_answer_413(client: TestClient, engine: Memory) -> None:
    limit = engine.config.max_request_bytes
    answer = client.post("/v1/import", content=b"x" * (limit + 1))
    assert (answer.status_code, answer.json()["error"]["code"]) == (413, "too_large")


def test_health_metrics_and_docs(client: TestClient) -> None:
    assert client.get("/healthz").json() == {"status": "ok", "mode": "local"}
    assert client.get("/readyz").json() == {"status": "ready"}
    _remember(client, "The staging API listens on 8080")
    text = client.get("/metrics").text
    assert 'salience_http_requests_total{method="POST",route="/v1/memories",status="201"} 1' in text
    assert 'salience_memory_writes_total{outcome="created"} 1' in text
    docs = client.get("/docs").text
    assert "/docs/static/swagger-ui-bundle.js" in docs
    assert "cdn" not in docs.lower()
    assert client.get("/docs/static/swagger-ui-bundle.js").status_code == 200
    assert client.get("/openapi.json").json()["openapi"].startswith("3.1")


def test_keys_gate_every_route_once_one_exists(client: TestClient, keys: Keys) -> None:
    assert client.get("/v1/memories").status_code == 401
    assert (
        client.get("/v1/memories", headers=bearer("sal_0000000000_" + "x" * 43)).status_code == 401
    )
    assert client.get("/v1/memories", headers=bearer(keys.alice)).status_code == 200
    assert client.get("/v1/memories", headers={"X-API-Key": keys.alice}).status_code == 200
    assert client.get("/healthz").status_code == 200
    assert client.get("/metrics").status_code == 401
    assert client.get("/metrics", headers=bearer(keys.alice)).status_code == 403
    assert client.get("/metrics", headers=bearer(keys.admin)).status_code == 200


def test_revoked_keys_are_refused(client: TestClient, keys: Keys, engine: Memory) -> None:

    key_id = keys.alice.split("_")[1]
    engine.revoke_key(key_id)
    assert client.get("/v1/memories", headers=bearer(keys.alice)).status_code == 401
    stored = engine.store.api_key(key_id)
    assert stored is not None
    assert keys.alice.split("_", 2)[2] not in repr(stored)  # only the hash is kept


def test_an_admin_acts_for_others(client: TestClient, keys: Keys) -> None:
    made = client.post(
        "/v1/memories",
        json={"content": "Bob's laptop runs Fedora"},
        headers={**bearer(keys.admin), "X-Salience-User": "bob"},
    )
    assert made.json()["record"]["user"] == "bob"
    everyone = client.get("/v1/memories", headers={**bearer(keys.admin), "X-Salience-User": "*"})
    assert [r["user"] for r in everyone.json()] == ["bob"]
    refused = client.get("/v1/memories", headers={**bearer(keys.alice), "X-Salience-User": "bob"})
    assert (refused.status_code, refused.json()["error"]["code"]) == (403, "forbidden")
    one = client.post(
        "/v1/briefing", json={}, headers={**bearer(keys.admin), "X-Salience-User": "*"}
    )
    assert one.status_code == 403


def test_local_mode_answers_loopback_names_only(client: TestClient) -> None:
    # DNS rebinding: a page on evil.example whose name now points at 127.0.0.1.
    rebound = client.get("/v1/memories", headers={"Host": "evil.example:8377"})
    assert (rebound.status_code, rebound.json()["error"]["code"]) == (403, "forbidden")
    assert client.get("/v1/memories", headers={"Host": "localhost:8377"}).status_code == 200
    assert client.get("/v1/memories", headers={"Host": "127.0.0.1:8377"}).status_code == 200
    assert client.post("/mcp", headers={"Host": "evil.example"}, json={}).status_code == 403


def test_stats_name_the_kind_of_store(client: TestClient, backend: str) -> None:
    body = client.get("/v1/stats").json()
    assert body["store"] == {"sqlite": "sqlite", "postgres": "postgresql"}[backend]


def test_a_refused_import_does_not_date_later_ids(client: TestClient) -> None:
    """A far-future ``created_at`` without an id used to move the process-wide id order to
    2999 before the line was refused: every later id of every user, out of order."""
    line = json.dumps({"content": "from the future", "created_at": "2999-01-01T00:00:00Z"})
    headers = {"Content-Type": "application/x-ndjson"}
    refused = client.post("/v1/import", content=line + "\n", headers=headers)
    assert refused.status_code == 422
    assert refused.json()["error"]["field"] == "created_at"
    made = _remember(client, "The staging API listens on 8080")
    assert ulid_time(made) <= datetime.now(UTC) + SKEW
    old = json.dumps({"content": "Before the epoch", "created_at": "1960-01-01T00:00:00Z"})
    refused = client.post("/v1/import", content=old + "\n", headers=headers)
    assert refused.status_code == 422
    assert "before 1970" in refused.json()["error"]["message"]


PROFILES = ["salience", "aide", "eidet", "ilab", "talome", "rae"]


@pytest.mark.parametrize("profile", PROFILES)
def test_a_time_without_a_zone_is_utc_on_every_route(client: TestClient, profile: str) -> None:
    """One rule for every face (salience.clock): no offset means UTC. Briefing and rank
    answered 500 for it, search 422."""
    _remember(client, "The staging API listens on 8080")
    _remember(client, "Redis runs on port 6379")
    answers = {}
    for given in ("2026-11-25T10:00:00", "2026-11-25T10:00:00Z", "2026-11-25T12:00:00+02:00"):
        briefing = client.post("/v1/briefing", json={"profile": profile, "as_of": given})
        rank = client.get("/v1/rank", params={"profile": profile, "as_of": given})
        search = client.post(
            "/v1/search", json={"query": "staging port", "profile": profile, "as_of": given}
        )
        dry = client.post("/v1/consolidate", json={"dry_run": True, "as_of": given})
        for answer in (briefing, rank, search, dry):
            assert answer.status_code == 200, (given, answer.text)
        answers[given] = (briefing.json(), rank.json(), search.json(), dry.json())
    assert len({json.dumps(a, sort_keys=True) for a in answers.values()}) == 1


@pytest.mark.parametrize("given", ["yesterday", "2026-13-01T00:00:00", "", "12"])
def test_a_time_that_is_not_iso_8601_is_a_422_naming_the_field(
    client: TestClient, given: str
) -> None:
    for answer in (
        client.post("/v1/briefing", json={"as_of": given}),
        client.get("/v1/rank", params={"as_of": given}),
        client.post("/v1/search", json={"query": "x", "as_of": given}),
    ):
        assert answer.status_code == 422, answer.text
        error = answer.json()["error"]
        assert error["field"] == "as_of"
        assert "ISO 8601" in error["message"] or "datetime" in error["message"]


def _time_fields(schema: dict[str, Any]) -> list[tuple[str, str, str, str]]:
    """(method, path, where, name) of every time a request of the API can give, read from
    its own OpenAPI schema (so a new time field is covered without naming it here)."""
    components = schema["components"]["schemas"]

    def is_time(node: dict[str, Any]) -> bool:
        options = node.get("anyOf", [node])
        return any(o.get("format") == "date-time" for o in options)

    found = []
    for path, operations in schema["paths"].items():
        for method, operation in operations.items():
            for parameter in operation.get("parameters", []):
                if is_time(parameter.get("schema", {})):
                    found.append((method.upper(), path, "query", parameter["name"]))
            content = operation.get("requestBody", {}).get("content", {})
            body = content.get("application/json", {}).get("schema", {})
            refs = [o["$ref"] for o in body.get("anyOf", [body]) if "$ref" in o]
            for ref in refs:
                model = components[ref.rsplit("/", 1)[1]]
                for name, node in model.get("properties", {}).items():
                    if is_time(node):
                        found.append((method.upper(), path, "body", name))
    return found


TIME_FORMS = {
    "2026-11-25T10:00:00": 200,
    "2026-11-25T10:00:00Z": 200,
    "2026-11-25T10:00:00.123456+05:30": 200,
    "2026-11-25": 200,
    "2026-11-25 10:00": 200,
    "yesterday": 422,
    "2026-02-30T00:00:00": 422,
    "": 422,
    1700000000: 422,
}


def test_every_time_field_of_the_api_takes_the_one_rule(client: TestClient) -> None:
    _remember(client, "The staging API listens on 8080")
    fields = _time_fields(client.get("/openapi.json").json())
    assert len(fields) >= 5, fields  # search, briefing, rank, consolidate, maintain
    for method, path, where, name in fields:
        for given, status in TIME_FORMS.items():
            if where == "query":
                answer = client.request(method, path, params={name: str(given)})
            else:
                body = {name: given, "query": "staging"} if path == "/v1/search" else {name: given}
                if path in ("/v1/consolidate", "/v1/maintain"):
                    body["dry_run"] = True
                answer = client.request(method, path, json=body)
            assert answer.status_code == status, (method, path, name, given, answer.text)
