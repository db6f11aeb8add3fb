"""salience's own profile: the score's shape, and the token-budgeted briefing."""

from __future__ import annotations

from datetime import timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from salience.briefing.columns import Columns
from salience.briefing.policies import BriefingRequest
from salience.models import NOTES, estimate_tokens
from salience.profiles.base import ProfileSettings
from salience.profiles.salience import (
    briefing,
    confidence_brake,
    context_score,
    identity_line,
    recency,
    section_of,
)
from tests.factory import NOW, record

S = ProfileSettings()


def test_weights_sum_to_one_and_a_perfect_memory_scores_one() -> None:
    r = record(importance=1, confidence=1, access_count=9, echo_count=10**6, source="user")
    score = context_score(r, NOW, S)
    assert sum(c.weight for c in score.components) == pytest.approx(1.0)
    assert score.value == pytest.approx(1.0, abs=1e-5)


unit = st.floats(min_value=0, max_value=1)


@given(
    unit, unit, st.floats(min_value=0, max_value=5000), st.integers(0, 10**6), st.integers(0, 99)
)
def test_score_stays_in_unit_interval(
    importance: float, confidence: float, age: float, accesses: int, fizzles: int
) -> None:
    r = record(
        importance=importance,
        confidence=confidence,
        age=age,
        access_count=accesses,
        fizzle_count=fizzles,
    )
    assert 0.0 <= context_score(r, NOW, S).value <= 1.0


def test_observations_fade_faster_than_procedures_and_heuristics() -> None:
    at_60_days = [
        recency(record(type=t, age=60, confidence=0.7), NOW)
        for t in ("observation", "insight", "procedure", "heuristic")
    ]
    assert at_60_days == sorted(at_60_days)


def test_confidence_brakes_decay() -> None:
    assert confidence_brake(90, 1.0) == 112.5
    assert confidence_brake(90, 0.0) == 67.5
    sure = recency(record(type="insight", age=60, confidence=1.0), NOW)
    unsure = recency(record(type="insight", age=60, confidence=0.0), NOW)
    assert sure > unsure


def test_feedback_moves_the_score_both_ways() -> None:
    neutral = context_score(record(), NOW, S).value
    assert context_score(record(echo_count=5), NOW, S).value > neutral
    assert context_score(record(fizzle_count=5), NOW, S).value < neutral


def test_user_stated_beats_agent_inferred() -> None:
    assert (
        context_score(record(source="user"), NOW, S).value > context_score(record(), NOW, S).value
    )


def test_identity_line_counts_vocabulary_types_first() -> None:
    records = [record(type="decision"), record(type="preference"), record(type="zeta")]
    columns = Columns.from_records([*records, record(type="fact", forget_reason="wrong")])
    line = identity_line(columns, columns.current(NOW))
    assert line == "[Memory: 3 entries: 1 preference, 1 decision, 1 zeta]"


def _brief(records: list, **request: object):  # type: ignore[no-untyped-def,type-arg]
    return briefing(records, BriefingRequest(now=NOW, **request), S)  # type: ignore[arg-type]


def test_sections_follow_types_and_the_header_comes_first() -> None:
    pref = record(type="preference", content="prefers dark mode", importance=0.9)
    decision = record(type="decision", content="use Postgres", topic_key="db", source="user")
    procedure = record(type="procedure", content="run make test before pushing")
    observation = record(type="observation", content="saw a flaky test", source="tool")
    result = _brief([observation, procedure, decision, pref])
    lines = result.text.splitlines()
    assert lines[0].startswith("[Memory: 4 entries")
    assert lines[1] == NOTES
    assert "## About the user" in lines
    assert "- db: use Postgres" in lines  # the user's own words: unmarked
    assert "- [agent] run make test before pushing" in lines
    assert "- [tool] saw a flaky test" in lines
    order = [s.title for s in result.sections if s.lines]
    assert order == ["About the user", "Decisions", "How we work", "Recent"]
    assert section_of("mystery") == "Recent"


