"""Tenant isolation, every route: bob's key on alice's ids and data never returns a byte of
hers, and a read-only key never writes. A route missing from the table fails the test."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from salience import ALL_USERS, Memory, NotFoundError
from salience.sharing.packwrite import write_pack
from tests.conftest import T0
from tests.server.conftest import Keys, bearer, fingerprint

pytestmark = [pytest.mark.slow]  # every route against every key: run by make test

MARKER = "ALICEMARKER"
ALICE_TEXT = f"{MARKER} deploys use the blue cluster and src/deploy.py on port 9443"

Body = dict[str, Any] | bytes | None


def _pack() -> bytes:
    """A one-memory knowledge pack, as a client would upload it."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "bob.pack"
        line = json.dumps({"content": "bob imports a memory from a pack"})
        write_pack(path, [line], ["observation"], vectors=None, embedder=None, filters={}, now=T0)
        return path.read_bytes()


PACK = _pack()
TALOME = (Path(__file__).parent.parent / "data" / "importers" / "talome" / "talome.db").read_bytes()
MISSING = {
    "/v1/decision?topic=blue-deploys",
    "/v1/decision/history?topic=blue-deploys",
    "/v1/jobs/{job_id}",
    "/v1/spaces/{name}/members",
}
"""Reads of a topic alice never decided, of a job nobody started, of a space nobody made: a
404 is their answer."""
# (method, path template) -> (body, whether it writes). {id} is alice's memory id.
ROUTES: dict[tuple[str, str], tuple[Body, bool]] = {
    ("POST", "/v1/memories"): ({"content": "bob writes his own memory here"}, True),
    ("GET", "/v1/memories"): (None, False),
    ("GET", "/v1/memories/{memory_id}"): (None, False),
    ("PATCH", "/v1/memories/{memory_id}"): ({"importance": 0.99}, True),
    ("POST", "/v1/memories/{memory_id}/supersede"): ({"content": "bob rewrote it"}, True),
    ("POST", "/v1/memories/{memory_id}/forget"): ({"reason": "bob wants it gone"}, True),
    ("DELETE", "/v1/memories/{memory_id}"): (None, True),
    ("GET", "/v1/memories/{memory_id}/history"): (None, False),
    ("GET", "/v1/memories/{memory_id}/derived"): (None, False),
    ("POST", "/v1/memories/{memory_id}/feedback"): ({"used": False}, True),
    ("POST", "/v1/search"): ({"query": "blue cluster deploys port 9443"}, False),
    ("GET", "/v1/rank"): (None, False),
    ("POST", "/v1/briefing"): ({}, False),
    ("POST", "/v1/sessions/start"): (None, True),
    ("POST", "/v1/sessions/end"): ({"summary": "bob ends a session"}, True),
    ("GET", "/v1/entities"): (None, False),
    ("GET", "/v1/graph"): (None, False),
    ("GET", "/v1/audit"): (None, False),
    ("GET", "/v1/stats"): (None, False),
    ("GET", "/v1/profiles"): (None, False),
    ("GET", "/v1/activity"): (None, False),
    ("GET", "/v1/export"): (None, False),
    ("POST", "/v1/import"): (b'{"content": "bob imports a memory"}\n', True),
    ("POST", "/v1/import/{system}"): (TALOME, True),
    ("GET", "/v1/import"): (None, False),
    ("POST", "/v1/consolidate"): ({}, True),
    ("POST", "/v1/maintain"): ({}, True),
    ("GET", "/v1/decisions"): (None, False),
    ("POST", "/v1/decisions"): ({"topic": "bob-topic", "decision": "bob decides"}, True),
    ("GET", "/v1/decision?topic=blue-deploys"): (None, False),
    ("GET", "/v1/decision/history?topic=blue-deploys"): (None, False),
    ("POST", "/v1/duplicate"): ({"content": ALICE_TEXT}, False),
    ("GET", "/v1/sessions/current"): (None, False),
    ("GET", "/v1/layers"): (None, False),
    ("POST", "/v1/layers"): ({"path": "/tmp/elsewhere.db", "kind": "shared"}, True),
    ("DELETE", "/v1/layers/{name}"): (None, True),
    ("GET", "/v1/packs/export"): (None, False),
    ("POST", "/v1/packs/import"): (PACK, True),
    ("POST", "/v1/reindex"): (None, True),
    ("POST", "/v1/erase"): ({"user": "alice"}, True),
    ("GET", "/v1/jobs"): (None, False),
    ("GET", "/v1/quarantine"): (None, False),
    ("GET", "/v1/stale"): (None, False),
    ("POST", "/v1/eval"): ({}, False),
    ("GET", "/v1/eval/probes"): (None, False),
    ("GET", "/v1/briefings/log"): (None, False),
    ("POST", "/v1/stale/{memory_id}/confirm"): ({}, True),
    ("POST", "/v1/quarantine/{memory_id}/approve"): ({}, True),
    ("POST", "/v1/quarantine/{memory_id}/reject"): ({}, True),
    ("GET", "/v1/updates"): (None, False),
    ("POST", "/v1/updates/{new_id}/{old_id}/confirm"): ({}, True),  # (both: alice's memory)
    ("POST", "/v1/updates/{new_id}/{old_id}/dismiss"): ({}, True),
    ("GET", "/v1/spaces"): (None, False),
    ("POST", "/v1/spaces"): ({"name": "bobs"}, True),
    ("PATCH", "/v1/spaces/{name}"): ({"keep_contributions": True}, True),
    ("DELETE", "/v1/spaces/{name}"): (None, True),
    ("GET", "/v1/spaces/{name}/members"): (None, False),
    ("PUT", "/v1/spaces/{name}/members/{member}"): ({"right": "read"}, True),
    ("DELETE", "/v1/spaces/{name}/members/{member}"): (None, True),
    ("GET", "/v1/jobs/{job_id}"): (None, False),
    ("DELETE", "/v1/jobs/{job_id}"): (None, True),
    ("GET", "/healthz"): (None, False),
    ("GET", "/readyz"): (None, False),
    ("GET", "/metrics"): (None, False),
    ("POST", "/compat/rae/v1/memory/store"): ({"content": "bob stores via rae v1"}, True),
    ("POST", "/compat/rae/v1/memory/query"): ({"query_text": "blue cluster deploys"}, False),
    ("GET", "/compat/rae/v1/memory/list"): (None, False),
    ("DELETE", "/compat/rae/v1/memory/delete?memory_id={memory_id}"): (None, True),
    ("POST", "/compat/rae/v2/memories"): ({"content": "bob stores via rae v2"}, True),
    ("POST", "/compat/rae/v2/memories/query"): (
        {"query": "blue cluster", "project": "blue"},
        False,
    ),
    ("GET", "/compat/rae/v2/memories"): (None, False),
    ("GET", "/compat/rae/v2/memories/stats"): (None, False),
    ("GET", "/compat/rae/v2/memories/{memory_id}"): (None, False),
    ("DELETE", "/compat/rae/v2/memories/{memory_id}"): (None, True),
    ("GET", "/compat/eidet/api/health"): (None, False),
    ("GET", "/compat/eidet/api/eidet/context"): (None, False),
    ("GET", "/compat/eidet/api/eidet/context/preview"): (None, False),
    ("GET", "/compat/eidet/api/eidet/recall?q=blue+cluster+deploys"): (None, False),
    ("POST", "/compat/eidet/api/eidet"): ({"content": "bob stores a memory via eidet"}, True),
    ("POST", "/compat/eidet/api/eidet/feedback"): (
        {"memoryId": "{memory_id}", "wasUsed": False},
        True,
    ),
    ("GET", "/compat/eidet/api/eidet/history/{memory_id}"): (None, False),
    ("PUT", "/compat/eidet/api/eidet/{memory_id}"): ({"importance": 0.1}, True),
    ("DELETE", "/compat/eidet/api/eidet/{memory_id}"): (None, True),
    ("GET", "/compat/eidet/api/eidet/browse"): (None, False),
    ("GET", "/compat/eidet/api/eidet/graph"): (None, False),
    ("GET", "/compat/eidet/api/eidet/stats"): (None, False),
    ("POST", "/compat/eidet/api/eidet/consolidate"): ({}, True),
    ("POST", "/compat/eidet/api/eidet/maintenance"): ({}, True),
    ("GET", "/compat/eidet/api/eidet/layers"): (None, False),
    ("GET", "/compat/eidet/api/eidet/packs/export?packId=p&name=n&version=1"): (None, False),
    ("POST", "/compat/eidet/api/eidet/packs/import"): (PACK, True),
}


