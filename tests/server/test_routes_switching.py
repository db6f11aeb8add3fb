"""``POST /v1/import/{system}``: another system's store or export, uploaded and brought over."""

from __future__ import annotations

import io
import zipfile
from datetime import UTC, datetime
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from salience import Memory
from tests.server.conftest import Keys, bearer, fingerprint

DATA = Path(__file__).parent.parent / "data" / "importers"


WHEN = (2026, 3, 1, 9, 30, 0)  # the members' time (before the test clock's now)


def _zip(folder: Path, *, extra: dict[str, bytes] | None = None) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for file in sorted(folder.rglob("*")):
            if file.is_file():
                name = file.relative_to(folder.parent).as_posix()
                archive.writestr(zipfile.ZipInfo(name, WHEN), file.read_bytes())
        for name, data in (extra or {}).items():
            archive.writestr(zipfile.ZipInfo(name, WHEN), data)
    return buffer.getvalue()


def test_a_store_uploaded_is_brought_over_once(
    client: TestClient, keys: Keys, engine: Memory
) -> None:
    store = (DATA / "talome" / "talome.db").read_bytes()
    headers = {**bearer(keys.alice), "Content-Type": "application/octet-stream"}
    planned = client.post("/v1/import/talome?dry_run=true", content=store, headers=headers)
    assert planned.status_code == 200, planned.text
    assert (planned.json()["found"], planned.json()["created"]) == (4, 0)
    assert engine.list(user="alice") == []
    done = client.post("/v1/import/talome", content=store, headers=headers).json()
    assert (done["created"], done["dry_run"]) == (4, False)
    again = client.post("/v1/import/talome", content=store, headers=headers).json()
    assert (again["created"], again["unchanged"]) == (0, 4)
    assert len(engine.list(user="alice", include_forgotten=True)) == 4
    assert engine.list(user="bob") == []  # the caller's memories only


def test_a_folder_comes_as_a_zip(client: TestClient, keys: Keys, engine: Memory) -> None:
    body = _zip(DATA / "basic-memory" / "basic-memory")
    headers = {**bearer(keys.bob), "Content-Type": "application/zip"}
    done = client.post("/v1/import/basic-memory", content=body, headers=headers)
    assert done.status_code == 200, done.text
    assert done.json()["created"] == 10
    assert done.json()["unmappable"]["relations"] == 4
    undated = next(r for r in engine.list(user="bob") if r.content.startswith("Ethiopian beans"))
    assert undated.created_at == datetime(*WHEN, tzinfo=UTC)  # its file's time, kept by the zip


@pytest.mark.parametrize("member", ["../escape.md", "/etc/escape.md", "notes/../../escape.md"])
def test_a_zip_reaching_outside_is_refused_whole(
    client: TestClient, keys: Keys, engine: Memory, member: str
) -> None:
    body = _zip(DATA / "basic-memory" / "basic-memory", extra={member: b"- [fact] x #y"})
    before = fingerprint(engine)
    answer = client.post(
        "/v1/import/basic-memory",
        content=body,
        headers={**bearer(keys.bob), "Content-Type": "application/zip"},
    )
    assert answer.status_code == 422, answer.text
    assert "outside the zip" in answer.json()["error"]["message"]
    assert fingerprint(engine) == before


def test_bad_uploads_are_named_and_change_nothing(
    client: TestClient, keys: Keys, engine: Memory
) -> None:
    before = fingerprint(engine)
    for path, body, kind, status in (
        ("/v1/import/zep-cloud", b"{}", "application/json", 422),
        ("/v1/import/letta", b"{}", "application/json", 422),
        ("/v1/import/talome", b"", "application/octet-stream", 422),
        ("/v1/import/talome", b"not a database", "application/octet-stream", 422),
        ("/v1/import/talome", b"{}", "text/plain", 415),
        ("/v1/import/basic-memory", b"PK junk", "application/zip", 422),
        ("/v1/import/rae", b"postgresql://rae@db/rae", "application/octet-stream", 422),
    ):
        answer = client.post(path, content=body, headers={**bearer(keys.bob), "Content-Type": kind})
        assert answer.status_code == status, (path, answer.text)
        assert "error" in answer.json()
    read_only = client.post(
        "/v1/import/talome",
        content=(DATA / "talome" / "talome.db").read_bytes(),
        headers={**bearer(keys.alice_read_only), "Content-Type": "application/octet-stream"},
    )
    assert read_only.status_code == 403
    assert fingerprint(engine) == before


def _raw_zip(members: list[tuple[str, bytes]]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in members:
            info = zipfile.ZipInfo(name, WHEN)
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, data)
    return buffer.getvalue()


@pytest.mark.parametrize(
    ("members", "said"),
    [
        ([("notes/CLAUDE.md", bytes(20 << 20))], "times its compressed size"),  # 20 MB of zeros
        ([("notes/a.md", b"- x"), ("notes/a.md/b.md", b"- y")], "cannot be unpacked"),
        ([("notes/b/", b""), ("notes/b", b"- y")], "cannot be unpacked"),
        ([("notes/" + "n" * 300 + ".md", b"- y")], "cannot be unpacked"),
    ],
    ids=["ratio", "file then folder", "folder then file", "long name"],
)
def test_a_hostile_zip_answers_422_and_changes_nothing(
    client: TestClient, keys: Keys, engine: Memory, members: list[tuple[str, bytes]], said: str
) -> None:
    before = fingerprint(engine)
    answer = client.post(
        "/v1/import/claude-code",
        content=_raw_zip(members),
        headers={**bearer(keys.bob), "Content-Type": "application/zip"},
    )
    assert answer.status_code == 422, answer.text
    assert said in answer.json()["error"]["message"]
    assert "/tmp" not in answer.text
    assert fingerprint(engine) == before


def test_the_importers_are_listed_from_their_registry(client: TestClient, keys: Keys) -> None:
    from salience.engine.migrating import SYSTEMS

    answer = client.get("/v1/import", headers=bearer(keys.alice))
    assert answer.status_code == 200
    assert answer.json() == list(SYSTEMS)
    assert client.get("/v1/import").status_code == 401