def test_pins_come_first_and_mutes_never_show() -> None:
    pinned = record(content="always show this", priority=2.0, importance=0.0)
    muted = record(content="never show this", priority=-1.0, importance=1.0)
    plain = record(content="ordinary memory", importance=0.5)
    result = _brief([plain, muted, pinned])
    assert result.sections[0].title == "Pinned"
    assert result.sections[0].ids == (pinned.id,)
    assert {e.id: e.reason for e in result.manifest if not e.kept} == {muted.id: "muted"}


def test_project_scope_keeps_global_and_unscoped_memories() -> None:
    mine = record(tags=("project:api",))
    other = record(project="web")
    everywhere = record(tags=("project:web", "scope:global"))
    unscoped = record()
    result = _brief([mine, other, everywhere, unscoped], project="api")
    assert set(result.kept_ids) == {mine.id, everywhere.id, unscoped.id}
    assert {e.id: e.reason for e in result.manifest if not e.kept} == {other.id: "not in scope"}


def test_budget_drops_with_reasons_and_leftover_goes_to_over_cap_types() -> None:
    decisions = [
        record(type="decision", content="d" * 200, importance=1 - i / 100) for i in range(6)
    ]
    result = _brief(decisions, budget=300)
    assert result.tokens <= 300
    kept = [e for e in result.manifest if e.kept]
    dropped = [e for e in result.manifest if not e.kept]
    assert len(kept) >= 2  # more than the Decisions share alone (20 %) would allow
    assert {e.reason for e in dropped} <= {"token budget", "type budget"}
    assert len(kept) + len(dropped) == 6


def test_superseded_and_disabled_are_in_the_manifest() -> None:
    old = record(valid_until=NOW - timedelta(seconds=1))
    off = record(enabled=False)
    reasons = {e.id: e.reason for e in _brief([old, off]).manifest}
    assert reasons == {old.id: "superseded", off.id: "disabled"}


texts = st.text(alphabet="abcdefgh xyz", min_size=1, max_size=300).filter(str.strip)
kinds = st.sampled_from(["observation", "decision", "preference", "procedure", "fact", "other"])


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(texts, kinds, st.floats(0, 1)), max_size=40), st.integers(60, 2000))
def test_rendered_briefing_never_exceeds_the_budget(
    items: list[tuple[str, str, float]], budget: int
) -> None:
    records = [record(content=t, type=k, importance=i) for t, k, i in items]
    result = _brief(records, budget=budget)
    assert estimate_tokens(result.text) <= budget
    assert len(result.manifest) == len(records)
    kept_ids = [e.id for e in result.manifest if e.kept]
    assert sorted(kept_ids) == sorted(result.kept_ids)


def test_the_users_word_is_the_source_a_channel_vouched_for_not_a_tag() -> None:
    said = context_score(record(source="user"), NOW, S)
    claimed = context_score(record(source="agent", tags=("source:user",)), NOW, S)
    plain = context_score(record(source="agent"), NOW, S)
    part = {c.name: c.value for c in claimed.components}
    assert part["provenance"] == 0.5
    assert claimed.value == plain.value < said.value


def test_a_marked_line_costs_what_it_renders_to() -> None:
    """The packer's column arithmetic charges the mark: with a budget that fits the header
    and exactly the lines as rendered, every line is kept, and one token less drops one."""
    records = [
        record(content=f"note number {i} about the build", source=source, importance=0.5)
        for i, source in enumerate(("user", "agent", "import", "remote"))
    ]
    full = _brief(records, budget=10_000)
    exact = estimate_tokens(full.text + "\n") + 1
    fits = _brief(records, budget=exact)
    assert fits.text == full.text
    short = _brief(records, budget=estimate_tokens(full.text) - 3)
    assert len(short.text.splitlines()) < len(full.text.splitlines())
