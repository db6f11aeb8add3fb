"""Each importer on its fixture (tests/data/importers), field by field."""

from __future__ import annotations

import pickle
import sqlite3
import struct
from datetime import UTC, datetime
from pathlib import Path

import pytest

from salience.errors import InvalidInputError
from salience.sharing.importers import SYSTEMS, harvest
from salience.sharing.importers.base import Item

DATA = Path(__file__).parent.parent / "data" / "importers"


def _by_id(items: list[Item]) -> dict[str, Item]:
    return {i.external_id: i for i in items}


@pytest.mark.parametrize("source", ["engram/engram.db", "engram/engram-export.json"])
def test_engram_observations_sessions_and_deletions(source: str) -> None:
    found = harvest("engram", DATA / source)
    items = _by_id(found.items)
    decision = items["engram:obs-4f1c2a9e0b7d46c1a3e5f7091b2d4c6e"]
    assert (decision.type, decision.title) == ("decision", "Switched from sessions to JWT")
    assert decision.content.startswith("**What**: Replaced express-session with jsonwebtoken")
    assert (decision.project, decision.topic_key) == ("demo-app", "architecture/auth-model")
    assert (decision.session_id, decision.revision_count) == ("sess-7c1e9a0b", 2)
    assert decision.created_at == datetime(2026, 3, 10, 9, 20, tzinfo=UTC)
    assert decision.updated_at == datetime(2026, 3, 10, 10, 5, tzinfo=UTC)
    assert decision.tags == ["kind:decision", "scope:project"]
    pinned = items["engram:obs-1b2c3d4e5f60718293a4b5c6d7e8f901"]
    pins = source.endswith(".db")  # (``engram export`` leaves ``pinned`` out)
    assert (pinned.importance, pinned.project) == (1.0 if pins else None, None)
    assert "scope:global" in pinned.tags  # Engram's personal scope
    deleted = items["engram:obs-3d4e5f60718293a4b5c6d7e8f9012a3b"]
    assert deleted.forgotten == "deleted in engram at 2026-03-12 07:00:00"
    assert "tool:Bash" in deleted.tags
    assert items["engram:obs-2c3d4e5f60718293a4b5c6d7e8f9012"].type == "summary"
    assert not any(i.startswith("engram:session:") for i in items)  # summarised already
    assert found.unmappable["prompts"] == 2
    assert found.unmappable["last_seen_at"] == 1


def test_ilab_reads_engrams_store_under_its_own_name() -> None:
    found = harvest("ilab", DATA / "engram")
    assert found.system == "ilab"
    assert all(i.external_id.startswith("ilab:") for i in found.items)
    assert len(found.items) == 5


@pytest.mark.parametrize("source", ["talome/talome.db", "talome/api-memories.json"])
def test_talome_memories(source: str) -> None:
    items = _by_id(harvest("talome", DATA / source).items)
    assert sorted(items) == ["talome:1", "talome:2", "talome:3", "talome:4"]
    first = items["talome:1"]
    assert (first.type, first.confidence, first.access_count) == ("preference", 1.0, 4)
    assert first.content == "User prefers Jellyfin over Plex for media streaming."
    assert first.created_at == datetime(2026, 3, 1, 10, 0, tzinfo=UTC)
    assert (items["talome:2"].session_id, items["talome:2"].confidence) == ("conv-7f3a2b", 0.9)
    assert (items["talome:3"].type, items["talome:3"].tags) == ("observation", ["kind:context"])
    assert items["talome:4"].forgotten == "disabled in talome"
    assert items["talome:4"].updated_at == datetime(2026, 3, 5, 7, 12, 33, 900000, tzinfo=UTC)


