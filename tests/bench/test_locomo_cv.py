"""bench/locomo_cv.py: the grid and the leave-one-conversation-out arithmetic."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

import locomo_cv


def test_a_grid_is_every_combination() -> None:
    grid = locomo_cv.parse_grid(["pool=50,200", "reply_weight=0,0.9"])
    assert grid == [
        {"pool": 50.0, "reply_weight": 0.0},
        {"pool": 50.0, "reply_weight": 0.9},
        {"pool": 200.0, "reply_weight": 0.0},
        {"pool": 200.0, "reply_weight": 0.9},
    ]
    with pytest.raises(SystemExit, match="unknown setting"):
        locomo_cv.parse_grid(["bogus=1"])


def test_plan_values_keep_their_types() -> None:
    base = locomo_cv.registry.PROFILES["salience"]
    changed = locomo_cv.with_plan(base, {"pool": 100.0, "reply_weight": 0.5, "prior": 0.0})
    assert changed.recall.pool == 100
    assert isinstance(changed.recall.pool, int)
    assert changed.recall.reply_weight == 0.5
    assert base.recall.pool != 100 or base.recall.reply_weight != 0.5  # the base is untouched


def test_each_conversation_is_scored_with_the_setting_best_on_the_others() -> None:
    settings = [{"x": 0.0}, {"x": 1.0}]
    # (category, R@10) per question; setting 1 is better on conversations 0 and 1 (two
    # questions each), setting 0 on conversation 2 alone (one question)
    per_conv = [
        [[(4, 0.0), (4, 0.0)], [(4, 1.0), (4, 1.0)]],
        [[(4, 0.0), (4, 0.0)], [(4, 1.0), (4, 1.0)]],
        [[(1, 1.0)], [(1, 0.0)]],
    ]
    cv = locomo_cv.cross_validate(per_conv, settings)
    assert cv["in_sample"]["setting"] == {"x": 1.0}
    assert cv["in_sample"]["scores"]["1-4"] == pytest.approx(80.0)
    chosen = [fold["chosen"] for fold in cv["leave_one_out"]["folds"]]
    assert chosen == [{"x": 1.0}, {"x": 1.0}, {"x": 1.0}]  # conversation 2 never sees itself win
    held_out = cv["leave_one_out"]["scores"]
    assert held_out["1-4"] == pytest.approx(80.0)  # pooled: 4 of 5 questions
    assert held_out["1 multi-hop"] == 0.0
    assert held_out["mean of held-out 1-4"] == pytest.approx(200 / 3)  # 100, 100, 0
