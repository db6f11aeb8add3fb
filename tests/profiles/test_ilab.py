"""ilab: the helper, both scores' vectors, and the session-start briefing shape."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from salience.briefing.policies import BriefingRequest
from salience.models import Relevance
from salience.profiles.base import ProfileSettings
from salience.profiles.ilab import briefing, context_score, recency_score, search_score
from salience.scores import ContextScore, SearchScore
from tests.factory import NOW, record

S = ProfileSettings()


def test_the_documents_own_example_is_0_0394_not_0_39() -> None:
    now = datetime(2026, 4, 20, tzinfo=UTC)
    value = recency_score(datetime(2025, 12, 1, tzinfo=UTC), now)
    assert value == pytest.approx(0.0393725, abs=1e-6)


@pytest.mark.parametrize(
    ("fts", "age", "revisions", "expected"),
    [
        (1, 0, 1, 0.865),
        (1, 180, 1, 0.6189063),
        (0, 0, 1, 0.265),
        (0.5, 30, 5, 0.5),
        (1, 0, 10, 1.0),
    ],
)
def test_search_score_vectors(fts: float, age: float, revisions: int, expected: float) -> None:
    r = record(age=age, revision_count=revisions)
    result = search_score(r, NOW, Relevance(lexical=fts), S)
    assert isinstance(result, SearchScore)
    assert result.value == pytest.approx(expected, abs=1e-6)


@pytest.mark.parametrize(
    ("age", "revisions", "kind", "expected"),
    [
        (0, 1, "profile", 0.73),
        (0, 1, "preference", 0.71),
        (30, 1, "profile", 0.48),
        (0, 10, "discovery", 0.90),
        (140, 5, "decision", 0.3096863),
    ],
)
def test_context_score_vectors(age: float, revisions: int, kind: str, expected: float) -> None:
    result = context_score(record(age=age, revision_count=revisions, type=kind), NOW, S)
    assert isinstance(result, ContextScore)
    assert result.value == pytest.approx(expected, abs=1e-6)


def test_recency_uses_updated_at() -> None:
    fresh = record(age=100, updated_age=0, type="profile")
    assert context_score(fresh, NOW, S).value == pytest.approx(0.73, abs=1e-6)


def test_an_old_full_match_beats_a_new_miss() -> None:
    old_hit = search_score(record(age=180), NOW, Relevance(lexical=1.0), S)
    new_miss = search_score(record(age=0), NOW, Relevance(lexical=0.0), S)
    assert old_hit > new_miss


def test_search_and_context_scores_cannot_be_sorted_together() -> None:
    r = record()
    with pytest.raises(TypeError):
        sorted([search_score(r, NOW, Relevance(lexical=1), S), context_score(r, NOW, S)])


def test_session_briefing_has_5_summaries_and_10_memories() -> None:
    summaries = [record(type="summary", age=n) for n in range(7)]
    memories = [record(type="discovery", age=n) for n in range(12)]
    result = briefing([*summaries, *memories], BriefingRequest(now=NOW), S)
    recent, ranked = result.sections
    assert recent.title == "Recent sessions"
    assert recent.ids == tuple(r.id for r in summaries[:5])  # newest first
    assert ranked.ids == tuple(r.id for r in memories[:10])
    assert sum(not e.kept for e in result.manifest) == 4