def _template(path: str) -> str:
    return path.split("?", maxsplit=1)[0]


def test_the_table_covers_every_route(client: TestClient) -> None:
    paths = client.get("/openapi.json").json()["paths"]
    served = {(method.upper(), path) for path, ops in paths.items() for method in ops}
    tabled = {(method, _template(path)) for method, path in ROUTES}
    assert served == tabled, f"missing: {served - tabled}; extra: {tabled - served}"


def _call(client: TestClient, method: str, path: str, body: Body, key: str, alice: str) -> Any:
    url = path.replace("{memory_id}", alice).replace("{new_id}", alice).replace("{old_id}", alice)
    if url.startswith("/v1/spaces/"):  # (a space nobody made, a member of it)
        url = url.replace("{name}", "blue").replace("{member}", "bob")
    if isinstance(body, dict):
        payload = json.loads(json.dumps(body).replace("{memory_id}", alice))
        return client.request(method, url, json=payload, headers=bearer(key))
    url = url.replace("{system}", "talome")
    kinds = {PACK: "application/zip", TALOME: "application/octet-stream"}
    kind = kinds.get(body, "application/x-ndjson") if isinstance(body, bytes) else ""
    lines = {"Content-Type": kind} if body else {}
    return client.request(method, url, content=body, headers={**bearer(key), **lines})


