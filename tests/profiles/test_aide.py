"""aide: every vector of REFERENCE.md, the overrides, and the four-part briefing."""

from __future__ import annotations

from datetime import timedelta

import pytest

from salience.briefing.policies import BriefingRequest
from salience.profiles.aide import briefing, category_score, context_score
from salience.profiles.base import ProfileSettings
from tests.factory import NOW, record

S = ProfileSettings()


def score(**fields: object) -> float:
    return context_score(record(**fields), NOW, S).value  # type: ignore[arg-type]


def component(name: str, **fields: object) -> float:
    result = context_score(record(**fields), NOW, S)  # type: ignore[arg-type]
    return next(c.value for c in result.components if c.name == name)


@pytest.mark.parametrize(("age", "expected"), [(0, 1), (30, 0.5), (60, 0.25), (90, 0.125)])
def test_recency(age: float, expected: float) -> None:
    assert component("recency", age=age) == pytest.approx(expected, abs=1e-6)


def test_decay_disabled_keeps_recency_at_one() -> None:
    settings = ProfileSettings(aide_decay_disabled=True)
    result = context_score(record(age=365), NOW, settings)
    assert next(c.value for c in result.components if c.name == "recency") == 1.0


@pytest.mark.parametrize(("n", "expected"), [(0, 0), (1, 0.30103), (9, 1), (99, 1)])
def test_access(n: int, expected: float) -> None:
    assert component("access", access_count=n) == pytest.approx(expected, abs=1e-6)


def test_priority_overrides_the_score() -> None:
    assert score(type="learning", age=365, priority=0.95) == 0.95
    assert score(priority=1.5) == 1.0
    assert score(priority=-0.3) == 0.0
    pinned = context_score(record(age=365, priority=0.95), NOW, S)
    assert pinned.note is not None
    assert "replaces" in pinned.note
    assert score(type="session", priority=0.0) == pytest.approx(0.45, abs=1e-6)


def test_provenance() -> None:
    assert component("provenance", tags=("source:user",)) == pytest.approx(0.20)
    assert component("provenance", tags=("source:user", "verified:true")) == pytest.approx(0.30)


@pytest.mark.parametrize(
    ("fields", "expected"),
    [
        (
            {
                "type": "learning",
                "tags": ("project:aide", "source:discovered", "verified:true"),
                "access_count": 3,
                "age": 7,
            },
            0.5953728,
        ),
        (
            {
                "type": "learning",
                "tags": ("scope:global", "source:user", "verified:true", "source:discovered"),
                "access_count": 9,
            },
            0.9025,
        ),
        ({"type": "abandoned", "tags": ("source:discovered",)}, 0.7075),
        ({"type": "session"}, 0.45),
        ({"type": "mystery", "age": 30, "access_count": 1}, 0.4051030),
        ({"type": "learning", "tags": ("source:user",), "age": 60, "access_count": 99}, 0.4925),
    ],
)
def test_reference_vectors(fields: dict[str, object], expected: float) -> None:
    assert score(**fields) == pytest.approx(expected, abs=1e-6)


def test_category_order() -> None:
    kinds = [
        ("learning", ("scope:global", "source:discovered")),
        ("abandoned", ("source:discovered",)),
        ("blocker", ("source:discovered",)),
        ("issue", ("source:discovered",)),
        ("discovery", ("source:discovered",)),
        ("learning", ("source:discovered",)),
        ("session", ("source:discovered",)),
    ]
    values = [score(type=t, tags=tags, age=3, access_count=2) for t, tags in kinds]
    assert values == sorted(values, reverse=True)
    assert len(set(values)) == len(values)
    assert category_score(record(type="learning", tags=("scope:global",))) == 1.0


def _brief(records: list, **request: object):  # type: ignore[no-untyped-def,type-arg]
    return briefing(records, BriefingRequest(now=NOW, **request), S)  # type: ignore[arg-type]


def test_global_section_best_100_by_score_ties_by_ulid() -> None:
    many = [record(type="pattern", tags=("scope:global",), age=1) for _ in range(105)]
    better = record(type="abandoned", tags=("scope:global",), age=1)
    result = _brief([*many, better])
    shown = result.sections[0].ids
    assert len(shown) == 100
    assert shown[0] == better.id
    assert list(shown[1:]) == sorted(r.id for r in many)[:99]  # equal scores: oldest ULID first
    dropped = [e for e in result.manifest if not e.kept]
    assert {e.reason for e in dropped} == {"limit"}
    assert len(dropped) == 6


def test_project_section_best_30_sets_overflow() -> None:
    mine = [record(tags=("project:api",), age=i) for i in range(31)]
    other = record(tags=("project:web",))
    result = _brief([*mine, other], project="api")
    project = next(s for s in result.sections if s.title.startswith("Project"))
    assert len(project.ids) == 30
    assert mine[30].id not in project.ids  # the oldest scores lowest
    assert result.overflow
    assert not _brief(mine[:30], project="api").overflow
    assert other.id not in result.kept_ids


def test_two_most_recent_session_groups_prefer_their_summary() -> None:
    s1 = [record(tags=("session:s1",), age=9)]
    s2 = [record(tags=("session:s2",), age=5), record(type="session", tags=("session:s2",), age=5)]
    s3 = [record(tags=("session:s3",), age=2), record(tags=("session:s3",), age=1)]
    result = _brief([*s1, *s2, *s3])
    titles = [s.title for s in result.sections]
    assert "Session s3" in titles
    assert "Session s2" in titles
    assert "Session s1" not in titles
    assert titles.index("Session s3") < titles.index("Session s2")
    s2_section = next(s for s in result.sections if s.title == "Session s2")
    assert s2_section.ids == (s2[1].id,)  # its session summary, not its members
    s3_section = next(s for s in result.sections if s.title == "Session s3")
    assert s3_section.ids == (s3[0].id, s3[1].id)


def test_latest_decision_per_topic_in_topic_order() -> None:
    old = record(type="decision", topic_key="db", content="use MySQL", age=10)
    new = record(type="decision", topic_key="db", content="use Postgres", age=2)
    auth = record(type="decision", topic_key="auth", content="use OAuth", age=30)
    result = _brief([old, new, auth])
    decisions = next(s for s in result.sections if s.title == "Decisions")
    assert decisions.lines == ("- auth: use OAuth", "- db: use Postgres")
    assert old.id not in result.kept_ids


def test_superseded_and_disabled_are_dropped_with_reasons() -> None:
    gone = record(tags=("scope:global",), valid_until=NOW - timedelta(days=1))
    off = record(tags=("scope:global",), enabled=False)
    reasons = {e.id: e.reason for e in _brief([gone, off]).manifest}
    assert reasons == {gone.id: "superseded", off.id: "disabled"}


def test_scoring_disabled_uses_chronological_ulid_order() -> None:
    settings = ProfileSettings(aide_scoring_disabled=True)
    weak_old = record(type="session", tags=("scope:global",), age=5)
    strong_new = record(type="abandoned", tags=("scope:global",), age=1)
    result = briefing([strong_new, weak_old], BriefingRequest(now=NOW), settings)
    assert result.sections[0].ids == (weak_old.id, strong_new.id)
