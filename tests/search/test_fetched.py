"""A search's rounds fetch each id once (search/fetched.py)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from datetime import UTC, datetime

from salience.search.fetched import Fetched, Skipping
from salience.stores.base import MemoryFilter

FLT = MemoryFilter(as_of=datetime(2026, 1, 1, tzinfo=UTC), user="ana")
TEXTS = {"a": "alpha", "b": "a long document", "c": "gamma", "d": "delta", "e": "epsilon"}
PASSING = {"a", "b", "c", "e"}  # ("d" is another user's: the store's filter leaves it out)


class Store:
    def __init__(self) -> None:
        self.asked: list[list[str]] = []

    def texts(self, ids: Sequence[str], flt: MemoryFilter) -> list[tuple[str, str]]:
        assert flt is FLT
        self.asked.append(list(ids))
        return [(TEXTS[i], i) for i in ids if i in PASSING]


def test_each_id_is_fetched_once_and_each_round_answers_in_its_order() -> None:
    store = Store()
    fetched = Fetched(store.texts, FLT, skip=lambda text: text.startswith("a long"))
    assert fetched(["c", "b", "a"]) == [("gamma", "c"), ("alpha", "a")]
    assert fetched(["a", "e", "d", "b", "c"]) == [("alpha", "a"), ("epsilon", "e"), ("gamma", "c")]
    assert fetched(["d", "c"]) == [("gamma", "c")]
    assert store.asked == [["c", "b", "a"], ["e", "d"]]  # (the third round fetched nothing)
    assert fetched.counts() == (5, 3)  # (five ids fetched over the rounds, three hits)


def test_without_a_skip_every_id_the_filter_passes_is_a_hit() -> None:
    store = Store()
    fetched = Fetched(store.texts, FLT)
    assert [i for _, i in fetched(["b", "d"])] == ["b"]
    assert [i for _, i in fetched(["e", "b", "d"])] == ["e", "b"]
    assert store.asked == [["b", "d"], ["e"]]


def test_a_first_round_s_counts_are_its_own() -> None:
    fetched = Fetched(Store().texts, FLT, skip=lambda text: text.startswith("a long"))
    assert fetched.counts() == (0, 0)
    fetched(["b", "d", "a"])
    assert fetched.counts() == (3, 1)  # (another user's and a skipped one: no hits)


def test_a_search_that_skips_asks_for_as_many_more_rows_as_recent_ones_skipped() -> None:
    skipping = Skipping()
    assert skipping.rows(12) == 12  # (nothing seen: as if nothing were skipped)
    for _ in range(40):
        skipping.saw(24, 12)  # (half kept: LongMemEval's chat, documents skipped)
    assert 0.5 <= skipping.kept < 0.51
    assert 23 <= skipping.rows(12) <= 24
    for _ in range(40):
        skipping.saw(20, 2)  # (a tenth kept: never more than twice k)
    assert skipping.rows(12) == 24
    for _ in range(60):
        skipping.saw(12, 12)  # (nothing skipped any longer: back to k)
    assert skipping.rows(12) == 12
    skipping.saw(0, 0)  # (nothing fetched: nothing learned)
    assert skipping.rows(12) == 12


def test_where_some_are_skipped_the_first_round_asks_for_nine_looks_in_ten() -> None:
    """A tenth skipped: 12 hits wanted of rows kept at 0.9 take 13.3 rows on average, and
    15 are asked; at each share, one round finds what it wants about nine times in ten."""
    skipping = Skipping()
    skipping.kept = 0.9
    assert skipping.rows(12) == 15
    for kept, k in ((0.9, 12), (0.7, 12), (0.8, 18), (0.8, 12), (0.95, 12)):  # (below the cap)
        skipping.kept = kept
        n = skipping.rows(k)
        one_round = sum(math.comb(n, h) * kept**h * (1 - kept) ** (n - h) for h in range(k, n + 1))
        assert one_round >= 0.85  # (each row kept at that share, alone: binomial)
        assert k < n <= 2 * k
