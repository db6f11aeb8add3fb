"""Zep's and Graphiti's graph, as JSON of their own models (edges, episodes, nodes): facts
keep when they stopped being true, episodes their time, entities their summaries."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from salience import Config, Memory
from salience.errors import InvalidInputError
from salience.sharing.importers import harvest

DATA = Path(__file__).parent.parent / "data" / "importers" / "zep"


def test_facts_episodes_and_entities_are_memories() -> None:
    found = harvest("graphiti", DATA / "graph.json")
    items = {i.external_id: i for i in found.items}
    old, new = items["zep:edge:e-1"], items["zep:edge:e-2"]
    assert (old.content, old.type, old.title) == ("Alice works at Acme.", "fact", "WORKS_AT")
    assert old.valid_until == datetime(2026, 3, 1, tzinfo=UTC)  # (invalid from then)
    assert "valid-from:2025-01-01" in old.tags
    assert old.entities == ["Alice", "Acme"]
    assert old.source_user == "alice"
    assert new.valid_until is None
    chat = items["zep:episode:ep-1"]
    assert (chat.type, chat.created_at) == ("observation", datetime(2025, 1, 2, 9, 59, tzinfo=UTC))
    assert {"episode-source:message", "about:support chat"} <= set(chat.tags)
    alice = items["zep:node:n-alice"]
    assert (alice.type, alice.title, alice.entities) == ("insight", "Alice", ["Alice"])
    assert "zep:node:n-globex" not in items  # (no summary: nothing of its own to say)
    assert found.skipped == [("zep:e-3", "the edge has no fact")]
    assert dict(found.unmappable) == {"attributes": 2, "episode links to facts": 2}


def test_a_bare_list_and_a_folder_are_read(tmp_path: Path) -> None:
    graph = json.loads((DATA / "graph.json").read_text())
    (tmp_path / "edges.json").write_text(json.dumps(graph["edges"]))
    listed = harvest("zep", tmp_path / "edges.json")
    assert {i.external_id for i in listed.items} == {"zep:edge:e-1", "zep:edge:e-2"}
    assert listed.items[0].entities == []  # (no nodes given: no names to give)
    folder = tmp_path / "graph"
    folder.mkdir()
    (folder / "episodes.json").write_text(json.dumps(graph["episodes"]))
    assert len(harvest("zep", folder).items) == 2
    (tmp_path / "other.json").write_text('{"memories": []}')
    with pytest.raises(InvalidInputError, match="not Zep's or Graphiti's graph"):
        harvest("zep", tmp_path / "other.json")


def test_a_zep_import_ends_the_replaced_fact_and_keeps_the_current(tmp_path: Path) -> None:
    at = datetime(2026, 6, 1, tzinfo=UTC)
    with Memory.open(config=Config(home=tmp_path, embedder="none"), clock=lambda: at) as memory:
        report = memory.import_from("zep", DATA / "graph.json")
        assert report.created == 6
        current = {r.content for r in memory.list()}
        assert "Alice works at Globex." in current
        assert "Alice works at Acme." not in current  # (it stopped being true in March)
        assert memory.import_from("zep", DATA / "graph.json").unchanged == 6


def test_an_episode_longer_than_a_memory_may_be_is_skipped_by_name(tmp_path: Path) -> None:
    graph = json.loads((DATA / "graph.json").read_text())
    graph["episodes"][1]["content"] = json.dumps({"rows": ["x" * 100] * 1000})  # (~100 KB)
    (tmp_path / "graph.json").write_text(json.dumps(graph))
    with Memory.open(config=Config(home=tmp_path / "home", embedder="none")) as memory:
        report = memory.import_from("zep", tmp_path / "graph.json")
    assert report.created == 5
    assert report.skipped[-1] == (
        "zep:episode:ep-2",
        "its text is longer than 65,536 bytes (max_content_bytes)",
    )


def test_a_secret_in_a_fact_is_refused_and_a_dry_run_changes_nothing(tmp_path: Path) -> None:
    graph = json.loads((DATA / "graph.json").read_text())
    graph["edges"][1]["fact"] = "Alice's deploy key is AKIAIOSFODNN7EXAMPLE for the S3 bucket."
    (tmp_path / "graph.json").write_text(json.dumps(graph))
    with Memory.open(config=Config(home=tmp_path / "home", embedder="none")) as memory:
        planned = memory.import_from("zep", tmp_path / "graph.json", dry_run=True)
        assert memory.list() == []
        report = memory.import_from("zep", tmp_path / "graph.json")
        assert (
            [what for what, _ in report.refused]
            == ["zep:edge:e-2"]
            == [what for what, _ in planned.refused]
        )
        assert not any("AKIA" in r.content for r in memory.list(include_forgotten=True))


def test_a_zep_import_round_trips_through_an_export(tmp_path: Path) -> None:
    import io

    from salience.models import ALL_USERS

    with Memory.open(config=Config(home=tmp_path / "a", embedder="none")) as memory:
        memory.import_from("zep", DATA / "graph.json", user=ALL_USERS)
        before = memory.list(user=ALL_USERS, include_forgotten=True, include_superseded=True)
        out = io.StringIO()
        memory.export(out, user=ALL_USERS)
    with Memory.open(config=Config(home=tmp_path / "b", embedder="none")) as copy:
        copy.import_(io.StringIO(out.getvalue()), user=ALL_USERS)
        after = copy.list(user=ALL_USERS, include_forgotten=True, include_superseded=True)
    assert {(r.id, r.user, r.content, r.valid_until) for r in after} == {
        (r.id, r.user, r.content, r.valid_until) for r in before
    }
    assert {r.user for r in after} == {"alice"}  # (the graph's group_id)
