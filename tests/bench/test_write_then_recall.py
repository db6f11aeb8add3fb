"""bench/write_then_recall.py: a write before each recall, timed beyond the embedding."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

import write_then_recall


def test_the_medians_are_of_each_series_and_of_its_second_half() -> None:
    found = write_then_recall.medians(
        {"recall_ms": [9.0, 1.0, 2.0, 3.0], "full_text_ms": [5.0, 4.0, 1.0], "code": []}
    )
    assert found == {
        "recall_median_ms": 2.5,
        "recall_second_half_median_ms": 2.5,
        "full_text_median_ms": 4.0,
        "full_text_second_half_median_ms": 2.5,
    }


@pytest.mark.process
def test_a_process_writes_then_recalls_each_time(tmp_path: Path) -> None:
    from salience import Config, Memory

    with Memory.open(config=Config(home=tmp_path, signal_gate=False)) as memory:
        for i in range(5):
            memory.remember(f"Maria planted {i} tomato seedlings by the fence", force=True)
    turns = [f"I moved the kettle to shelf {i} in the kitchen" for i in range(4)]
    asked = ["Where is the kettle?", "What did Maria plant?"] * 2
    found = write_then_recall.child(tmp_path, turns, asked)
    assert len(found["recall_ms"]) == 4
    assert len(found["full_text_ms"]) >= 4  # (one full-text search a recall at least)
    assert all(x > 0 for x in found["recall_ms"] + found["full_text_ms"])
    assert Path(found["code"]).name == "__init__.py"
    with Memory.open(config=Config(home=tmp_path, signal_gate=False)) as memory:
        assert len(memory.list(limit=None)) == 9  # (every turn written)
