"""Consolidation: REFERENCE.md's grouping vectors, insights, boosts, idempotence, dry runs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from salience import Memory
from salience.cli import cli
from salience.lifecycle.consolidation import group_by_tags, insight_importance, representative
from tests.factory import record


def _groups(*tag_lists: list[str]) -> list[list[int]]:
    records = [record(f"m{i}", tags=tuple(tags)) for i, tags in enumerate(tag_lists)]
    index = {r.id: i for i, r in enumerate(records)}
    return [[index[r.id] for r in g] for g in group_by_tags(records)]


def test_grouping_vectors() -> None:
    assert _groups(["raven", "config"], ["raven", "index"], ["docker", "deploy"]) == [[0, 1], [2]]
    assert _groups(["RavenDB"], ["ravendb"]) == [[0, 1]]
    assert _groups(["a"], ["b"], ["c"]) == [[0], [1], [2]]
    assert _groups() == []


def test_sharing_is_transitive_and_untagged_memories_stand_alone() -> None:
    assert _groups(["x"], ["x", "y"], ["y"], [], []) == [[0, 1, 2], [3], [4]]


def test_insight_fields_follow_the_rule() -> None:
    members = [record(importance=0.5), record(importance=0.9), record(importance=0.9)]
    assert representative(members) is members[1]  # most important, then oldest
    assert insight_importance(members) == pytest.approx(min(1.0, (2.3 / 3) * 1.2))


def _observe(memory: Memory, text: str, *tags: str) -> str:
    return memory.remember(text, type="observation", tags=list(tags), importance=0.5).id or ""


def test_a_group_becomes_an_insight_linked_both_ways(memory: Memory) -> None:
    a = _observe(memory, "ravendb needs its index rebuilt after upgrades", "ravendb")
    b = _observe(memory, "ravendb config lives in settings json", "ravendb", "config")
    c = _observe(memory, "the config loader reads env first", "config")
    _observe(memory, "docker compose builds slowly", "docker")
    report = memory.consolidate()
    assert report.candidates == 4
    assert len(report.groups) == 1
    plan = report.groups[0]
    assert plan.action == "create"
    assert plan.members == (a, b, c)
    insight = memory.get(plan.insight_id or "")
    assert insight.type == "insight"
    assert insight.derived_from == (a, b, c)
    assert insight.confidence == 0.7
    assert insight.importance == pytest.approx(0.6)
    assert {t.casefold() for t in insight.tags} == {"ravendb", "config"}
    assert [r.id for r in memory.derived_from_this(a)] == [insight.id]


def test_consolidation_is_idempotent(memory: Memory) -> None:
    for i in range(3):
        _observe(memory, f"note {i} about the payments service", "payments")
    assert len(memory.consolidate().groups) == 1
    second = memory.consolidate()
    assert second.groups == ()
    assert second.candidates == 0
    assert len(memory.list(type="insight")) == 1


def test_dry_run_plans_without_writing(memory: Memory) -> None:
    for i in range(3):
        _observe(memory, f"note {i} about the search cluster", "search")
    plan = memory.consolidate(dry_run=True)
    assert [g.action for g in plan.groups] == ["create"]
    assert plan.groups[0].insight_id is None
    assert memory.list(type="insight") == []
    assert len(memory.consolidate().groups) == 1


def test_a_similar_insight_is_boosted_instead(memory: Memory) -> None:
    insight = memory.remember(
        "payments retries failed charges nightly", type="insight", importance=0.5
    ).id
    ids = [
        _observe(memory, "payments retries failed charges nightly now", "payments"),
        _observe(memory, "payments retries failed charges nightly again", "payments"),
        _observe(memory, "payments retries failed charges nightly too", "payments"),
    ]
    report = memory.consolidate()
    assert [(g.action, g.insight_id) for g in report.groups] == [("boost", insight)]
    assert report.groups[0].similarity is not None
    assert report.groups[0].similarity > 0.85
    boosted = memory.get(insight or "")
    assert boosted.importance == pytest.approx(0.65)
    assert set(ids) <= set(boosted.derived_from)
    assert memory.consolidate().groups == ()  # boosted members are consolidated too


def test_groups_never_mix_users(memory: Memory) -> None:
    for i in range(2):
        memory.remember(f"ann note {i} on billing", tags=["billing"], user="ann")
        memory.remember(f"bob note {i} on billing", tags=["billing"], user="bob")
    assert memory.consolidate().groups == ()


def test_cli_consolidate(home: Path) -> None:
    runner = CliRunner(env={"SALIENCE_SIGNAL_GATE": "0", "SALIENCE_EMBEDDER": "none"})

    def run(*args: str):  # type: ignore[no-untyped-def]
        return runner.invoke(cli, [*args, "--home", str(home)])

    for i in range(3):
        run("remember", f"observation {i} about the cache layer", "--tag", "cache")
    plan = run("consolidate", "--dry-run")
    assert plan.exit_code == 0
    assert "would consolidate 1 groups" in plan.stdout
    done = json.loads(run("consolidate", "--json").stdout)
    assert done["groups"][0]["action"] == "create"
    assert len(done["groups"][0]["members"]) == 3
    assert run("consolidate").stdout.startswith("nothing to consolidate")
