"""Every free-text field goes through the secret scanner, on every path; none reaches disk."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from salience import ImportFormatError, InvalidInputError, Memory, Outcome
from tests.both_stores import stored_bytes
from tests.conftest import FakeClock

TOKEN = "ghp_" + "Zq8Rt2Lm5Xw9Kp3Vn7Bc1Hd4Fj6Gs0Ay2Eu"  # a GitHub token's shape


def _store_bytes(memory: Memory) -> bytes:
    return stored_bytes(memory)


@pytest.mark.parametrize("field", ["topic_key", "project", "session_id", "type", "title"])
def test_remember_scans_every_text_field(memory: Memory, home: Path, field: str) -> None:
    result = memory.remember("The deploy pipeline has five stages", **{field: f"x {TOKEN}"})
    assert result.outcome is Outcome.REJECTED
    assert result.gate == "secret"
    assert field.replace("_", " ") in (result.reason or "") or field in (result.reason or "")
    assert TOKEN not in repr(result)
    assert memory.list() == []
    assert TOKEN.encode() not in _store_bytes(memory)


def test_a_user_name_holding_a_secret_is_refused(memory: Memory, home: Path) -> None:
    result = memory.remember("The deploy pipeline has five stages", user=TOKEN)
    assert result.outcome is Outcome.REJECTED
    assert TOKEN.encode() not in _store_bytes(memory)


def test_update_and_supersede_scan_the_fields_they_change(memory: Memory, home: Path) -> None:
    memory_id = memory.remember("The deploy pipeline has five stages").id or ""
    assert memory.update(memory_id, project=TOKEN).outcome is Outcome.REJECTED
    assert memory.update(memory_id, topic_key=TOKEN).outcome is Outcome.REJECTED
    assert memory.supersede(memory_id, "Now six stages", project=TOKEN).outcome is (
        Outcome.REJECTED
    )
    assert memory.get(memory_id).project is None
    assert TOKEN.encode() not in _store_bytes(memory)


def test_a_forget_reason_is_scanned_and_never_logged(memory: Memory, home: Path) -> None:
    memory_id = memory.remember("The deploy pipeline has five stages").id or ""
    refused = memory.forget(memory_id, f"leaked {TOKEN}")
    assert refused.outcome is Outcome.REJECTED
    assert TOKEN not in (refused.reason or "")
    assert memory.get(memory_id).forget_reason is None
    assert memory.forget(memory_id, "replaced by the runbook").outcome is Outcome.FORGOTTEN
    entries = json.dumps([e.detail for e in memory.log()])
    assert "replaced by the runbook" not in entries
    assert TOKEN.encode() not in _store_bytes(memory)
    with pytest.raises(InvalidInputError):
        memory.forget(memory_id, "x" * 600)


@pytest.mark.parametrize(
    "field", ["topic_key", "project", "session_id", "type", "forget_reason", "tags", "entities"]
)
def test_an_import_scans_every_text_field(memory: Memory, home: Path, field: str) -> None:
    value: object = [f"x {TOKEN}"] if field in ("tags", "entities") else f"x {TOKEN}"
    line = json.dumps({"content": "The deploy pipeline has five stages", field: value})
    with pytest.raises(ImportFormatError, match="secrets are never stored") as caught:
        memory.import_(io.StringIO(line + "\n"))
    assert TOKEN not in str(caught.value)
    assert memory.list(include_forgotten=True) == []
    assert TOKEN.encode() not in _store_bytes(memory)


def test_a_pack_cannot_carry_a_secret_in(memory: Memory, tmp_path: Path, clock: FakeClock) -> None:
    memory.remember("The deploy pipeline has five stages", project="ops")
    pack = tmp_path / "ops.pack"
    memory.export_pack(pack)
    import zipfile

    with zipfile.ZipFile(pack) as archive:
        members = {n: archive.read(n) for n in archive.namelist()}
    members["records.jsonl"] = members["records.jsonl"].replace(b'"ops"', f'"{TOKEN}"'.encode())
    import hashlib

    manifest = json.loads(members["manifest.json"])
    manifest["checksums"]["records.jsonl"] = hashlib.sha256(members["records.jsonl"]).hexdigest()
    members["manifest.json"] = json.dumps(manifest).encode()
    with zipfile.ZipFile(pack, "w") as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    with Memory.open(tmp_path / "other", clock=clock, embedder=None) as other:
        with pytest.raises(ImportFormatError, match="secrets are never stored"):
            other.import_pack(pack)
        assert other.list() == []


def test_a_session_summary_is_scanned(memory: Memory) -> None:
    memory.session_start("alice")
    refused = memory.session_end(f"Deployed with {TOKEN}", user="alice")
    assert refused.outcome is Outcome.REJECTED
    assert memory.log(user="alice", limit=1)[0].action == "reject"
