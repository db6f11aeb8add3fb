"""Letta's memory blocks: an Agent File (``.af``, as Letta's export writes it, and as older
exports wrap it in a JSON string) and a MemFS checkout (``{label}.md`` block files)."""

from __future__ import annotations

import io
from datetime import UTC, datetime
from pathlib import Path

from salience import Config, Memory
from salience.models import ALL_USERS
from salience.sharing.importers import SYSTEMS, harvest

DATA = Path(__file__).parent.parent / "data" / "importers" / "letta"


def test_letta_is_a_system_to_import_from() -> None:
    assert "letta" in SYSTEMS


def test_an_agent_files_blocks_are_memories_and_the_rest_is_counted() -> None:
    found = harvest("letta", DATA / "ezra.af")
    items = {i.external_id: i for i in found.items}
    assert set(items) == {
        "letta:ezra/human",
        "letta:ezra/persona",
        "letta:ezra/acme_facts",
        "letta:scout/notes",
    }
    human = items["letta:ezra/human"]
    assert (human.type, human.title) == ("profile", "What I know about the person I talk to")
    assert human.content.startswith("Name: Dana Ortiz.")
    assert human.created_at == datetime(2026, 5, 2, 10, tzinfo=UTC)  # (the export's time)
    persona = items["letta:ezra/persona"]
    assert persona.type == "preference"
    assert "read-only" in persona.tags
    shared = items["letta:ezra/acme_facts"]  # (one memory for the block both agents hold)
    assert {"agent:ezra", "agent:scout", "block:acme_facts"} <= set(shared.tags)
    assert items["letta:scout/notes"].title == "Scratch notes"  # (a block written inline)
    assert found.skipped == [("letta:block-2", "the block 'scratchpad' is empty")]
    assert dict(found.unmappable) == {
        "messages": 2,
        "system prompt": 2,
        "tools": 1,
        "block metadata": 1,
    }


def test_an_older_export_wrapped_in_a_string_is_read_and_updates_the_same_block() -> None:
    older = harvest("letta", DATA / "older.af")
    [human] = older.items
    assert human.external_id == "letta:ezra/human"  # (the same id as the newer export's)
    assert human.created_at == datetime(2025, 4, 1, 8, tzinfo=UTC)


def test_a_memfs_checkout_is_read_block_by_block() -> None:
    found = harvest("letta", DATA / "memfs")
    items = {i.external_id: i for i in found.items}
    assert set(items) == {"letta:memfs/human", "letta:memfs/persona", "letta:memfs/skills/release"}
    assert items["letta:memfs/human"].content.endswith("Moved to the data team in June.")
    assert items["letta:memfs/skills/release"].type == "procedure"
    assert "read-only" in items["letta:memfs/persona"].tags
    assert found.skipped == []


def test_a_letta_import_round_trips_through_an_export(tmp_path: Path) -> None:
    config = Config(home=tmp_path / "a", embedder="none")
    with Memory.open(config=config) as memory:
        report = memory.import_from("letta", DATA / "ezra.af")
        assert (report.created, report.found) == (4, 4)
        again = memory.import_from("letta", DATA / "ezra.af")
        assert (again.created, again.unchanged) == (0, 4)
        out = io.StringIO()
        memory.export(out, user=ALL_USERS)
    with Memory.open(config=Config(home=tmp_path / "b", embedder="none")) as copy:
        copy.import_(io.StringIO(out.getvalue()), user=ALL_USERS)
        contents = sorted(r.content for r in copy.list(user=ALL_USERS))
    assert contents == sorted(i.content for i in harvest("letta", DATA / "ezra.af").items)
