"""Hindsight's transfer archive (``manifest.json``, ``documents/*.json``,
``observations.json``), as its export writes it: unpacked, and as the zip itself."""

from __future__ import annotations

import io
import zipfile
from datetime import UTC, datetime
from pathlib import Path

from salience import Config, Memory
from salience.models import ALL_USERS
from salience.sharing.importers import harvest

DATA = Path(__file__).parent.parent / "data" / "importers" / "hindsight" / "export"


def _zipped(target: Path) -> Path:
    with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as archive:
        for file in sorted(DATA.rglob("*.json")):
            archive.write(file, f"dana-export/{file.relative_to(DATA).as_posix()}")
    return target


def test_facts_and_observations_are_memories_and_the_rest_is_counted() -> None:
    found = harvest("hindsight", DATA)
    items = {i.external_id: i for i in found.items}
    moved = items["hindsight:dana/session-2026-05-10#0"]
    assert moved.content == "Dana moved to Lisbon in April 2026."
    assert (moved.type, moved.title, moved.session_id) == (
        "fact",
        "relocation",
        "session-2026-05-10",
    )
    assert moved.created_at == datetime(2026, 5, 10, 18, 0, 5, tzinfo=UTC)
    assert {"bank:dana", "occurred:2026-04-15", "personal", "meta:channel=telegram"} <= set(
        moved.tags
    )
    assert moved.entities == ["Dana", "Lisbon"]
    lived = items["hindsight:dana/session-2026-05-20#0"]
    assert lived.type == "observation"  # (an experience: what the agent did)
    assert lived.created_at == datetime(2026, 5, 20, 9, tzinfo=UTC)  # (when it was mentioned)
    insight = items["hindsight:dana/observation/0"]
    assert insight.type == "insight"
    assert insight.derived_from == [
        "hindsight:dana/session-2026-05-10#0",
        "hindsight:dana/session-2026-05-10#1",
    ]
    assert found.skipped == [("hindsight:dana/session-2026-05-20#1", "the fact has no text")]
    assert dict(found.unmappable) == {
        "original text": 1,
        "chunks": 1,
        "causal links": 1,
        "mental models": 1,
    }


def test_the_export_zip_itself_is_read(tmp_path: Path) -> None:
    unpacked = harvest("hindsight", DATA)
    zipped = harvest("hindsight", _zipped(tmp_path / "dana.zip"))
    assert [i.external_id for i in zipped.items] == [i.external_id for i in unpacked.items]
    assert [i.content for i in zipped.items] == [i.content for i in unpacked.items]


def test_a_hindsight_import_keeps_its_derivations_and_round_trips(tmp_path: Path) -> None:
    with Memory.open(config=Config(home=tmp_path / "a", embedder="none")) as memory:
        report = memory.import_from("hindsight", DATA)
        assert report.created == 4
        assert memory.import_from("hindsight", DATA).unchanged == 4
        [insight] = [r for r in memory.list() if r.type == "insight"]
        sources = {r.id: r.content for r in memory.list() if r.id in insight.derived_from}
        assert sorted(sources.values()) == [
            "Dana moved to Lisbon in April 2026.",
            "Dana works remotely for a Berlin start-up.",
        ]
        out = io.StringIO()
        memory.export(out, user=ALL_USERS)
    with Memory.open(config=Config(home=tmp_path / "b", embedder="none")) as copy:
        assert copy.import_(io.StringIO(out.getvalue()), user=ALL_USERS).created == 4