@pytest.fixture
def alice_memory(engine: Memory) -> str:
    return engine.remember(ALICE_TEXT, user="alice", tags=["project:blue"], project="blue").id or ""


@pytest.mark.parametrize(("method", "path"), sorted(ROUTES))
def test_bob_never_sees_or_changes_alices_memory(
    client: TestClient, keys: Keys, engine: Memory, alice_memory: str, method: str, path: str
) -> None:
    before = engine.get(alice_memory, user="alice")
    body, _ = ROUTES[(method, path)]
    answer = _call(client, method, path, body, keys.bob, alice_memory)
    assert answer.status_code < 500, answer.text
    assert MARKER not in answer.text
    named = "{memory_id}" in path or "{new_id}" in path
    if named or "{memory_id}" in json.dumps(body if isinstance(body, dict) else {}):
        assert answer.status_code in (403, 404), answer.text  # (a 404 may repeat the id asked)
    else:
        assert alice_memory not in answer.text
    assert engine.get(alice_memory, user="alice") == before
    assert all(r.user != "alice" or r.id == alice_memory for r in engine.list(user=ALL_USERS))


def test_bob_cannot_name_alice_as_his_tenant(
    client: TestClient, keys: Keys, alice_memory: str
) -> None:
    for headers in ({"X-Tenant-Id": "alice"}, {"X-Salience-User": "alice"}):
        answer = client.post(
            "/compat/rae/v2/memories/query",
            json={"query": "blue cluster", "project": "blue"},
            headers={**bearer(keys.bob), **headers},
        )
        assert answer.status_code == 403 or MARKER not in answer.text
    rae = client.get("/compat/rae/v1/memory/list?tenant_id=alice", headers=bearer(keys.bob))
    assert rae.status_code == 403
    assert rae.json() == {"detail": "only an admin key may act for another user"}


@pytest.mark.parametrize(("method", "path"), sorted(k for k, v in ROUTES.items() if v[1]))
def test_a_read_only_key_never_writes(
    client: TestClient, keys: Keys, engine: Memory, alice_memory: str, method: str, path: str
) -> None:
    before = engine.list(user=ALL_USERS, include_superseded=True, include_forgotten=True)
    log_before = engine.log(user=ALL_USERS)
    body, _ = ROUTES[(method, path)]
    answer = _call(client, method, path, body, keys.alice_read_only, alice_memory)
    assert answer.status_code == 403, answer.text
    after = engine.list(user=ALL_USERS, include_superseded=True, include_forgotten=True)
    assert after == before
    assert engine.log(user=ALL_USERS) == log_before


def test_alice_reaches_her_own_memory_everywhere(
    client: TestClient, keys: Keys, alice_memory: str
) -> None:
    for method, path in (
        ("GET", "/v1/memories/{memory_id}"),
        ("GET", "/compat/rae/v2/memories/{memory_id}"),
        ("GET", "/compat/eidet/api/eidet/history/{memory_id}"),
    ):
        answer = _call(client, method, path, None, keys.alice, alice_memory)
        assert answer.status_code == 200
        assert MARKER in answer.text
    found = _call(client, "POST", "/v1/search", {"query": "blue cluster"}, keys.alice, alice_memory)
    assert MARKER in found.text


READS = sorted(k for k, v in ROUTES.items() if not v[1])
RECALLS = {("GET", "/compat/eidet/api/eidet/recall?q=blue+cluster+deploys")}
"""GET routes that are a recall: with a key that may write, they count an access (as the
original does and as POST /v1/search does): the access count is part of every profile's
score. A read-only key's recall counts nothing."""


