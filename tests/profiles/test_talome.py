"""talome: the composite score, and the top-10 section with its heading."""

from __future__ import annotations

import math

import pytest

from salience.briefing.policies import BriefingRequest
from salience.profiles.base import ProfileSettings
from salience.profiles.talome import PROFILE, briefing, context_score
from tests.factory import NOW, record

S = ProfileSettings()


def test_score_is_linear_recency_log_access_and_confidence() -> None:
    r = record(age=15, access_count=4, confidence=0.8)
    expected = 0.4 * 0.5 + 0.3 * math.log(5) + 0.3 * 0.8
    assert context_score(r, NOW, S).value == pytest.approx(expected, abs=1e-12)


def test_recency_counts_from_the_later_of_created_and_updated() -> None:
    r = record(age=40, updated_age=0, confidence=0.0)
    assert context_score(r, NOW, S).value == pytest.approx(0.4)


def test_scores_are_not_bounded_by_one() -> None:
    assert context_score(record(access_count=100, confidence=1.0), NOW, S).value > 1


def test_default_confidence_by_type() -> None:
    assert PROFILE.default_confidence("preference", "agent") == 1.0
    assert PROFILE.default_confidence("context", "agent") == 0.8


def test_top_10_under_the_heading_one_content_line_each() -> None:
    records = [record(content=f"fact {n}", age=n, confidence=1.0) for n in range(12)]
    result = briefing(records, BriefingRequest(now=NOW), S)
    lines = result.text.splitlines()
    assert lines[0] == "## What I Remember About You"
    assert lines[1:] == [f"- fact {n}" for n in range(10)]
    assert [e.reason for e in result.manifest if not e.kept] == ["limit", "limit"]
