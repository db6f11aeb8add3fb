"""The tenant-isolation matrix grown to spaces: alice's memory in the space "team", and for
every route (the table of test_tenants.py), a user with no grant sees and changes nothing of
it, a reader and a key narrowed to reading change nothing, and the space's own routes answer
each right as it should. Both stores."""

from __future__ import annotations

import json
from dataclasses import dataclass

import pytest
from fastapi.testclient import TestClient

from salience import Memory
from tests.server.conftest import bearer
from tests.server.test_tenants import MARKER, ROUTES, Body, _call

pytestmark = [pytest.mark.slow]  # every route against every key: run by make test

TEXT = f"{MARKER} the team deploys payments from the green cluster on port 9443"


@dataclass
class Team:
    memory_id: str
    alice: str  # admin of "team"
    reader: str  # bob: read on "team"
    narrowed: str  # dave: write on "team", his key narrowed to read
    outsider: str  # carol: no grant


@pytest.fixture
def team(engine: Memory) -> Team:
    engine.create_space("team", user="alice")
    engine.grant("team", "bob", "read", user="alice")
    engine.grant("team", "dave", "write", user="alice")
    memory_id = engine.remember(TEXT, user="alice", space="team", source="user").id
    assert memory_id is not None
    return Team(
        memory_id,
        engine.create_key(user="alice").key,
        engine.create_key(user="bob").key,
        engine.create_key(user="dave", spaces={"team": "read"}).key,
        engine.create_key(user="carol").key,
    )


SPACE_ROUTES: dict[tuple[str, str], tuple[Body, str]] = {
    ("GET", "/v1/spaces"): (None, "read"),
    ("GET", "/v1/spaces/team/members"): (None, "read"),
    ("PATCH", "/v1/spaces/team"): ({"keep_contributions": True}, "admin"),
    ("PUT", "/v1/spaces/team/members/carol"): ({"right": "write"}, "admin"),
    ("DELETE", "/v1/spaces/team/members/bob"): (None, "admin"),
    ("DELETE", "/v1/spaces/team"): (None, "admin"),
}
"""Each route of the space itself, and the right it needs."""


@pytest.mark.parametrize(("method", "path"), sorted(ROUTES))
def test_no_grant_sees_or_changes_nothing_of_a_space(
    client: TestClient, team: Team, engine: Memory, method: str, path: str
) -> None:
    before = engine.get(team.memory_id, user="alice")
    body, _ = ROUTES[(method, path)]
    answer = _call(client, method, path, body, team.outsider, team.memory_id)
    assert answer.status_code < 500, answer.text
    assert MARKER not in answer.text
    named = "{memory_id}" in path or "{new_id}" in path
    if named or "{memory_id}" in json.dumps(body if isinstance(body, dict) else {}):
        assert answer.status_code in (403, 404), answer.text
    else:
        assert team.memory_id not in answer.text
    assert engine.get(team.memory_id, user="alice") == before


@pytest.mark.parametrize(("method", "path"), sorted(k for k, v in ROUTES.items() if v[1]))
def test_reading_a_space_never_changes_it(
    client: TestClient, team: Team, engine: Memory, method: str, path: str
) -> None:
    """bob (a read grant) and dave (a write grant, his key narrowed to reading), each in
    turn."""
    before = engine.get(team.memory_id, user="alice")
    body, _ = ROUTES[(method, path)]
    for key in (team.reader, team.narrowed):
        answer = _call(client, method, path, body, key, team.memory_id)
        assert answer.status_code < 500, answer.text
        if "{memory_id}" in path or "{new_id}" in path:
            assert answer.status_code in (403, 404), answer.text
        assert engine.get(team.memory_id, user="alice") == before
        members = [g.user for g in engine.space_members("team", user="alice")]
        assert members == ["alice", "bob", "dave"]


def test_a_reader_and_a_narrowed_key_read_the_space(client: TestClient, team: Team) -> None:
    for key in (team.reader, team.narrowed):
        found = client.post(
            "/v1/search", json={"query": "payments green cluster"}, headers=bearer(key)
        )
        assert [h["record"]["space"] for h in found.json()["hits"]] == ["team"]
        briefing = client.post("/v1/briefing", json={}, headers=bearer(key)).json()
        assert f"[team] {TEXT}" in briefing["text"]
        listed = client.get("/v1/memories", params={"space": "team"}, headers=bearer(key))
        assert [m["id"] for m in listed.json()] == [team.memory_id]
        write = {"content": "a reader tries to write into the team space", "space": "team"}
        assert client.post("/v1/memories", json=write, headers=bearer(key)).status_code == 403
    outsider = client.get("/v1/memories", params={"space": "team"}, headers=bearer(team.outsider))
    assert outsider.status_code == 404
    assert MARKER not in outsider.text


@pytest.mark.parametrize(("method", "path"), sorted(SPACE_ROUTES))
def test_the_spaces_own_routes_answer_each_right(
    client: TestClient, team: Team, engine: Memory, method: str, path: str
) -> None:
    body, needed = SPACE_ROUTES[(method, path)]
    members = [(g.user, g.right) for g in engine.space_members("team", user="alice")]
    for who in ("outsider", "reader", "narrowed"):
        answer = client.request(method, path, json=body, headers=bearer(getattr(team, who)))
        if path == "/v1/spaces":  # (each lists what it has: the outsider, nothing)
            listed = [s["name"] for s in answer.json()]
            assert listed == ([] if who == "outsider" else ["team"]), who
            continue
        expected = 404 if who == "outsider" else 200 if needed == "read" else 403
        assert answer.status_code == expected, (who, answer.text)
        assert [(g.user, g.right) for g in engine.space_members("team", user="alice")] == members
    if method != "GET":
        done = client.request(method, path, json=body, headers=bearer(team.alice))
        assert done.status_code == 200, done.text


def test_an_unknown_space_and_a_bad_name_are_clear(client: TestClient, team: Team) -> None:
    missing = client.get("/v1/spaces/nowhere/members", headers=bearer(team.alice))
    assert missing.status_code == 404
    bad = client.post("/v1/spaces", json={"name": "Not A Name"}, headers=bearer(team.alice))
    assert bad.status_code in (400, 422)
    taken = client.post("/v1/spaces", json={"name": "team"}, headers=bearer(team.alice))
    assert taken.status_code == 409
