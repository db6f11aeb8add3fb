"""The audit log: every change leaves an entry, never the memory's text; `salience log`."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from salience import Memory
from salience.cli import cli
from tests.conftest import FakeClock

SECRET = "AKIA" + "ABCDEFGHIJKLMNOP"


def _actions(memory: Memory, memory_id: str | None = None) -> list[str]:
    return [e.action for e in reversed(memory.log(memory_id))]


def test_every_kind_of_change_is_logged(memory: Memory, clock: FakeClock) -> None:
    a = memory.remember("the staging host is db2", type="observation", tags=["db"]).id or ""
    memory.remember("the staging host is db2")  # duplicate
    memory.update(a, importance=0.9, tags=["db", "staging"])
    memory.feedback(a, used=False)
    b = memory.supersede(a, "the staging host is db3").id or ""
    memory.forget(b, "moved to k8s")
    memory.purge(b)
    # (purging b erases its whole chain: a, its older version, too)
    assert _actions(memory, a) == [
        "create",
        "duplicate",
        "update",
        "feedback",
        "supersede",
        "purge",
    ]
    assert _actions(memory, b) == ["create", "forget", "purge", "erase"]  # kept after it; a receipt
    update = next(e for e in memory.log(a) if e.action == "update")
    assert update.detail["importance"] == [0.5, 0.9]
    assert update.detail["tags"] == [["db"], ["db", "staging"]]
    assert update.actor == "caller"


def test_lifecycle_jobs_and_imports_are_logged(memory: Memory, clock: FakeClock) -> None:
    ids = [
        memory.remember(f"observation {i} about caching", tags=["cache"]).id or "" for i in range(3)
    ]
    memory.consolidate()
    clock.advance(days=30)
    memory.maintain()
    memory.import_(['{"content": "imported fact"}'])
    actions = _actions(memory)
    assert "consolidate" in actions
    assert "decay" in actions
    assert actions[-1] == "import"
    decays = [e for e in memory.log() if e.action == "decay"]
    assert {e.memory_id for e in decays} >= set(ids)
    assert all(e.actor == "maintenance" for e in decays)


def test_rejections_are_logged_without_the_secret(memory: Memory) -> None:
    result = memory.remember(f"aws key {SECRET}")
    assert result.id is None
    entry = memory.log(limit=1)[0]
    assert entry.action == "reject"
    assert entry.detail["gate"] == "secret"
    assert SECRET not in json.dumps(entry.detail)


def test_content_is_never_copied_into_the_log(memory: Memory) -> None:
    memory_id = memory.remember("the launch codes are in the blue folder").id or ""
    memory.update(memory_id, content="the launch codes are in the red folder")
    text = json.dumps([e.detail for e in memory.log()])
    assert "launch" not in text
    assert next(e for e in memory.log(memory_id) if e.action == "update").detail["content"] == (
        "changed"
    )


def test_cli_log(home: Path) -> None:
    runner = CliRunner(env={"SALIENCE_SIGNAL_GATE": "0", "SALIENCE_EMBEDDER": "none"})

    def run(*args: str):  # type: ignore[no-untyped-def]
        return runner.invoke(cli, [*args, "--home", str(home)])

    memory_id = json.loads(run("remember", "the build uses make", "--json").stdout)["id"]
    run("forget", memory_id, "--reason", "obsolete")
    entries = json.loads(run("log", "--id", memory_id, "--json").stdout)
    assert [e["action"] for e in entries] == ["forget", "create"]
    assert entries[0]["detail"] == {"reason": "given"}  # the log holds no text
    assert "obsolete" not in run("log", "--json").stdout
    text = run("log", "--limit", "1").stdout
    assert "forget" in text
    assert memory_id in text
