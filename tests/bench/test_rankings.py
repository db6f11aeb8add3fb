"""bench/rankings.py: ids that two runs share, and what counts as a different ranking."""

from __future__ import annotations

import sys
from datetime import UTC, datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

import rankings
from salience.ids import is_ulid

WHEN = datetime(2023, 5, 8, 13, 56, tzinfo=UTC)


def test_stable_ids_are_ulids_of_their_time_the_same_in_every_run() -> None:
    a = rankings.stable_id(WHEN, "conv-26/D1:3")
    assert is_ulid(a)
    assert a == rankings.stable_id(WHEN, "conv-26/D1:3")
    assert a != rankings.stable_id(WHEN, "conv-26/D1:4")
    assert a[:10] == rankings.stable_id(WHEN, "other")[:10]  # the time part


def _hit(memory_id: str, score: float, note: str | None = None) -> list[object]:
    return [memory_id, score, [["relevance", 0.85, score]], note]


def test_differences_name_ids_scores_and_explanations() -> None:
    saved = {"q/1": [_hit("A", 0.5), _hit("B", 0.25)], "q/2": [_hit("C", 1.0)]}
    assert rankings.differences(saved, saved) == []
    close = {"q/1": [_hit("A", 0.5 + 1e-12), _hit("B", 0.25)], "q/2": [_hit("C", 1.0)]}
    assert rankings.differences(saved, close) == []  # within 1e-9
    swapped = {"q/1": [_hit("B", 0.5), _hit("A", 0.25)], "q/2": [_hit("C", 1.0)]}
    assert [d.split(":")[0] for d in rankings.differences(saved, swapped)] == ["q/1"]
    moved = {"q/1": [_hit("A", 0.5), _hit("B", 0.26)], "q/2": [_hit("C", 1.0)]}
    assert "score" in rankings.differences(saved, moved)[0]
    noted = {"q/1": saved["q/1"], "q/2": [_hit("C", 1.0, "x 0.8: from layer")]}
    assert "explanation" in rankings.differences(saved, noted)[0]
    assert rankings.differences(saved, {"q/1": saved["q/1"]}) == ["q/2: missing"]
