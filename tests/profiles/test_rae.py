"""rae: the final score vectors and configurable weights and half-life."""

from __future__ import annotations

from datetime import timedelta

import pytest

from salience.models import Relevance
from salience.profiles.base import ProfileSettings
from salience.profiles.rae import context_score, search_score
from tests.factory import NOW, record

S = ProfileSettings()


@pytest.mark.parametrize(("hours", "expected"), [(0, 0.74), (24, 0.69)])
def test_reference_vectors(hours: float, expected: float) -> None:
    r = record(age=hours / 24, importance=0.5)
    result = search_score(r, NOW, Relevance(lexical=0.0, vector=0.9), S)
    assert result.value == pytest.approx(expected, abs=1e-6)


def test_recency_counts_from_the_last_access() -> None:
    r = record(age=10, importance=0.5, last_accessed_at=NOW - timedelta(hours=24))
    assert search_score(r, NOW, Relevance(vector=0.9), S).value == pytest.approx(0.69, abs=1e-6)


def test_usage_is_normalised_to_one_at_ten_uses() -> None:
    r = record(importance=0.0, access_count=10)
    result = search_score(r, NOW, Relevance(vector=0.0), S)
    assert result.value == pytest.approx(0.1 + 0.1)


def test_weights_and_half_life_are_configurable() -> None:
    settings = ProfileSettings(
        rae_weights=(("semantic", 1.0), ("recency", 0.0), ("importance", 0.0), ("usage", 0.0)),
        rae_half_life_hours=48.0,
    )
    r = record(age=1, importance=0.5)
    assert search_score(r, NOW, Relevance(vector=0.42), settings).value == pytest.approx(0.42)
    half = ProfileSettings(rae_half_life_hours=48.0)
    recency = next(
        c for c in search_score(r, NOW, Relevance(vector=0), half).components if c.name == "recency"
    )
    assert recency.value == pytest.approx(2**-0.5)


def test_without_vectors_semantic_falls_back_to_full_text_relevance() -> None:
    r = record(importance=0.5)
    assert search_score(r, NOW, Relevance(lexical=0.9), S).value == pytest.approx(0.74)


def test_context_score_has_no_semantic_part() -> None:
    assert context_score(record(importance=0.5), NOW, S).value == pytest.approx(0.2)
