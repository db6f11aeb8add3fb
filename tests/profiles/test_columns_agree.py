"""The columnar scores and policies give exactly what the record-at-a-time ones give.

Random stores built to hit every branch: ties in time and score, pins and mutes, projects
(one, several, none), global memories, session groups, topics, superseded, forgotten and
disabled memories, a mounted layer, long and short lines against small budgets.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from datetime import timedelta
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from salience.briefing.columns import Columns
from salience.briefing.manifest import best_dropped
from salience.briefing.policies import BriefingRequest
from salience.models import Briefing, MemoryRecord, Relevance
from salience.profiles import PROFILES, ProfileSettings
from salience.profiles.base import Relevances
from tests.factory import NOW, record
from tests.profiles.oracle import aide, eidet, ilab, rae, salience, talome

pytestmark = [pytest.mark.slow]

ORACLES: dict[str, Callable[..., Briefing]] = {
    "aide": aide.briefing,
    "eidet": eidet.briefing,
    "ilab": ilab.briefing,
    "rae": rae.briefing,
    "talome": talome.briefing,
    "salience": salience.briefing,
}
TYPES = sorted(
    {t.name for p in PROFILES.values() for t in p.types} | {"session", "learning", "mystery"}
)
TAGS = [
    "project:p0",
    "project:p1",
    "project:",
    "scope:global",
    "source:user",
    "verified:true",
    "source:discovered",
    "session:s0",
    "session:s1",
    "session:s2",
    "session:",
]
# A few shared instants and values, so that equal times and equal scores happen often.
AGES = [0.0, 0.5, 1.0, 3.0, 29.999, 30.0, 45.25, 200.0, 400.0, -2.0]
UNIT = [0.0, 0.25, 0.5, 0.5, 0.9, 1.0]


@st.composite
def memories(draw: st.DrawFn) -> MemoryRecord:
    age = draw(st.sampled_from(AGES) | st.floats(-5, 500, allow_nan=False))
    created = NOW - timedelta(days=age)
    fields: dict[str, Any] = {
        "type": draw(st.sampled_from(TYPES)),
        "tags": tuple(dict.fromkeys(draw(st.lists(st.sampled_from(TAGS), max_size=4)))),
        "importance": draw(st.sampled_from(UNIT)),
        "confidence": draw(st.sampled_from(UNIT)),
        "priority": draw(st.sampled_from([0.0] * 6 + [0.5, 2.0, -1.0])),
        "access_count": draw(st.integers(0, 40)),
        "revision_count": draw(st.integers(1, 15)),
        "echo_count": draw(st.integers(0, 4)),
        "fizzle_count": draw(st.integers(0, 4)),
        "source": draw(st.sampled_from(["agent", "user", "import"])),
        "project": draw(st.sampled_from([None, None, "p0", "p1", "p2"])),
        "session_id": draw(st.sampled_from([None, None, "s1", "s3"])),
        "topic_key": draw(st.sampled_from([None, "t-a", "t-b", "t-c"])),
        "title": draw(st.sampled_from([None, None, "A short title"])),
        "enabled": draw(st.sampled_from([True] * 5 + [False])),
        "layer": draw(st.sampled_from(["local"] * 4 + ["shared"])),
        "forget_reason": draw(st.sampled_from([None] * 9 + ["wrong"])),
    }
    if draw(st.booleans()):
        fields["last_accessed_at"] = created + timedelta(days=draw(st.floats(0, 50)))
    if draw(st.integers(0, 5)) == 0:
        fields["valid_until"] = NOW + timedelta(days=draw(st.sampled_from([-1.0, 0.0, 1.0])))
    if draw(st.booleans()):
        fields["id"] = draw(
            st.sampled_from(["01J00000000000000000000001", "01J0000000000000000000000Z"])
        )
    words = draw(st.integers(1, 60))
    content = " ".join(["word"] * words) + draw(st.sampled_from(["", "\n  tail", "\t!"]))
    updated = draw(st.sampled_from([0.0, 0.0, 1.0, 20.0]))
    return record(content, age=age, updated_age=max(age - updated, -5.0), **fields)


def unique_ids(records: list[MemoryRecord]) -> list[MemoryRecord]:
    seen: set[str] = set()
    return [r for r in records if not (r.id in seen or seen.add(r.id))]  # type: ignore[func-returns-value]


SETTINGS = [
    ProfileSettings(),
    ProfileSettings(aide_scoring_disabled=True, aide_decay_disabled=True),
    ProfileSettings(rae_weights=(("usage", 0.5), ("recency", 0.3), ("importance", 0.2))),
    ProfileSettings(briefing_budget=120),
]


@pytest.mark.parametrize("name", sorted(ORACLES))
@settings(max_examples=30, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(
    records=st.lists(memories(), min_size=20, max_size=80).map(unique_ids),
    project=st.sampled_from([None, "p0", "p2"]),
    budget=st.sampled_from([None, None, 1, 40, 150]),
    which=st.integers(0, len(SETTINGS) - 1),
)
def test_columnar_policy_equals_the_record_at_a_time_one(
    name: str,
    records: list[MemoryRecord],
    project: str | None,
    budget: int | None,
    which: int,
) -> None:
    request = BriefingRequest(now=NOW, project=project, budget=budget)
    tuned = SETTINGS[which]
    new = PROFILES[name].briefing(records, request, tuned)
    old = ORACLES[name](records, request, tuned)
    assert (new.text, new.sections, new.header, new.overflow) == (
        old.text,
        old.sections,
        old.header,
        old.overflow,
    )
    assert tuple(new.manifest) == tuple(old.manifest)
    assert len(new.manifest) == len(old.manifest)
    entries = tuple(old.manifest)  # (a tuple: best_dropped reads it entry by entry)
    for n in (0, 1, 3, 20, 200):
        assert best_dropped(new.manifest, n) == best_dropped(entries, n)


@pytest.mark.parametrize("name", sorted(PROFILES))
@settings(max_examples=60, deadline=None)
@given(
    records=st.lists(memories(), min_size=1, max_size=40),
    which=st.integers(0, len(SETTINGS) - 1),
    days=st.floats(-3, 1000, allow_nan=False),
)
def test_column_scores_are_the_scalar_scores_to_the_last_bit(
    name: str, records: list[MemoryRecord], which: int, days: float
) -> None:
    profile, tuned = PROFILES[name], SETTINGS[which]
    now = NOW + timedelta(days=days)
    columns = Columns.from_records(records)
    scalar = [profile.context_score(r, now, tuned).value for r in records]
    assert profile.context_scores(columns, now, tuned).tolist() == scalar


def test_far_dates_still_age_exactly() -> None:
    # Over 2**53 microseconds apart (285 years) a double cannot hold the difference exactly.
    old = record(age=200_000.123456)
    for name, profile in PROFILES.items():
        columns = Columns.from_records([old])
        value = profile.context_scores(columns, NOW, ProfileSettings()).tolist()
        assert value == [profile.context_score(old, NOW, ProfileSettings()).value], name


@st.composite
def relevances(draw: st.DrawFn) -> Relevance:
    unit = st.sampled_from(UNIT) | st.floats(0, 1)
    return Relevance(
        lexical=draw(unit),
        vector=draw(st.none() | unit),
        lexical_hit=draw(st.booleans()),
        fused=draw(st.none() | unit),
    )


@pytest.mark.parametrize("name", sorted(PROFILES))
@settings(max_examples=60, deadline=None)
@given(
    pairs=st.lists(st.tuples(memories(), relevances()), min_size=1, max_size=40),
    which=st.integers(0, len(SETTINGS) - 1),
    prior=st.sampled_from([0.15, 0.0, 0.3]),
    days=st.floats(-3, 1000, allow_nan=False),
)
def test_column_search_scores_are_the_scalar_ones_to_the_last_bit(
    name: str, pairs: list[tuple[MemoryRecord, Relevance]], which: int, prior: float, days: float
) -> None:
    profile, tuned = PROFILES[name], replace(SETTINGS[which], recall_prior=prior)
    now = NOW + timedelta(days=days)
    records = [r for r, _ in pairs]
    nan = float("nan")
    given_ = Relevances(
        np.array([r.lexical for _, r in pairs]),
        np.array([nan if r.vector is None else r.vector for _, r in pairs]),
        np.array([r.lexical_hit for _, r in pairs]),
        np.array([nan if r.fused is None else r.fused for _, r in pairs]),
    )
    scalar = [profile.search_score(r, now, rel, tuned).value for r, rel in pairs]
    assert profile.search_scores(Columns.from_records(records), now, given_, tuned).tolist() == (
        scalar
    )
