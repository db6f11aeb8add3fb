"""bench/hostile_writes.py: planted orders through every face, counted (a few of them, on
both stores); the benchmark runs all 30."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.postgres import Server

sys.path.insert(0, str(Path(__file__).parent.parent.parent / "bench"))

import hostile_writes


def _trial(store_url: str) -> list[dict[str, object]]:
    """Two planted orders quarantine holds and one it misses (it reaches the briefing, as
    an agent's, an import's or a pack's)."""
    from salience.write.gates.instructions import find_instruction

    every = hostile_writes.orders(30)
    held = [t for t in every if find_instruction(t) is not None][:2]
    missed = [t for t in every if find_instruction(t) is None][:1]
    return hostile_writes.run([*held, *missed], store_url)


def _check(rows: list[dict[str, object]]) -> None:
    assert {r["face"] for r in rows} == {*hostile_writes.ONE_BY_ONE, *hostile_writes.ALL_AT_ONCE}
    for row in rows:
        assert (row["as user"], row["pinned"], row["unmarked"], row["released"]) == (0, 0, 0, 0)
    by_face = {str(r["face"]): r for r in rows}
    assert by_face["http rewrite"]["stored"] == 0  # refused: nothing of it was stored
    assert by_face["http remember"]["briefed"] == 1  # the one missed: briefed, marked
    assert by_face["pack, unsigned (user)"]["stored"] == 3
    assert all(by_face[f]["held"] == 2 for f in ("http remember", "import --from mem0 (user)"))


@pytest.mark.slow
def test_no_planted_order_is_briefed_as_the_users_pinned_or_released() -> None:
    _check(_trial(""))


@pytest.mark.slow
def test_the_same_on_postgresql(postgres_server: Server) -> None:
    _check(_trial(postgres_server.url))
