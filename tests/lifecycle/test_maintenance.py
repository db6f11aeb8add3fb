"""Maintenance: REFERENCE.md's FadeMem vectors, idempotence, dry runs, retention, orphans."""

from __future__ import annotations

import json
import sqlite3
from dataclasses import replace
from datetime import timedelta
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from salience import Config, Memory
from salience.cli import cli
from salience.lifecycle.maintenance import decayed_importance
from tests.conftest import T0, FakeClock
from tests.embedder import WordHashEmbedder


@pytest.mark.parametrize(
    ("memory_type", "age", "confidence", "expected"),
    [
        ("observation", 30, 0.7, 0.2694471),
        ("insight", 30, 0.7, 0.4052740),
        ("observation", 60, 0.7, 0.1208167),
        ("insight", 60, 0.7, 0.3284941),
        ("procedure", 60, 0.7, 0.4297111),
        ("heuristic", 60, 0.7, 0.4466738),
        ("insight", 60, 1.0, 0.3454782),
        ("insight", 60, 0.0, 0.2700149),
        ("observation", 10_000, 0.7, 0.05),
        ("heuristic", 10_000, 0.7, 0.05),
        ("observation", 0, 0.7, 0.5),
    ],
)
def test_fademem_vectors(memory_type: str, age: float, confidence: float, expected: float) -> None:
    value = decayed_importance(0.5, T0, memory_type, confidence, T0 + timedelta(days=age))
    assert value == pytest.approx(expected, abs=1e-4)


def test_maintenance_is_idempotent_and_never_compounds(memory: Memory, clock: FakeClock) -> None:
    memory_id = memory.remember("observed the nightly job failing", importance=0.5).id or ""
    memory.update(memory_id, confidence=0.7)
    clock.advance(days=30)
    first = memory.maintain()
    assert [c.memory_id for c in first.decayed] == [memory_id]
    assert memory.get(memory_id).importance == pytest.approx(0.2694471, abs=1e-4)
    assert not memory.maintain().changed  # the same moment: nothing to do
    clock.advance(days=30)
    memory.maintain()
    # 60 days on the same curve from the same base, not 30 days twice compounded
    assert memory.get(memory_id).importance == pytest.approx(0.1208167, abs=1e-4)


def test_dry_run_reports_the_plan_and_changes_nothing(memory: Memory, clock: FakeClock) -> None:
    memory_id = memory.remember("observed a flaky test", importance=0.5).id or ""
    clock.advance(days=40)
    plan = memory.maintain(dry_run=True)
    assert plan.dry_run
    assert [c.memory_id for c in plan.decayed] == [memory_id]
    assert memory.get(memory_id).importance == 0.5
    done = memory.maintain()
    assert done.decayed == plan.decayed


def test_a_person_or_feedback_resets_the_base(memory: Memory, clock: FakeClock) -> None:
    memory_id = memory.remember("observed the cache warming slowly", importance=0.5).id or ""
    clock.advance(days=30)
    memory.maintain()
    memory.update(memory_id, importance=0.9)  # a person says it matters
    assert not memory.maintain().changed  # age 0 from the new base
    assert memory.get(memory_id).importance == 0.9
    memory.feedback(memory_id, used=True)
    assert memory.get(memory_id).importance == pytest.approx(0.95)
    assert not memory.maintain().changed


def test_retention_is_off_by_default_and_forgets_softly(
    config: Config, clock: FakeClock, memory: Memory
) -> None:
    old = memory.remember("observed something long ago").id or ""
    insight_source = memory.remember("observed a thing worth keeping").id or ""
    memory.remember("an insight", type="insight", derived_from=[insight_source])
    clock.advance(days=100)
    assert memory.maintain().forgotten == ()
    config = replace(config, retention_days=90)
    with Memory.open(config=config, clock=clock, embedder=WordHashEmbedder()) as kept:
        report = kept.maintain()
        assert report.forgotten == (old,)  # the consolidated one stays
        gone = kept.get(old)
        assert gone.forget_reason is not None
        assert "retention" in gone.forget_reason
        assert kept.get(insight_source).forget_reason is None


@pytest.mark.sqlite_only
def test_orphaned_index_rows_are_cleaned(memory: Memory) -> None:
    memory.remember("a memory that stays")
    path = memory.store.location
    raw = sqlite3.connect(path)
    raw.execute("PRAGMA foreign_keys = OFF")
    raw.execute("INSERT INTO memory_tags (seq, tag) VALUES (999, 'ghost')")
    raw.execute("INSERT INTO memory_vectors (memory_id, vector) VALUES ('ghost', x'00')")
    raw.commit()
    raw.close()
    plan = memory.maintain(dry_run=True)
    assert plan.orphans == {"memory_tags": 1, "memory_vectors": 1}
    assert memory.maintain().orphans == plan.orphans
    assert memory.maintain().orphans == {}


def test_cli_maintain(home: Path, tmp_path: Path) -> None:
    runner = CliRunner(env={"SALIENCE_SIGNAL_GATE": "0", "SALIENCE_EMBEDDER": "none"})

    def run(*args: str) -> Result:
        return runner.invoke(cli, [*args, "--home", str(home)])

    old = tmp_path / "old.jsonl"
    old.write_text(
        '{"content": "observed the deploy taking long", "created_at": "2006-01-01T00:00:00Z"}\n',
        encoding="utf-8",
    )
    assert run("import", str(old)).exit_code == 0
    created = json.loads(run("list", "--json").stdout)[0]
    plan = run("maintain", "--dry-run")
    assert plan.exit_code == 0
    assert "would change: 1 decayed" in plan.stdout
    assert json.loads(run("show", created["id"], "--json").stdout)["importance"] == 0.5
    done = run("maintain", "--json")
    assert json.loads(done.stdout)["decayed"][0]["after"] == pytest.approx(0.05)
    again = run("maintain")
    assert again.stdout.strip() == "nothing to do"


def test_maintenance_ahead_of_time_is_only_previewed(home: Path) -> None:
    runner = CliRunner(env={"SALIENCE_SIGNAL_GATE": "0", "SALIENCE_EMBEDDER": "none"})
    assert runner.invoke(cli, ["remember", "observed the deploy taking long", "--home", str(home)])
    future = ["maintain", "--as-of", "2046-01-01T00:00:00", "--home", str(home)]
    refused = runner.invoke(cli, future)
    assert refused.exit_code == 1
    assert "future" in refused.stderr
    preview = runner.invoke(cli, [*future, "--dry-run"])
    assert "would change: 1 decayed" in preview.stdout
    shown = runner.invoke(cli, ["list", "--json", "--home", str(home)])
    assert json.loads(shown.stdout)[0]["importance"] == 0.5  # nothing was written


def test_invisible_decay_is_not_reported(memory: Memory, clock: FakeClock) -> None:
    memory.remember("observed the deploy taking long")
    clock.advance(seconds=30)  # importance moves by ~1e-7: nothing a person could see
    report = memory.maintain()
    assert report.decayed == ()
    clock.advance(days=400)
    assert len(memory.maintain().decayed) == 1
