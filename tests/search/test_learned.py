"""How the learned order is placed within the hand-set fusion's order of sessions
(salience.search.learned.by_sessions). Recall itself is checked against an oracle in
test_rerank.py."""

from __future__ import annotations

import random

import numpy as np
import pytest

from salience.briefing.columns import NONE
from salience.search.learned import by_sessions

A, B, C = 0, 1, 2


def test_a_later_session_waits_for_the_sessions_before_it() -> None:
    # the hand-set order (the rows' numbers) finds A, B, then C; the model likes C's row best
    rows, places = by_sessions([3, 0, 1, 2], [A, B, A, C])
    assert rows == [0, 1, 3, 2]  # A and B open first, each with its best row
    assert places == [1, 2, 3, 1]


def test_a_session_opens_with_its_best_row_by_the_model() -> None:
    rows, _ = by_sessions([2, 1, 0], [A, A, A])
    assert rows == [2, 1, 0]  # one session: the learned order as it is


def test_a_row_of_no_session_keeps_its_learned_place() -> None:
    rows, places = by_sessions([2, 0, 1], np.array([NONE, A, B]))
    assert rows == [1, 2, 0]
    assert places == [1, 2, 0]
    assert by_sessions([2, 0, 1], [NONE, NONE, NONE]) == ([2, 0, 1], [0, 0, 0])


def test_the_learned_order_is_kept_when_it_agrees() -> None:
    assert by_sessions([0, 2, 1, 3], [A, B, A, B]) == ([0, 2, 1, 3], [1, 1, 2, 2])


@pytest.mark.parametrize("seed", range(40))
def test_any_order_keeps_every_row_the_sessions_and_the_learned_order_within(seed: int) -> None:
    rng = random.Random(seed)
    n = rng.randint(1, 30)
    sessions = [rng.choice([NONE, 0, 1, 2, 3, 4, 5]) for _ in range(n)]
    ranked = list(range(n))
    rng.shuffle(ranked)
    rows, places = by_sessions(ranked, sessions)
    assert sorted(rows) == list(range(n))

    def first_seen(order: list[int]) -> list[int]:
        return list(dict.fromkeys(sessions[r] for r in order if sessions[r] != NONE))

    assert first_seen(rows) == first_seen(sorted(ranked))  # the hand-set order of sessions
    for session in set(sessions):  # within a session (and among rows of none): the model's
        assert [r for r in rows if sessions[r] == session] == [
            r for r in ranked if sessions[r] == session
        ]
    order = first_seen(sorted(ranked))
    assert places == [order.index(sessions[r]) + 1 if sessions[r] != NONE else 0 for r in rows]
    for limit in (0, 1, rng.randint(1, n), n, n + 3):  # (the first few: the same ones)
        assert by_sessions(ranked, sessions, limit) == (rows[:limit], places[:limit])
