"""Provenance is salience's: an import cannot claim a layer or the future; packs can be signed."""

from __future__ import annotations

import hashlib
import io
import json
import zipfile
from pathlib import Path

import pytest

from salience import ImportFormatError, Memory, PackError
from salience.sharing.packs import MANIFEST, RECORDS, SIGNATURE
from tests.conftest import FakeClock

KEY = b"a shared key of thirty-two bytes"


def test_an_imported_layer_is_always_local(memory: Memory) -> None:
    line = json.dumps({"content": "Rotate the signing keys every 90 days", "layer": "security"})
    assert memory.import_(io.StringIO(line + "\n")).created == 1
    [record] = memory.list()
    assert record.layer == "local"
    [hit] = memory.search("signing keys rotate")
    assert hit.record.layer == "local"


@pytest.mark.parametrize("field", ["created_at", "updated_at", "last_accessed_at"])
def test_an_import_from_the_future_is_refused(memory: Memory, field: str) -> None:
    record = {"content": "This memory claims to come from the future", "created_at": "2026-04-20"}
    record[field] = "9999-12-31T00:00:00Z"
    with pytest.raises(ImportFormatError, match=f"line 1: {field} 9999-12-31.* in the future"):
        memory.import_(io.StringIO(json.dumps(record) + "\n"))
    assert memory.list() == []


def test_a_little_clock_skew_is_accepted(memory: Memory, clock: FakeClock) -> None:
    ahead = (clock.now.replace(microsecond=0)).isoformat().replace("12:00:00", "12:04:00")
    line = json.dumps(
        {"content": "Written on a machine whose clock runs ahead", "created_at": ahead}
    )
    assert memory.import_(io.StringIO(line + "\n")).created == 1


def test_valid_until_may_lie_ahead(memory: Memory) -> None:
    line = json.dumps({"content": "The beta flag expires next year", "valid_until": "2099-01-01"})
    assert memory.import_(io.StringIO(line + "\n")).created == 1


def _tamper(pack: Path, out: Path) -> None:
    """Change a record and recompute the checksums: what anyone can do to a pack."""
    with zipfile.ZipFile(pack) as source:
        members = {name: source.read(name) for name in source.namelist()}
    records = members[RECORDS].replace(b"port 8080", b"port 6666")
    members[RECORDS] = records
    manifest = json.loads(members[MANIFEST])
    manifest["checksums"][RECORDS] = hashlib.sha256(records).hexdigest()
    members[MANIFEST] = (json.dumps(manifest, indent=2) + "\n").encode()
    with zipfile.ZipFile(out, "w") as target:
        for name, data in members.items():
            target.writestr(name, data)


def test_a_checksum_detects_damage_not_tampering_a_signature_does(
    memory: Memory, tmp_path: Path, clock: FakeClock, home: Path
) -> None:
    memory.remember("The API listens on port 8080 in staging")
    signed = tmp_path / "team.pack"
    memory.export_pack(signed, key=KEY)
    tampered = tmp_path / "tampered.pack"
    _tamper(signed, tampered)
    with Memory.open(tmp_path / "other", clock=clock, embedder=None) as other:
        # Without the key a recomputed checksum passes: checksums detect damage only.
        assert other.import_pack(tampered).result.created == 1
    with Memory.open(tmp_path / "third", clock=clock, embedder=None) as third:
        with pytest.raises(PackError, match="signature does not match"):
            third.import_pack(tampered, key=KEY)
        with pytest.raises(PackError, match="signature does not match"):
            third.import_pack(signed, key=b"another key of thirty-two bytes!")
        assert third.list() == []
        assert third.import_pack(signed, key=KEY).result.created == 1


def test_an_unsigned_pack_is_refused_when_a_key_is_given(memory: Memory, tmp_path: Path) -> None:
    memory.remember("The API listens on port 8080 in staging")
    plain = tmp_path / "plain.pack"
    memory.export_pack(plain)
    with zipfile.ZipFile(plain) as archive:
        assert SIGNATURE not in archive.namelist()
    with pytest.raises(PackError, match="not signed"):
        memory.import_pack(plain, key=KEY)
    with pytest.raises(PackError, match="at least 16 bytes"):
        memory.export_pack(tmp_path / "weak.pack", key=b"short")
