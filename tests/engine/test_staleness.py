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


def test_a_session_summary_and_a_decision_citing_it_go_stale_with_it(memory: Memory) -> None:
    session = memory.session_start(user="ana").session_id
    noted = memory.remember(
        "the north crane is rated for 40 tonnes", user="ana", type="fact", session_id=session
    )
    assert noted.id is not None
    summary = memory.session_end("crane day: the north crane lifts 40 tonnes", user="ana")
    decided = memory.remember(
        f"Decision: book the north crane for the roof beams (see {noted.id})",
        user="ana",
        type="decision",
    )
    plain = memory.remember("the tower crane needs a permit", user="ana", type="fact")
    memory.supersede(noted.id, "the north crane is rated for 35 tonnes", user="ana")
    assert sorted(r.id for r in memory.stale(user="ana")) == sorted([summary.id, decided.id])
    assert plain.record is not None
    assert "stale" not in memory.get(plain.id or "", user="ana").tags
    newest = memory.history(noted.id, user="ana")[0]
    memory.purge(newest.id, user="ana")  # the summary may hold its words: erased with it
    left = {r.id for r in memory.list(user="ana", include_superseded=True)}
    assert summary.id not in left
    assert decided.id in left


def test_a_purge_erases_what_quotes_it_and_marks_what_only_cites_it(memory: Memory) -> None:
    _chain(memory)
    cited = memory.remember(f"Decision: keep the crane booked, per {A}", type="decision")
    assert cited.id is not None
    twice = memory.remember(f"Follow-up to {B}: cranes checked", type="decision")
    assert twice.id is not None
    memory.purge(A)
    assert [r.id for r in memory.list(include_superseded=True, include_forgotten=True)] == [
        twice.id,
        cited.id,
    ]  # B and C quoted A: erased with it; the decisions named an id, not its words
    assert _stale_ids(memory) == sorted([cited.id, twice.id])
    assert {"stale", "stale:purged"} <= set(memory.get(cited.id).tags)


def test_case_is_kept_when_matching_an_id_in_text(memory: Memory) -> None:
    _chain(memory)
    memory.remember(f"lower case is not a citation: {A.lower()}", type="decision")
    memory.forget(A, "sold")
    assert _stale_ids(memory) == [B, C]


def _insight(memory: Memory) -> tuple[list[str], str]:
    texts = [
        "forklift 2 battery died before noon",
        "forklift 2 needed a battery swap at eleven",
        "forklift 2 battery ran flat during the morning shift",
        "forklift 2 stalled on a weak battery again",
    ]
    members = [
        memory.remember(t, type="observation", tags=["forklift"], importance=0.6).id or ""
        for t in texts
    ]
    report = memory.consolidate()
    assert [g.action for g in report.groups] == ["create"]
    return members, report.groups[0].insight_id or ""


def test_consolidate_rederives_a_stale_insight_from_its_members_current_versions(
    memory: Memory,
) -> None:
    members, insight = _insight(memory)
    newer = memory.supersede(members[0], "forklift 2 got a new battery and ran all day")
    memory.forget(members[1], "it was forklift 3")
    assert _stale_ids(memory) == [insight]
    plan = memory.consolidate(dry_run=True)
    assert [(g.action, g.replaces) for g in plan.groups] == [("rederive", insight)]
    assert memory.get(insight).is_current(memory.now())  # a dry run changes nothing
    done = memory.consolidate()
    [group] = done.groups
    assert (group.action, group.replaces) == ("rederive", insight)
    assert sorted(group.members) == sorted([newer.id or "", members[2], members[3]])
    fresh = memory.get(group.insight_id or "")
    assert fresh.parent_id == insight
    assert sorted(fresh.derived_from) == sorted(group.members)
    assert "stale" not in fresh.tags
    assert _stale_ids(memory) == []
    assert [r.id for r in memory.history(fresh.id)] == [fresh.id, insight]
    actions = {e.action: e.detail for e in memory.log(fresh.id)}
    assert actions["consolidate"]["replaces"] == insight
    assert memory.consolidate().groups == ()  # idempotent


def test_an_insight_with_too_few_members_left_stays_stale_for_a_person(memory: Memory) -> None:
    members, insight = _insight(memory)
    memory.forget(members[0], "wrong forklift")
    memory.forget(members[1], "wrong forklift")
    assert memory.consolidate().groups == ()
    assert _stale_ids(memory) == [insight]
