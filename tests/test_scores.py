import operator
from collections.abc import Callable

import pytest

from salience.scores import Component, ContextScore, SearchScore, weighted


def test_weighted_sums_contributions_and_keeps_the_breakdown() -> None:
    score = weighted(ContextScore, "p", (("a", 0.5, 0.4), ("b", 0.5, 1.0)))
    assert score.value == pytest.approx(0.7)
    assert score.components == (Component("a", 0.5, 0.4), Component("b", 0.5, 1.0))
    assert score.breakdown()[0] == {"name": "a", "weight": 0.5, "value": 0.4, "contribution": 0.2}


def test_scores_of_one_kind_compare_and_sort() -> None:
    low, high = ContextScore(0.2), ContextScore(0.8)
    assert low < high
    assert sorted([high, low]) == [low, high]
    assert SearchScore(0.5) == SearchScore(0.5)


@pytest.mark.parametrize("op", [operator.lt, operator.le, operator.gt, operator.ge, operator.eq])
def test_search_and_context_scores_never_compare(op: Callable[[object, object], bool]) -> None:
    search, context = SearchScore(0.5), ContextScore(0.5)
    with pytest.raises(TypeError, match="cannot compare"):
        op(search, context)
    with pytest.raises(TypeError, match="cannot compare"):
        op(context, search)


def test_sorting_mixed_scores_raises() -> None:
    with pytest.raises(TypeError):
        sorted([SearchScore(0.9), ContextScore(0.1)])
