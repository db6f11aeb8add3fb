"""Import looks up its ids before the write lock and again under it only when needed."""

from __future__ import annotations

import json
from typing import Any

import pytest

from salience import Memory
from salience.ids import new_ulid
from tests.conftest import T0


def test_an_id_written_between_lookup_and_lock_is_updated_not_inserted_twice(
    memory: Memory, monkeypatch: pytest.MonkeyPatch
) -> None:
    taken = new_ulid(T0)
    line = json.dumps({"id": taken, "content": "the dock 3 crane is rated for 40 tonnes"})
    place = memory._place
    calls: list[int] = []

    def place_then_someone_writes(*args: Any) -> Any:
        placed = place(*args)
        calls.append(1)
        if len(calls) == 1:  # another writer takes the id after the first lookup
            early = json.dumps({"id": taken, "content": "the dock 3 crane is rated for 35 t"})
            assert memory.import_([early]).created == 1
        return placed

    monkeypatch.setattr(memory, "_place", place_then_someone_writes)
    result = memory.import_([line])
    assert (result.created, result.updated) == (0, 1)
    assert memory.get(taken).content == "the dock 3 crane is rated for 40 tonnes"
    assert len(memory.list()) == 1
    assert len(calls) == 3  # ours, the other writer's, ours again under the lock


def test_nothing_written_meanwhile_means_one_lookup(
    memory: Memory, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[int] = []
    place = memory._place

    def counted(*args: Any) -> Any:
        calls.append(1)
        return place(*args)

    monkeypatch.setattr(memory, "_place", counted)
    result = memory.import_([json.dumps({"content": f"pallet {n} checked"}) for n in range(5)])
    assert result.created == 5
    assert len(calls) == 1