def test_mem0_listing_history_versions_and_deletions() -> None:
    found = harvest("mem0", DATA / "mem0")
    items = _by_id(found.items)
    current = items["mem0:7b1e4a2c-5d6f-4e8a-b9c0-2d3e4f5a6b7c"]
    assert current.content == "Is training for a half marathon in May"
    assert (current.session_id, current.source_user) == ("run-42", "alice")
    assert set(current.tags) == {"agent:coach-bot", "category:fitness"}
    assert current.supersedes == "mem0:7b1e4a2c-5d6f-4e8a-b9c0-2d3e4f5a6b7c~0"
    assert current.revision_count == 2
    older = items["mem0:7b1e4a2c-5d6f-4e8a-b9c0-2d3e4f5a6b7c~0"]
    assert older.content == "Is training for a 10k race"
    deleted = items["mem0:0e1f2a3b-4c5d-4e6f-8a9b-0c1d2e3f4a5b"]
    assert deleted.content == "Lives in Lisbon"
    assert deleted.forgotten is not None
    assert deleted.forgotten.startswith("deleted in mem0")
    procedure = items["mem0:c9d8e7f6-a5b4-4c3d-8e2f-0a1b2c3d4e5f"]  # (its Qdrant point)
    assert (procedure.forgotten, procedure.type) == (None, "procedure")
    assert "agent:travel-bot" in procedure.tags
    vegetarian = items["mem0:3f6c2d1e-8a4b-4c7d-9e2f-1a5b6c7d8e90"]
    assert set(vegetarian.tags) == {"actor:alice", "role:user"}
    assert vegetarian.created_at == datetime(2026, 3, 1, 10, 15, 0, 123456, tzinfo=UTC)
    assert len(found.items) == 5  # the platform listing in the folder repeats two: once each
    assert found.unmappable["messages"] == 2
    assert found.unmappable["vectors"] == 3  # made anew by salience's embedder


def test_mem0s_qdrant_store_is_read_without_running_its_pickles(tmp_path: Path) -> None:
    points = harvest("mem0", DATA / "mem0" / "qdrant").items
    assert sorted(i.content for i in points) == [
        "Is training for a half marathon in May",
        "Prefers vegetarian restaurants",
        "Procedure: when booking travel, check loyalty accounts first",
    ]
    marathon = next(i for i in points if "marathon" in i.content)
    assert (marathon.session_id, marathon.source_user) == ("run-42", "alice")
    assert "category:fitness" in marathon.tags
    hostile = tmp_path / "qdrant" / "collection" / "mem0"
    hostile.mkdir(parents=True)
    (hostile / "storage.sqlite").write_bytes(
        (DATA / "mem0" / "qdrant" / "collection" / "mem0" / "storage.sqlite").read_bytes()
    )
    ran = tmp_path / "ran"
    payload = pickle.dumps(_Hostile(str(ran)))
    with sqlite3.connect(hostile / "storage.sqlite") as conn:
        conn.execute("UPDATE points SET point = ? WHERE rowid = 1", (payload,))
    with pytest.raises(InvalidInputError, match="cannot be read safely"):
        harvest("mem0", tmp_path / "qdrant")
    assert not ran.exists()  # the pickle's code never ran


class _Hostile:
    """A pickle that would create a file when loaded by the standard unpickler."""

    def __init__(self, path: str) -> None:
        self.path = path

    def __reduce__(self) -> tuple[object, tuple[str, str]]:
        return (open, (self.path, "w"))


def test_mem0s_platform_listing() -> None:
    items = harvest("mem0", DATA / "mem0" / "platform-get-all.json").items
    assert [i.content for i in items] == [
        "Prefers vegetarian restaurants",
        "Is training for a half marathon in May",
    ]


def test_claude_codes_typed_and_free_form_memory() -> None:
    found = harvest("claude-code", DATA / "claude-code" / "home" / ".claude")
    items = _by_id(found.items)
    typed = items["claude-code:projects/-home-dev-demo-app/memory/feedback_no_db_mocks.md"]
    assert typed.type == "preference"
    assert typed.title == "Integration tests must hit a real database, not mocks"
    assert typed.content.startswith("Integration tests must run against the real Postgres")
    assert "**How to apply:**" in typed.content
    assert typed.project == "demo-app"
    assert "name:no-db-mocks-in-integration-tests" in typed.tags
    role = items["claude-code:projects/-home-dev-demo-app/memory/user_role.md"]
    assert role.type == "profile"
    freeze = items["claude-code:projects/-home-dev-demo-app/memory/project_release_freeze.md"]
    assert (freeze.type, freeze.title) == (
        "fact",
        "Merge freeze for the mobile release starting 2026-04-02",
    )
    texts = [i.content for i in found.items]
    assert "User wants small PRs (under ~300 changed lines)" in texts
    assert not any(t.startswith("[User role]") for t in texts)  # MEMORY.md's index lines
    flaky = next(i for i in found.items if i.content.startswith("`ws_reconnect_test`"))
    assert (flaky.project, flaky.type) == ("other-app", "observation")
    assert "section:Flaky websocket test" in flaky.tags
    personal = next(i for i in found.items if i.content.startswith("Prefer concise answers"))
    assert (personal.type, personal.project) == ("preference", None)
    assert "scope:global" in personal.tags


