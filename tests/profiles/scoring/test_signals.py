import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from salience.profiles.scoring import signals

ages = st.floats(min_value=0, max_value=1e5, allow_nan=False)


def test_half_life_recency_halves_each_half_life() -> None:
    assert [signals.half_life_recency(d, 30) for d in (0, 30, 60, 90)] == [1, 0.5, 0.25, 0.125]


def test_stretched_recency_with_shape_one_is_the_plain_curve() -> None:
    assert signals.stretched_recency(45, 90, 1.0) == pytest.approx(
        signals.half_life_recency(45, 90)
    )


def test_linear_recency_reaches_zero_at_the_horizon_and_stays() -> None:
    assert signals.linear_recency(15, 30) == 0.5
    assert signals.linear_recency(30, 30) == 0.0
    assert signals.linear_recency(300, 30) == 0.0


@given(ages, ages)
def test_recency_never_rises_with_age(a: float, b: float) -> None:
    young, old = sorted((a, b))
    assert signals.half_life_recency(old, 30) <= signals.half_life_recency(young, 30)
    assert signals.stretched_recency(old, 30, 1.2) <= signals.stretched_recency(young, 30, 1.2)
    assert signals.linear_recency(old, 30) <= signals.linear_recency(young, 30)


def test_access_variants() -> None:
    assert [signals.log10_access(n) for n in (0, 1, 9, 99)] == [0, pytest.approx(0.30103), 1, 1]
    assert signals.ln_access(100) - signals.ln_access(50) < 0.7
    assert signals.normalized_ln_usage(10) == 1.0
    assert signals.normalized_ln_usage(0) == 0.0
    assert signals.capped_frequency(5, 10) == 0.5
    assert signals.capped_frequency(50, 10) == 1.0


def test_revision_score_is_capped_at_ten() -> None:
    assert [signals.revision_score(n) for n in (1, 5, 10, 50)] == [0.1, 0.5, 1, 1]


def test_tag_boosts_stack_count_once_and_clamp() -> None:
    boosts = {"a": 0.6, "b": 0.3}
    assert signals.tag_boosts(["a"], boosts) == 0.6
    assert signals.tag_boosts(["a", "a", "x"], boosts) == 0.6
    assert signals.tag_boosts(["a", "b"], {"a": 0.6, "b": 0.6}) == 1.0


def test_feedback_ratio_is_neutral_without_feedback() -> None:
    assert signals.feedback_ratio(0, 0) == 0.5
    assert signals.feedback_ratio(3, 0) > 0.5 > signals.feedback_ratio(0, 3)


def test_clamp01() -> None:
    assert (signals.clamp01(-1), signals.clamp01(0.3), signals.clamp01(7)) == (0, 0.3, 1)
    assert not math.isnan(signals.clamp01(0.0))


def test_tag_boosts_do_not_depend_on_tag_order() -> None:
    boosts = {"a": 0.2, "b": 0.1, "c": 0.05}
    orders = [("a", "b", "c"), ("c", "b", "a"), ("b", "c", "a")]
    assert len({signals.tag_boosts(order, boosts) for order in orders}) == 1
