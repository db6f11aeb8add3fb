"""The defects a switching user found in the importers (#56), each on a fixture that
reproduces it: owners kept, versions dated, instructions read, nothing dropped silently."""

from __future__ import annotations

import csv
import json
import sqlite3
from datetime import UTC, datetime
from pathlib import Path

import pytest

from salience.sharing.importers import harvest

HISTORY = """CREATE TABLE history (id TEXT PRIMARY KEY, memory_id TEXT, old_memory TEXT,
new_memory TEXT, event TEXT, created_at DATETIME, updated_at DATETIME, is_deleted INTEGER,
actor_id TEXT, role TEXT)"""  # (mem0 2.x, mem0/memory/storage.py)


def _history(path: Path, *events: tuple[str, str | None, str | None, str, str, str]) -> Path:
    """mem0's history.db: (memory id, old, new, event, created_at, updated_at) per event, as
    mem0 writes them (every event of a memory carries the memory's creation time)."""
    with sqlite3.connect(path) as conn:
        conn.execute(HISTORY)
        for n, (memory_id, old, new, event, created, updated) in enumerate(events):
            conn.execute(
                "INSERT INTO history VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    f"h{n}",
                    memory_id,
                    old,
                    new,
                    event,
                    created,
                    updated,
                    int(event == "DELETE"),
                    "alice_w",
                    "user",
                ),
            )
    return path


def _at(text: str) -> datetime:
    return datetime.fromisoformat(text).replace(tzinfo=UTC)


def test_mem0_history_never_names_a_speaker_as_the_owner(tmp_path: Path) -> None:
    """A memory only the history holds: its actor_id is the chat message's speaker, not a
    user; its owner is unknown (imported for one named user only)."""
    path = _history(
        tmp_path / "history.db",
        ("m1", None, "Works at the harbour", "ADD", "2026-01-01T10:00:00", "2026-01-01T10:00:00"),
        (
            "m1",
            "Works at the harbour",
            None,
            "DELETE",
            "2026-01-01T10:00:00",
            "2026-01-09T10:00:00",
        ),
    )
    [item] = harvest("mem0", path).items
    assert item.source_user is None
    assert not item.owner_known
    assert "deleted" in str(item.forgotten)


def test_mem0_versions_end_when_replaced_and_start_when_made(tmp_path: Path) -> None:
    made, first, second = "2026-01-01T10:00:00", "2026-02-01T10:00:00", "2026-03-01T10:00:00"
    folder = tmp_path / "mem0"
    folder.mkdir()
    _history(
        folder / "history.db",
        ("m1", None, "Drives a bike", "ADD", made, made),
        ("m1", "Drives a bike", "Drives a scooter", "UPDATE", made, first),
        ("m1", "Drives a scooter", "Drives a car", "UPDATE", made, second),
    )
    listed = {
        "id": "m1",
        "memory": "Drives a car",
        "user_id": "alice",
        "created_at": made,
        "updated_at": second,
    }
    (folder / "get_all.json").write_text(json.dumps({"results": [listed]}))
    bike, scooter, car = harvest("mem0", folder).items
    assert [i.content for i in (bike, scooter, car)] == [
        "Drives a bike",
        "Drives a scooter",
        "Drives a car",
    ]
    assert (bike.created_at, bike.valid_until) == (_at(made), _at(first))
    assert (scooter.created_at, scooter.valid_until) == (_at(first), _at(second))
    assert scooter.supersedes == bike.external_id
    assert car.supersedes == scooter.external_id
    assert car.valid_until is None
    assert all(i.source_user == "alice" for i in (bike, scooter, car))


def test_mem0_a_record_without_a_creation_time_is_skipped_and_named(tmp_path: Path) -> None:
    rows = [
        {"id": "no-time", "memory": "Likes tea"},
        {"id": "null-time", "memory": "Likes coffee", "created_at": None},
        {"id": "fine", "memory": "Likes water", "created_at": "2026-01-01T00:00:00Z"},
    ]
    path = tmp_path / "get_all.json"
    path.write_text(json.dumps({"results": rows}))
    found = harvest("mem0", path)
    assert [i.content for i in found.items] == ["Likes water"]
    assert found.skipped == [
        ("mem0:no-time", "it has no created_at"),
        ("mem0:null-time", "it has no created_at"),
    ]