def test_claude_codes_project_instructions() -> None:
    items = harvest("claude-code", DATA / "claude-code" / "project").items
    assert [i.content for i in items] == [
        "See @README.md for an overview and @docs/testing.md for the test setup.",  # (prose)
        "Install with `pnpm install`; build everything with `pnpm -r build`",
        "Run integration tests with `PGPORT=5433 pnpm test:int`",
        "TypeScript strict mode; 2-space indentation",
        "Conventional commit messages (`feat:`, `fix:`, `chore:`)",
        "Do not edit files under `legacy/`",
        "My staging URL is https://staging.demo-app.example.test",
    ]
    assert {i.type for i in items} == {"preference"}
    assert items[1].tags == ["kind:instruction", "section:Build & test"]
    assert {i.project for i in items} == {"project"}


def test_basic_memory_observations_notes_and_relations() -> None:
    found = harvest("basic-memory", DATA / "basic-memory" / "basic-memory")
    by_text = {i.content: i for i in found.items}
    water = next(t for t in found.items if t.content.startswith("Water just off the boil"))
    assert water.content.endswith("#brewing #temperature (tested with light roasts)")
    assert (water.type, water.title) == ("procedure", "Coffee Brewing Methods")
    assert water.tags == [
        "kind:technique",
        "note:notes/coffee-brewing-methods",
        "coffee",
        "brewing",
        "temperature",
    ]
    assert water.created_at == datetime(2026, 3, 1, 9, 30, tzinfo=UTC)
    assert water.updated_at == datetime(2026, 3, 4, 18, 0, tzinfo=UTC)
    burrs = by_text["Grinder burrs need replacing every two years #maintenance"]
    assert burrs.tags[0] == "kind:note"  # a tag-only item is an observation of category Note
    assert by_text["Prefers a 1:16 coffee-to-water ratio"].type == "preference"
    assert by_text["Notes on brewing at home."].type == "observation"  # the note's prose
    assert found.unmappable["relations"] == 4
    assert found.unmappable["front matter status"] == 1


def test_an_unknown_system_or_a_missing_path_is_named(tmp_path: Path) -> None:
    with pytest.raises(InvalidInputError, match="no importer for 'zep-cloud'"):
        harvest("zep-cloud", tmp_path)
    with pytest.raises(InvalidInputError, match="does not exist"):
        harvest("talome", tmp_path / "nowhere.db")
    (tmp_path / "notes.json").write_text("[1, 2]")
    with pytest.raises(InvalidInputError):
        harvest("mem0", tmp_path / "notes.json")
    assert set(SYSTEMS) >= {"engram", "ilab", "talome", "mem0", "claude-code", "basic-memory"}


@pytest.mark.parametrize("source", ["aide", "aide/.aide/shared"])
def test_aides_store_and_shared_tree(source: str) -> None:
    found = harvest("aide", DATA / source)
    items = _by_id(found.items)
    learning = items["aide:01KKBGEFKB18DJRFAEBXG730MK"]
    assert (learning.type, learning.project, learning.session_id) == (
        "insight",
        "demo-app",
        "s-20260310-a",
    )
    assert learning.tags == [
        "kind:learning",
        "project:demo-app",
        "session:s-20260310-a",
        "source:user",
    ]
    assert learning.created_at == datetime(2026, 3, 10, 9, 15, 2, 123456, tzinfo=UTC)
    newest = items["aide:decision:cache-backend:1773216390500000000"]
    assert newest.content == (
        "Use SQLite for the cache\nRationale: JSON files were corrupted by concurrent writers."
        "\nDetails: One table `entries(key TEXT PRIMARY KEY, value BLOB, expires_at TEXT)`."
    )
    assert newest.topic_key == "cache-backend"
    assert newest.supersedes == "aide:decision:cache-backend:1773057600000000000"
    assert {"precedence:100", "decided-by:user", "ref:docs/cache.md"} <= set(newest.tags)
    ((gone, why),) = found.skipped
    assert gone == "aide:memory:01KK97FTG0BSQQ10CJ0CA2ADJ7"
    assert why.startswith("deleted in aide at 2026-03-12")


