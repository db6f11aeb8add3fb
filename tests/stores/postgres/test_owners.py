"""A small tenant's full text on PostgreSQL read from its own rows (stores/postgres/owners.py):
the same hits and scores as GIN's way, chosen by the owners' rows and the words' counts."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from salience import ALL_USERS, Config, Memory
from salience.stores.base import MemoryFilter
from salience.stores.postgres import owners
from salience.stores.postgres.owners import OwnerSizes


class _Counter:
    def __init__(self, rows: int) -> None:
        self.rows = rows
        self.calls = 0

    def __call__(self, owners: list[str], limit: int) -> int:
        self.calls += 1
        return min(self.rows, limit)


def test_small_owners_with_common_words_read_their_rows_first() -> None:
    sizes = OwnerSizes()
    count = _Counter(1_000)
    assert sizes.own_rows_first(["ana"], 200_000, 33 * 1_000, count)  # words in 33k rows
    assert not sizes.own_rows_first(["ana"], 200_000, 31 * 1_000, count)  # rare: GIN
    assert count.calls == 1  # (counted once, then kept)
    assert not sizes.own_rows_first(["ana"], owners.FROM - 1, 10**9, count)  # a small store


def test_in_a_larger_store_fewer_entries_weigh_a_row() -> None:
    """An entry of GIN's lists costs more in a larger store (measured at 2M: 14 a row)."""
    assert owners.per_row(100_000) == owners.per_row(200_000) == owners.PER_ROW
    assert 13.5 < owners.per_row(2_000_000) < 14.5
    sizes, count = OwnerSizes(), _Counter(1_000)
    assert sizes.own_rows_first(["ana"], 2_000_000, 15 * 1_000, count)
    assert not sizes.own_rows_first(["ana"], 2_000_000, 13 * 1_000, count)


def test_large_owners_keep_gin_and_are_counted_again_later() -> None:
    sizes = OwnerSizes()
    big = _Counter(owners.SMALL + 5)
    for _ in range(owners.RECHECK + 1):  # (counted, then kept for RECHECK searches)
        assert not sizes.own_rows_first(["bob"], 10**7, 10**9, big)
    assert big.calls == 1
    assert not sizes.own_rows_first(["bob"], 10**7, 10**9, big)
    assert big.calls == 2  # (recounted: owners grow and shrink)
    quarter = _Counter(1_000)  # a small count, but more than a quarter of the store
    assert not sizes.own_rows_first(["cy"], 3_000, 10**9, quarter)


def test_the_count_never_reads_past_the_bound() -> None:
    seen: list[int] = []

    def count(owners: list[str], limit: int) -> int:
        seen.append(limit)
        return limit

    OwnerSizes().own_rows_first(["dee"], 10**7, 10**9, count)
    assert seen == [owners.SMALL + 1]


LINES = [
    ("ana", "Ana keeps her bike in the garage since May"),
    ("ana", "Ana moved the bike to the basement in June"),
    ("ana", "The deploy runbook lives in the wiki"),
    ("bob", "Bob keeps his bike at the office"),
    ("bob", "Bob's garage holds the deploy tools"),
    ("cy", "Cy writes the runbook for the bike shop"),
]


@pytest.mark.postgres
def test_both_ways_give_the_same_hits_and_scores(
    postgres_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = Config(home=tmp_path, signal_gate=False, store_url=postgres_url)
    with Memory.open(config=config, embedder=None, llm=None) as memory:
        filler = [(f"u{i % 7}", f"filler note {i} about the garage bike deploy") for i in range(60)]
        memory.import_(
            [json.dumps({"content": text, "user": user}) for user, text in LINES + filler],
            user=ALL_USERS,
        )
        store: Any = memory.store
        monkeypatch.setattr(owners, "FROM", 10)
        ways: dict[str, list[Any]] = {}
        taken: list[bool] = []
        ranked = store._ranked

        def spy(*args: Any) -> Any:
            taken.append(args[-1])
            return ranked(*args)

        monkeypatch.setattr(store, "_ranked", spy)
        for way, per_row in (("gin", 10**12), ("own", 0)):
            monkeypatch.setattr(owners, "PER_ROW", per_row)
            store._owner_sizes._known.clear()
            ways[way] = [
                store.search_rows(query, MemoryFilter(as_of=memory.now(), user=user), 10, dated=d)
                for user in ("ana", "bob")
                for query in ("bike garage", "deploy runbook", "June", "wiki")
                for d in (False, True)
            ]
        assert taken[: len(taken) // 2] == [False] * (len(taken) // 2)
        assert taken[len(taken) // 2 :] == [True] * (len(taken) // 2)
        assert ways["own"] == ways["gin"]
        assert any(ways["own"])  # (something was found: the comparison means something)


@pytest.mark.postgres
def test_a_search_scores_alike_however_postgresql_plans_it(
    postgres_url: str, tmp_path: Path
) -> None:
    """A row's BM25 sums its words' terms in one order (the words'): PostgreSQL's plan, which
    changes once a statement has run prepared a few times, never moves a score's last digit
    (it did: the 11th of twelve searches alike scored a row 1.841311604031715, not ...148)."""
    rng = np.random.default_rng(1)
    words = "garden tomato water rose ferry harbour pier gull noon dawn".split()
    config = Config(home=tmp_path, signal_gate=False, store_url=postgres_url)
    with Memory.open(config=config, embedder=None, llm=None) as memory:
        lines = [
            json.dumps({"content": " ".join(rng.choice(words, size=4)) + f" note {i}", "user": u})
            for i, u in enumerate(rng.choice(["ann", "bob", "cy"], size=200).tolist())
        ]
        memory.import_(lines, user=ALL_USERS)
        for user in (None, "ann"):
            flt = MemoryFilter(as_of=memory.now(), user=user)
            for dated in (False, True):
                found = [
                    memory.store.search_rows("gull pier dawn water", flt, 120, dated=dated)
                    for _ in range(12)
                ]
                assert found[0]  # (something was found: the comparison means something)
                assert all(f == found[0] for f in found)