@pytest.mark.parametrize(("method", "path"), READS)
def test_a_read_only_key_changes_no_stored_value_on_any_read_route(
    client: TestClient, keys: Keys, engine: Memory, alice_memory: str, method: str, path: str
) -> None:
    """Not an access count, not a session, not an audit entry (RAE's query counted one)."""
    before = fingerprint(engine)
    body, _ = ROUTES[(method, path)]
    answer = _call(client, method, path, body, keys.alice_read_only, alice_memory)
    assert answer.status_code < 400 or path == "/metrics" or path in MISSING, answer.text
    assert fingerprint(engine) == before


@pytest.mark.parametrize(
    ("method", "path"), [r for r in READS if r[0] == "GET" and r not in RECALLS]
)
def test_a_get_changes_no_stored_value(
    client: TestClient, keys: Keys, engine: Memory, alice_memory: str, method: str, path: str
) -> None:
    before = fingerprint(engine)
    answer = _call(client, method, path, None, keys.admin, alice_memory)
    assert answer.status_code < 500, answer.text
    answer = _call(client, method, path, None, keys.alice, alice_memory)
    assert answer.status_code < 400 or path == "/metrics" or path in MISSING, answer.text
    assert fingerprint(engine) == before


def _import(client: TestClient, key: str, lines: list[dict[str, Any]]) -> Any:
    body = "".join(json.dumps(line) + "\n" for line in lines).encode()
    headers = {**bearer(key), "Content-Type": "application/x-ndjson"}
    return client.post("/v1/import", content=body, headers=headers)


def test_an_import_is_no_oracle_for_another_tenants_ids(
    client: TestClient, keys: Keys, engine: Memory, alice_memory: str
) -> None:
    """Bob imports a record under alice's id and one under an id nobody has: the answers are
    the same, alice's memory is untouched, and neither id becomes bob's (it used to answer
    'id ... is taken' for hers alone)."""
    free = "01JS" + "0" * 21 + "1"
    before = engine.get(alice_memory, user="alice")
    answers = []
    for memory_id in (alice_memory, free):
        line = {"id": memory_id, "content": f"bob's note imported under {memory_id[-4:]}"}
        answer = _import(client, keys.bob, [line])
        answers.append((answer.status_code, answer.json()))
        assert (
            _call(client, "GET", "/v1/memories/{memory_id}", None, keys.bob, memory_id).status_code
            == 404
        )
    assert (
        answers[0]
        == answers[1]
        == (200, {"created": 1, "updated": 0, "unchanged": 0, "renamed": 1})
    )
    assert engine.get(alice_memory, user="alice") == before
    with pytest.raises(NotFoundError):
        engine.get(free, user=ALL_USERS)


def test_a_renamed_import_keeps_its_references_and_is_idempotent(
    client: TestClient, keys: Keys, engine: Memory
) -> None:
    parent, child = "01JS" + "0" * 21 + "2", "01JS" + "0" * 21 + "3"
    lines = [
        {"id": parent, "content": "The cache TTL is 60 seconds", "derived_from": []},
        {"id": child, "content": "The cache TTL is 90 seconds", "derived_from": [parent]},
    ]
    first = _import(client, keys.bob, lines).json()
    assert (first["created"], first["renamed"]) == (2, 2)
    again = _import(client, keys.bob, lines).json()
    assert (again["created"], again["unchanged"]) == (0, 2)
    stored = {r.content: r for r in engine.list(user="bob", include_superseded=True)}
    new_parent = stored["The cache TTL is 60 seconds"].id
    assert new_parent not in (parent, child)
    assert stored["The cache TTL is 90 seconds"].derived_from == (new_parent,)
    exported = _call(client, "GET", "/v1/export", None, keys.bob, "").text
    mine = _import(client, keys.bob, [json.loads(line) for line in exported.splitlines()]).json()
    assert (mine["unchanged"], mine["renamed"]) == (2, 0)  # her own ids are kept


def test_an_admin_restore_keeps_free_ids(client: TestClient, keys: Keys, engine: Memory) -> None:
    free = "01JS" + "0" * 21 + "4"
    headers = {"X-Salience-User": "carol"}
    body = json.dumps({"id": free, "content": "carol's restored note"}) + "\n"
    answer = client.post(
        "/v1/import",
        content=body.encode(),
        headers={**bearer(keys.admin), **headers, "Content-Type": "application/x-ndjson"},
    )
    assert answer.json()["renamed"] == 0
    assert engine.get(free, user="carol").content == "carol's restored note"