def test_aides_store_holds_what_its_export_leaves_out() -> None:
    items = _by_id(harvest("aide", DATA / "aide" / ".aide" / "memory" / "memory.db").items)
    forgotten = items["aide:01KKGQT8809NF6YW41J81H899P"]
    assert forgotten.forgotten == "tagged forget in aide"
    assert "forget" not in forgotten.tags
    gotcha = items["aide:01KKC31VQC38NKRKAYDXR834G3"]
    assert (gotcha.priority, gotcha.type) == (0.8, "heuristic")
    learning = items["aide:01KKBGEFKB18DJRFAEBXG730MK"]
    assert (learning.access_count, learning.updated_at) == (3, None)  # Go's zero time: never
    assert learning.last_accessed_at == datetime(2026, 3, 12, 8, 0, tzinfo=UTC)
    exported = harvest("aide", DATA / "aide" / "exports" / "export-json" / "memories.json")
    assert len(exported.items) == 4  # the export leaves the forgotten one out
    assert exported.items[0].content == learning.content


def test_a_damaged_bbolt_file_is_named(tmp_path: Path) -> None:
    broken = tmp_path / "memory.db"
    broken.write_bytes((DATA / "aide" / ".aide" / "memory" / "memory.db").read_bytes()[:5000])
    with pytest.raises(InvalidInputError):
        harvest("aide", broken)
    junk = tmp_path / "junk.db"
    junk.write_bytes(b"\x00" * 9000)
    with pytest.raises(InvalidInputError, match="not a bbolt database"):
        harvest("aide", junk)


def test_eidets_json_pack_carries_every_field() -> None:
    found = harvest("eidet", DATA / "eidet" / "pack.json")
    items = _by_id(found.items)
    first = items["eidet:memories/-home-dev-demo-app/insight/8b4e9c55cfea"]
    assert (first.type, first.title, first.project) == (
        "insight",
        "Integration tests need PGPORT=5433",
        "demo-app",
    )
    assert (first.importance, first.confidence) == (0.85, 0.75)
    assert first.entities == ["PostgreSQL", "PGPORT"]
    assert first.tags == [
        "kind:insight",
        "testing",
        "postgres",
        "valence:cautionary",
        "stage:test",
        "provenance:userStated",
        "pack:demo-app-testing",
    ]
    assert first.created_at == datetime(2026, 3, 5, 14, 20, tzinfo=UTC)
    checklist = items["eidet:memories/-home-dev-demo-app/procedure/ea923764995f"]
    assert checklist.derived_from == [
        "eidet:memories/-home-dev-demo-app/observation/0a1b2c3d4e5f",
        "eidet:memories/-home-dev-demo-app/observation/5f4e3d2c1b0a",
    ]
    assert found.unmappable == {"summary": 1, "links": 1, "foresightHint": 1}


def test_eidets_markdown_pack_and_export() -> None:
    pack = harvest("eidet", DATA / "eidet" / "pack.md").items
    assert [(i.type, i.title, i.importance) for i in pack] == [
        ("insight", "Integration tests need PGPORT=5433", 0.85),
        ("insight", "Cache is SQLite, not JSON files", 0.6),
        ("procedure", "Release checklist", 0.7),
        ("heuristic", "Do not mock the database in integration tests", 0.9),
    ]
    assert pack[2].content.startswith("1. Bump the version in package.json\n2. Run pnpm -r build")
    assert pack[0].created_at == datetime(2026, 3, 12, 10, 0, tzinfo=UTC)  # the pack's time
    exported = _by_id(harvest("eidet", DATA / "eidet" / "export.md").items)
    heuristic = exported["eidet:memories/-home-dev-demo-app/heuristic/740856339ad3"]
    assert (heuristic.importance, heuristic.tags) == (0.9, ["kind:heuristic", "testing"])
    assert heuristic.created_at == datetime(2026, 3, 8, tzinfo=UTC)
    assert heuristic.content.startswith("Do not mock the database in integration tests;")
    with pytest.raises(InvalidInputError, match="RavenDB"):
        harvest("eidet", DATA / "eidet")


