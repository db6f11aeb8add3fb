"""The records a snapshot keeps: the most recently used up to a bound, a change replacing
the record kept, a deletion dropping it, an erasure anywhere emptying them all."""

from __future__ import annotations

from dataclasses import replace

from salience.briefing.records import Records
from salience.models import MemoryRecord
from salience.text import forget_cached_texts
from tests.factory import record


def _records(count: int) -> list[MemoryRecord]:
    return [record(f"memory number {n}") for n in range(count)]


def test_the_least_recently_used_go_first_past_the_bound() -> None:
    made = _records(5)
    kept = Records(limit=3)
    kept.put(made[:3])
    found, missing = kept.found([made[0].id])  # (now the most recently used)
    assert found == {made[0].id: made[0]}
    assert missing == []
    kept.put(made[3:5])
    found, missing = kept.found([r.id for r in made])
    assert set(found) == {made[0].id, made[3].id, made[4].id}
    assert missing == [made[1].id, made[2].id]
    assert len(kept) == 3


def test_a_change_replaces_the_record_and_a_deletion_drops_it() -> None:
    made = _records(4)
    kept = Records(limit=3)
    kept.put(made[:2])
    rewritten = replace(made[0], content="rewritten")
    kept.changed([rewritten, made[2], made[3]], gone=[made[1].id])
    found, missing = kept.found([r.id for r in made])
    assert found[made[0].id].content == "rewritten"
    assert missing == [made[1].id]
    assert len(kept) == 3
    kept.changed(_records(7), gone=[])  # (more than it keeps: the newest of them)
    assert len(kept) == 3


def test_an_erasure_empties_every_snapshot_s_records() -> None:
    first, second = Records(), Records()
    first.put(_records(2))
    second.put(_records(3))
    assert forget_cached_texts() >= 5
    assert len(first) == len(second) == 0
