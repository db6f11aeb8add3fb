"""A search's rounds fetch each id once (search/fetched.py)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime

from salience.search.fetched import Fetched
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


def test_without_a_skip_every_id_the_filter_passes_is_a_hit() -> None:
    store = Store()
    fetched = Fetched(store.texts, FLT)
    assert [i for _, i in fetched(["b", "d"])] == ["b"]
    assert [i for _, i in fetched(["e", "b", "d"])] == ["e", "b"]
    assert store.asked == [["b", "d"], ["e"]]