def test_raes_csv_dump_and_lite_store() -> None:
    found = harvest("rae", DATA / "rae" / "memories.csv")
    items = _by_id(found.items)
    first = items["rae:6a0c3c1e-1f2b-4c3d-9e4f-5a6b7c8d9e01"]
    assert (first.type, first.title, first.importance) == ("fact", "python-pref", 0.8)
    assert (first.project, first.session_id, first.access_count) == ("demo-app", "sess-001", 5)
    assert first.source_user == "11111111-2222-4333-8444-555555555555"
    assert first.tags == [
        "preference",
        "programming",
        "rae-layer:semantic",
        "source:user_input",
        "agent:agent_456",
        "meta:instance_id=local-node",
        "meta:last_sync_instance=local-node",
    ]
    working = items["rae:6a0c3c1e-1f2b-4c3d-9e4f-5a6b7c8d9e03"]
    assert working.valid_until == datetime(2026, 3, 3, 10, 0, tzinfo=UTC)
    assert "info-class:confidential" in working.tags
    assert items["rae:6a0c3c1e-1f2b-4c3d-9e4f-5a6b7c8d9e04"].type == "insight"
    assert found.unmappable["embedding"] == 2
    lite = harvest("rae", DATA / "rae" / "rae_lite.db").items
    assert [i.content for i in lite] == [
        "User prefers Python over JavaScript for backend work.",
        "Deployed v2.3 to staging; smoke tests passed.",
        "Currently editing src/api/routes.py lines 40-80.",
    ]


@pytest.mark.postgres
def test_raes_database_by_url(postgres_url: str) -> None:
    import psycopg

    dump = (DATA / "rae" / "memories.sql").read_text()
    dump = "\n".join(line for line in dump.splitlines() if not line.startswith("CREATE EXTENSION"))
    with psycopg.connect(postgres_url, autocommit=True) as conn:
        conn.execute(dump)  # (the dump, restored: what a user's RAE database holds)
    found = harvest("rae", postgres_url)
    by_csv = _by_id(harvest("rae", DATA / "rae" / "memories.csv").items)
    items = _by_id(found.items)
    assert sorted(items) == sorted(by_csv)
    for key, item in items.items():
        assert item == by_csv[key], key  # the database and its CSV dump give the same memories
    with pytest.raises(InvalidInputError, match="cannot read RAE's memories") as refused:
        harvest("rae", postgres_url.replace("postgresql://", "postgresql://nobody:hunter2@"))
    assert "hunter2" not in str(refused.value)
    with pytest.raises(InvalidInputError, match="keeps no PostgreSQL database"):
        harvest("talome", postgres_url)


def _bolt(pages: dict[int, bytes], size: int = 4096) -> bytes:
    """A bbolt file of pages (meta page 0 made valid, root bucket at page 2)."""
    from salience.sharing.importers.bolt import MAGIC, _fnv64a

    data = bytearray(size * (max(pages) + 1))
    meta = struct.pack("<QHHI", 0, 0x04, 0, 0) + struct.pack("<IIII", MAGIC, 2, size, 0)
    body = struct.pack("<QQQQQ", 2, 0, 0, max(pages) + 1, 1)
    meta += body
    checksum = _fnv64a(bytes(meta[16:72]))
    data[: len(meta) + 8] = meta + struct.pack("<Q", checksum)
    for number, page in pages.items():
        data[number * size : number * size + len(page)] = page
    return bytes(data)


@pytest.mark.parametrize("fan_out", [1, 4000])
def test_a_bbolt_tree_that_loops_is_refused_not_walked_forever(
    tmp_path: Path, fan_out: int
) -> None:
    from salience.sharing.importers.bolt import BoltFile

    branch = struct.pack("<QHHI", 2, 0x01, fan_out, 0)  # a branch page whose children ...
    branch += struct.pack("<IIQ", 0, 0, 2) * fan_out  # ... are itself
    path = tmp_path / "memory.db"
    path.write_bytes(_bolt({2: branch}, size=1 << 16))
    with pytest.raises(InvalidInputError, match="loops"):
        BoltFile(path).bucket(b"memories")


@pytest.mark.parametrize(
    ("system", "name", "text"),
    [
        ("talome", "memories.json", "[1, 2, 3]"),
        ("aide", "memories.json", "[1, 2, 3]"),
        ("talome", "memories.json", '[{"id": 1, "content": ["not", "text"], "type": 5}]'),
        ("mem0", "get_all.json", '{"results": [1, "two"]}'),
        ("engram", "export.json", '{"observations": [7]}'),
    ],
)
def test_a_record_of_a_shape_the_source_never_writes_is_bad_input(
    tmp_path: Path, system: str, name: str, text: str
) -> None:
    """Hostile or broken data is refused as bad input (a 422 over HTTP), never a traceback."""
    path = tmp_path / name
    path.write_text(text)
    with pytest.raises(InvalidInputError) as refused:
        harvest(system, path)
    assert str(tmp_path) not in str(refused.value)
