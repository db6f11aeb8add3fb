"""``/v1`` decisions, layers, packs and reindexing over HTTP: what a tenant may do, what
only an admin may, and that a bad pack changes nothing."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

from fastapi.testclient import TestClient

from salience import Memory
from salience.sharing.packs import read_pack
from tests.server.conftest import Keys, bearer, fingerprint

ZIP = {"Content-Type": "application/zip"}


def _pack_of(client: TestClient, key: str, tmp_path: Path, name: str) -> list[str]:
    answer = client.get("/v1/packs/export", headers=bearer(key))
    assert answer.status_code == 200, answer.text
    assert answer.headers["content-type"] == "application/zip"
    path = tmp_path / name
    path.write_bytes(answer.content)
    return read_pack(path).lines


def test_a_tenants_pack_holds_only_their_memories(
    client: TestClient, keys: Keys, engine: Memory, tmp_path: Path
) -> None:
    engine.remember("alice keeps the blue cluster notes", user="alice")
    engine.remember("bob keeps the green cluster notes", user="bob")
    bobs = _pack_of(client, keys.bob, tmp_path, "bob.pack")
    assert len(bobs) == 1
    assert "green cluster" in bobs[0]
    assert "blue cluster" not in "".join(bobs)
    # bob imports his own pack back: nothing new, nothing of alice's touched
    before = engine.list(user="alice")
    answer = client.post(
        "/v1/packs/import",
        content=(tmp_path / "bob.pack").read_bytes(),
        headers={**bearer(keys.bob), **ZIP},
    )
    assert answer.status_code == 200, answer.text
    assert (answer.json()["created"], answer.json()["unchanged"]) == (0, 1)
    assert answer.json()["manifest"]["counts"]["records"] == 1
    assert engine.list(user="alice") == before


def test_a_damaged_or_mistyped_pack_changes_nothing(
    client: TestClient, keys: Keys, engine: Memory, tmp_path: Path
) -> None:
    engine.remember("bob keeps the green cluster notes", user="bob")
    good = client.get("/v1/packs/export", headers=bearer(keys.bob)).content
    archive = zipfile.ZipFile(io.BytesIO(good))
    altered = io.BytesIO()
    with zipfile.ZipFile(altered, "w") as out:
        for item in archive.infolist():
            data = archive.read(item.filename)
            if item.filename == "records.jsonl":
                data = data.replace(b"green", b"amber")
            out.writestr(item, data)
    before = fingerprint(engine)
    for body, headers, status, code in (
        (altered.getvalue(), ZIP, 400, "invalid_pack"),
        (b"not a zip at all", ZIP, 400, "invalid_pack"),
        (good, {"Content-Type": "application/json"}, 415, "unsupported_media_type"),
    ):
        answer = client.post(
            "/v1/packs/import", content=body, headers={**bearer(keys.bob), **headers}
        )
        assert answer.status_code == status, answer.text
        assert answer.json()["error"]["code"] == code
    assert fingerprint(engine) == before


def test_layers_mounts_and_reindex_are_an_admins(
    client: TestClient, keys: Keys, engine: Memory, tmp_path: Path
) -> None:
    engine.remember("bob keeps the green cluster notes", user="bob")
    pack = client.get("/v1/packs/export", headers=bearer(keys.bob)).content
    refused = client.post(
        "/v1/packs/import?mount_as=shared&name=green",
        content=pack,
        headers={**bearer(keys.bob), **ZIP},
    )
    assert refused.status_code == 403
    assert "admin only" in refused.json()["error"]["message"]
    for method, path, body in (
        ("POST", "/v1/layers", {"path": str(tmp_path / "x.db"), "kind": "shared"}),
        ("DELETE", "/v1/layers/green", None),
        ("POST", "/v1/reindex", None),
    ):
        answer = client.request(method, path, json=body, headers=bearer(keys.bob))
        assert answer.status_code == 403, (path, answer.text)
    mounted = client.post(
        "/v1/packs/import?mount_as=shared&name=green",
        content=pack,
        headers={**bearer(keys.admin), **ZIP},
    )
    assert mounted.status_code == 200, mounted.text
    assert mounted.json()["layer"]["name"] == "green"
    admin_view = client.get("/v1/layers", headers=bearer(keys.admin)).json()
    bob_view = client.get("/v1/layers", headers=bearer(keys.bob)).json()
    assert [(x["name"], x["kind"]) for x in bob_view] == [("green", "shared")]
    assert Path(admin_view[0]["path"]) == engine.config.home / "layers" / "green.db"
    assert bob_view[0]["path"] is None  # a tenant is not told where the server keeps files
    assert client.post("/v1/reindex", headers=bearer(keys.admin)).json() == {
        "embedded": 0,
        "text_indexed": 0,
    }
    gone = client.delete("/v1/layers/green", headers=bearer(keys.admin))
    assert gone.status_code == 200
    assert client.get("/v1/layers", headers=bearer(keys.admin)).json() == []


def test_a_decision_over_http(client: TestClient) -> None:
    made = client.post(
        "/v1/decisions", json={"topic": "db-engine", "decision": "Use SQLite", "precedence": 1}
    )
    assert made.status_code == 201, made.text
    assert made.json()["outcome"] == "created"
    current = client.get("/v1/decision", params={"topic": "db-engine"}).json()
    assert (current["decision"], current["precedence"]) == ("Use SQLite", 1)
    assert current["memory"]["type"] == "decision"
    missing = client.get("/v1/decision", params={"topic": "caching"})
    assert missing.status_code == 404
    assert missing.json()["error"]["message"] == "no decision on the topic 'caching'"
    bad = client.post("/v1/decisions", json={"topic": "Not Kebab", "decision": "x"})
    assert bad.status_code == 422
    assert bad.json()["error"]["field"] == "topic"


def test_an_admin_erases_a_user_and_gets_the_receipt(
    client: TestClient, keys: Keys, engine: Memory
) -> None:
    engine.remember("alice parks on level 2", user="alice")
    engine.remember("bob parks on level 3", user="bob")
    refused = client.post("/v1/erase", json={"user": "alice"}, headers=bearer(keys.alice))
    assert refused.status_code == 403
    done = client.post("/v1/erase", json={"user": "alice"}, headers=bearer(keys.admin))
    assert done.status_code == 200
    assert done.json()["memories"] == 1
    assert done.json()["user"] == "alice"
    assert engine.list(user="alice") == []
    assert [r.content for r in engine.list(user="bob")] == ["bob parks on level 3"]
