"""eidet: the memory score vectors, budgets, L0 and L1."""

from __future__ import annotations

import pytest

from salience.briefing.columns import Columns
from salience.briefing.policies import BriefingRequest
from salience.models import Relevance, estimate_tokens
from salience.profiles.base import ProfileSettings
from salience.profiles.eidet import (
    PROFILE,
    briefing,
    ceil_share,
    l0_line,
    memory_score,
    recall_budgets,
    search_score,
)
from tests.factory import NOW, record

S = ProfileSettings()


@pytest.mark.parametrize(
    ("importance", "confidence", "age", "accesses", "expected"),
    [
        (0.5, 0.7, 0, 0, 0.505),
        (0.5, 0.6, 0, 0, 0.490),
        (0.5, 0.7, 7, 0, 0.38),
        (0.8, 0.7, 14, 5, 0.5575),
        (1.0, 1.0, 0, 10, 1.0),
    ],
)
def test_memory_score_vectors(
    importance: float, confidence: float, age: float, accesses: int, expected: float
) -> None:
    r = record(importance=importance, confidence=confidence, age=age, access_count=accesses)
    assert memory_score(r, NOW).value == pytest.approx(expected, abs=1e-3)


def test_confidence_defaults_by_source() -> None:
    assert PROFILE.default_confidence("observation", "user") == 0.7
    assert PROFILE.default_confidence("observation", "agent") == 0.6
    assert PROFILE.default_confidence("insight", "consolidation") == 0.7


@pytest.mark.parametrize(("chars", "tokens"), [(4, 1), (1, 1), (100, 25), (120, 30), (0, 0)])
def test_tokens_are_ceil_chars_over_4(chars: int, tokens: int) -> None:
    assert estimate_tokens("x" * chars) == tokens


@pytest.mark.parametrize(
    ("limit", "budgets"),
    [
        (1, (1, 1, 1, 1)),
        (3, (2, 1, 1, 1)),
        (5, (2, 2, 1, 1)),
        (10, (4, 3, 2, 1)),
        (20, (8, 5, 4, 3)),
        (50, (20, 13, 10, 7)),
    ],
)
def test_recall_type_budgets(limit: int, budgets: tuple[int, ...]) -> None:
    b = recall_budgets(limit)
    assert (b["insight"], b["observation"], b["procedure"], b["heuristic"]) == budgets


def test_integer_ceil_avoids_float_rounding() -> None:
    assert ceil_share(15, 20) == 3  # 0.2 * 15 in floats rounds up to 4


def test_search_weights_full_text_vector_only_and_layers() -> None:
    r = record(importance=0.5, confidence=0.7)
    base = memory_score(r, NOW).value
    assert search_score(r, NOW, Relevance(lexical=0.3), S).value == pytest.approx(base)
    vector_only = Relevance(lexical=0.0, vector=0.8, lexical_hit=False)
    assert search_score(r, NOW, vector_only, S).value == pytest.approx(0.9 * base)
    shared = record(importance=0.5, confidence=0.7, layer="shared")
    assert search_score(shared, NOW, vector_only, S).value == pytest.approx(0.72 * base)


def test_l0_line_counts_types_in_order_and_skips_empty() -> None:
    records = [record(type="insight"), record(type="observation"), record(type="observation")]
    old = record(type="procedure", valid_until=NOW)
    columns = Columns.from_records([*records, old])
    current = columns.current(NOW)
    assert l0_line(columns, current) == "[Memory: 3 entries, 2 observations, 1 insights]"
    assert l0_line(columns, current & ~current) == "[Memory: 0 entries]"


def _brief(records: list):  # type: ignore[no-untyped-def,type-arg]
    return briefing(records, BriefingRequest(now=NOW), S)


def test_l1_has_no_observations_and_respects_type_budgets() -> None:
    insights = [record(type="insight", content=f"i{n}", importance=0.9) for n in range(12)]
    procedures = [record(type="procedure", content=f"p{n}", importance=0.8) for n in range(8)]
    heuristics = [record(type="heuristic", content=f"h{n}", importance=0.7) for n in range(6)]
    observation = record(type="observation", importance=1.0)
    result = _brief([*insights, *procedures, *heuristics, observation])
    lines = result.sections[0].lines
    assert len(lines) == 20
    assert sum(line.startswith("[I]") for line in lines) == 10
    assert sum(line.startswith("[P]") for line in lines) == 6
    assert sum(line.startswith("[H]") for line in lines) == 4
    reasons = {e.id: e.reason for e in result.manifest if not e.kept}
    assert reasons[observation.id] == "not in scope"
    assert reasons[insights[-1].id] == "type budget"
    assert (
        result.text.splitlines()[0]
        == "[Memory: 27 entries, 1 observations, 12 insights, 8 procedures, 6 heuristics]"
    )


def test_l1_stops_at_the_first_line_that_does_not_fit_600_tokens() -> None:
    long_ones = [
        record(type="insight", content="x" * 396, importance=1 - n / 100) for n in range(8)
    ]
    result = _brief(long_ones)
    kept = result.sections[0].ids
    assert len(kept) == 5  # L0 + 5 lines of 100 tokens fit; the sixth does not
    assert result.tokens <= 600
    dropped = [e for e in result.manifest if not e.kept]
    assert [e.reason for e in dropped] == ["token budget"] * 3