def test_mem0_a_metadata_list_of_tags_becomes_tags(tmp_path: Path) -> None:
    row = {
        "id": "t",
        "memory": "Uses vim",
        "created_at": "2026-01-01T00:00:00Z",
        "metadata": {"tags": ["editor", "tools"], "category": "setup"},
    }
    path = tmp_path / "get_all.json"
    path.write_text(json.dumps([row]))
    [item] = harvest("mem0", path).items
    assert {"editor", "tools", "category:setup"} <= set(item.tags)


def _write(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root


def test_claude_code_reads_numbered_lists_prose_nested_files_and_rule_folders(
    tmp_path: Path,
) -> None:
    project = _write(
        tmp_path / "shop-api",
        {
            "CLAUDE.md": "1. Keep functions under 40 lines.\n2) Name tests after behaviour.\n",
            "src/CLAUDE.md": "# Source\n\nEvery handler validates its input first.\n",
            ".claude/rules/backend/api.md": "- Version every public route.\n",
            "node_modules/pkg/CLAUDE.md": "- not ours\n",
        },
    )
    found = harvest("claude-code", project)
    assert {i.content: i.project for i in found.items} == {
        "Keep functions under 40 lines.": "shop-api",
        "Name tests after behaviour.": "shop-api",
        "Every handler validates its input first.": "shop-api",
        "Version every public route.": "shop-api",
    }
    assert {i.type for i in found.items} == {"preference"}
    assert found.skipped == []


def test_claude_code_gives_one_project_one_name(tmp_path: Path) -> None:
    """The auto-memory folder of /home/dev/work/shop-api is -home-dev-work-shop-api: with the
    project's own CLAUDE.md in the same import, both are shop-api."""
    root = _write(
        tmp_path / "upload",
        {
            "shop-api/CLAUDE.md": "- Use the staging database for manual tests\n",
            ".claude/projects/-home-dev-work-shop-api/memory/notes.md": "- Deploys on Fridays\n",
            ".claude/projects/-home-dev-other/memory/notes.md": "- Unrelated\n",
        },
    )
    projects = {i.content: i.project for i in harvest("claude-code", root).items}
    assert projects == {
        "Use the staging database for manual tests": "shop-api",
        "Deploys on Fridays": "shop-api",
        "Unrelated": "other",
    }


def test_claude_code_reports_what_it_could_not_read(tmp_path: Path) -> None:
    memory = _write(
        tmp_path / ".claude" / "projects" / "-home-dev-app" / "memory",
        {
            "broken.md": "---\nname: [unclosed\ntype: feedback\n---\nAlways rebase.\n",
            "empty.md": "# Nothing here\n",
            "fine.md": "---\nname: fine\ntype: user\n---\nIs a data engineer.\n",
        },
    )
    found = harvest("claude-code", memory)
    assert [i.content for i in found.items] == ["Is a data engineer."]
    reasons = dict(found.skipped)
    assert reasons["claude-code:broken.md"].startswith("its front matter is not valid YAML")
    assert reasons["claude-code:empty.md"] == "it holds no list item or paragraph"


BASIC_INDEX = """
CREATE TABLE project (id INTEGER PRIMARY KEY, name TEXT, path TEXT, is_default BOOLEAN);
CREATE TABLE entity (id INTEGER PRIMARY KEY, title TEXT, project_id INTEGER, permalink TEXT,
                     file_path TEXT, created_at DATETIME, updated_at DATETIME);
"""  # (the columns read, as basic-memory's models declare them: models/knowledge.py, project.py)


def test_basic_memory_skips_a_broken_note_and_keeps_index_times_and_project(
    tmp_path: Path,
) -> None:
    folder = _write(
        tmp_path / "basic-memory",
        {
            "notes/coffee.md": "---\ntitle: Coffee\ntags: [drinks]\n---\n"
            "- [preference] Drinks espresso #coffee\n",
            "notes/broken.md": "---\ntitle: Broken\ntags: [a, b\n---\n- [fact] Lost #x\n",
        },
    )
    (folder / ".basic-memory").mkdir()
    with sqlite3.connect(folder / ".basic-memory" / "memory.db") as conn:
        conn.executescript(BASIC_INDEX)
        conn.execute("INSERT INTO project VALUES (1, 'main', '/home/dev/basic-memory', 1)")
        conn.execute(
            "INSERT INTO entity VALUES (1, 'Coffee', 1, 'notes/coffee', 'notes/coffee.md', "
            "'2025-05-01 09:30:00', '2026-02-01 10:00:00')"
        )
    found = harvest("basic-memory", folder)
    [coffee] = found.items
    assert coffee.content == "Drinks espresso #coffee"
    assert coffee.created_at == _at("2025-05-01T09:30:00")  # (not the edit's time)
    assert coffee.project == "main"
    assert {"drinks", "coffee"} <= set(coffee.tags)
    [(what, why)] = found.skipped
    assert what == "basic-memory:notes/broken.md"
    assert why.startswith("its front matter is not valid YAML")


def test_basic_memory_without_its_index_takes_the_folders_name(tmp_path: Path) -> None:
    folder = _write(tmp_path / "research", {"a.md": "- [fact] Water boils at 100 C\n"})
    [item] = harvest("basic-memory", folder).items
    assert item.project == "research"


def test_rae_a_csv_cut_mid_row_skips_the_cut_row_by_name(tmp_path: Path) -> None:
    whole = Path(__file__).parent.parent / "data" / "importers" / "rae" / "memories.csv"
    text = whole.read_text()
    cut = tmp_path / "memories.csv"
    cut.write_text(text[: text.rstrip("\n").rfind(",")])  # (the last row loses its end)
    found = harvest("rae", cut)
    complete = harvest("rae", whole)
    assert len(found.items) == len(complete.items) - 1
    assert found.skipped == [("rae:6a0c3c1e-1f2b-4c3d-9e4f-5a6b7c8d9e04", "row 4 is cut short")]


def test_mem0_an_empty_messages_table_is_not_reported(tmp_path: Path) -> None:
    from salience import Config, Memory

    path = _history(
        tmp_path / "history.db",
        ("m1", None, "Likes rain", "ADD", "2026-01-01T10:00:00", "2026-01-01T10:00:00"),
    )
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE messages (id TEXT PRIMARY KEY, content TEXT)")
    with Memory.open(config=Config(home=tmp_path / "home", embedder="none")) as memory:
        report = memory.import_from("mem0", path, dry_run=True)
    assert "messages" not in report.unmappable


def _json_with_bad_time(name: str, key: str | None, field: str) -> tuple[str, object, str]:
    """A fixture's JSON with its first record's time made unreadable; the record's id."""
    data = json.loads((DATA / name).read_text())
    rows = data[key] if key else data
    rows[0][field] = "not a time"
    return Path(name).name, data, str(rows[0]["id"])


DATA = Path(__file__).parent.parent / "data" / "importers"


@pytest.mark.parametrize(
    ("system", "name", "key", "field"),
    [
        ("talome", "talome/api-memories.json", None, "createdAt"),
        ("engram", "engram/engram-export.json", "observations", "created_at"),
        ("ilab", "engram/engram-export.json", "observations", "created_at"),
        ("eidet", "eidet/pack.json", "entries", "createdAt"),
        ("aide", "aide/exports/export-json/memories.json", None, "createdAt"),
        ("mem0", "mem0/get_all.json", "results", "created_at"),
    ],
)
def test_each_importer_names_the_one_record_it_could_not_read(
    tmp_path: Path, system: str, name: str, key: str | None, field: str
) -> None:
    filename, data, bad = _json_with_bad_time(name, key, field)
    path = tmp_path / filename
    path.write_text(json.dumps(data))
    whole = harvest(system, DATA / name)
    found = harvest(system, path)
    assert [w for w, _ in found.skipped] == [f"{system}:{bad}"]
    assert found.skipped[0][1]  # (with why)
    assert len(found.items) == len(whole.items) - 1


def test_rae_and_the_markdown_importers_name_what_they_could_not_read(tmp_path: Path) -> None:
    with (DATA / "rae" / "memories.csv").open(newline="") as handle:
        rows = list(csv.DictReader(handle))
    rows[0]["created_at"] = "not a time"
    with (tmp_path / "memories.csv").open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    found = harvest("rae", tmp_path / "memories.csv")
    assert [w for w, _ in found.skipped] == [f"rae:{rows[0]['id']}"]
    for system, folder in (("basic-memory", "notes"), ("claude-code", "project")):
        root = _write(tmp_path / folder, {"CLAUDE.md": "- Keep it short\n", "a.md": "- [fact] A\n"})
        (root / "bad.md").write_bytes(b"- [fact] \xff\xfe not UTF-8\n")
        if system == "claude-code":
            (root / ".claude" / "rules").mkdir(parents=True)
            (root / "bad.md").rename(root / ".claude" / "rules" / "bad.md")
        skipped = harvest(system, root).skipped
        assert len(skipped) == 1, skipped
        assert skipped[0][0].endswith("bad.md")
        assert "cannot be read" in skipped[0][1]
