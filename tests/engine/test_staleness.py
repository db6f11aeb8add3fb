"""Staleness follows dependencies: what was derived from a memory that changed goes stale,
transitively, leaves briefings, comes last in recall, until a person confirms it (on SQLite
and on PostgreSQL)."""

from __future__ import annotations

import json

import pytest

from salience import ConflictError, Memory

A, B, C = "01JS0000000000000000000001", "01JS0000000000000000000002", "01JS0000000000000000000003"


def _chain(memory: Memory) -> None:
    """A; B summarises A; C summarises B (importance high: they would be briefed)."""
    lines = [
        {"id": A, "content": "the north crane is rated for 40 tonnes", "type": "fact"},
        {"id": B, "content": "crane capacity summary: 40 tonnes", "type": "insight",
         "derived_from": [A], "importance": 0.9},
        {"id": C, "content": "site lifting overview: cranes up to 40 tonnes", "type": "insight",
         "derived_from": [B], "importance": 0.9},
    ]  # fmt: skip
    assert memory.import_([json.dumps(line) for line in lines]).created == 3


def _stale_ids(memory: Memory) -> list[str]:
    return sorted(r.id for r in memory.stale())


@pytest.mark.parametrize(
    ("change", "how"),
    [
        (lambda m: m.supersede(A, "the north crane is rated for 35 tonnes"), "superseded"),
        (lambda m: m.update(A, content="the north crane is rated for 30 tonnes"), "updated"),
        (lambda m: m.forget(A, "the crane was sold"), "forgotten"),
    ],
)
def test_what_was_derived_from_a_changed_memory_goes_stale_transitively(
    memory: Memory, change: object, how: str
) -> None:
    _chain(memory)
    assert "crane capacity summary" in memory.briefing(profile="salience").text
    change(memory)  # type: ignore[operator]
    assert _stale_ids(memory) == [B, C]
    for memory_id in (B, C):
        record = memory.get(memory_id)
        assert {"stale", f"stale:{how}"} <= set(record.tags)
    marks = [e for e in memory.log(B) if e.action == "stale"]
    assert [(e.detail["source"], e.detail["how"]) for e in marks] == [(A, how)]
    briefing = memory.briefing(profile="salience")
    assert "crane capacity summary" not in briefing.text
    assert {e.id: e.reason for e in briefing.manifest if e.id in (B, C)} == {
        B: "stale",
        C: "stale",
    }


def test_a_stale_memory_comes_after_current_ones_in_recall(memory: Memory) -> None:
    _chain(memory)
    memory.remember("crane inspections happen every spring", type="fact")
    memory.forget(A, "the crane was sold")
    hits = [h.record.id for h in memory.search("crane tonnes", touch=False)]
    assert set(hits[-2:]) == {B, C}


def test_marking_is_idempotent_and_a_metadata_change_marks_nothing(memory: Memory) -> None:
    _chain(memory)
    memory.update(A, importance=0.8)
    assert _stale_ids(memory) == []
    memory.forget(A, "sold")
    memory.forget(B, "merged elsewhere")  # C is already stale: marked once
    assert len([e for e in memory.log(C) if e.action == "stale"]) == 1


def test_confirming_clears_the_mark(memory: Memory) -> None:
    _chain(memory)
    memory.supersede(A, "the north crane is rated for 45 tonnes")
    confirmed = memory.confirm(B)
    assert confirmed.record is not None
    assert "stale" not in confirmed.record.tags
    assert not any(t.startswith("stale:") for t in confirmed.record.tags)
    assert _stale_ids(memory) == [C]
    assert next(e.action for e in memory.log(B)) == "confirm"
    assert "crane capacity summary" in memory.briefing(profile="salience").text
    with pytest.raises(ConflictError, match="not stale"):
        memory.confirm(B)
