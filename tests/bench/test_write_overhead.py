"""bench/write_overhead.py: three processes write the same texts, block by block."""

from __future__ import annotations

import math
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

import write_overhead


def test_every_process_is_given_the_same_texts_in_the_same_order() -> None:
    assert write_overhead.texts(5) == write_overhead.texts(5)
    assert len(set(write_overhead.texts(40))) == 40


@pytest.mark.process
def test_two_trees_and_off_write_the_same_texts_block_by_block(tmp_path: Path) -> None:
    base = tmp_path / "base"
    write_overhead.fill_store(base, 300)
    this = write_overhead.SRC
    trees = {"off": (this, "off"), "before": (this, "link"), "now": (this, "link")}
    times, counted = write_overhead.paired(trees, base, writes=4, block=3)
    assert counted == [*write_overhead.texts(6)[1:3], *write_overhead.texts(6)[4:6]]
    # 4 counted writes in blocks of 3 (the first of each not counted): two blocks each
    assert {name: len(v) for name, v in times.items()} == {"off": 4, "before": 4, "now": 4}
    assert all(x > 0 for v in times.values() for x in v)
    found = write_overhead.summary(times, counted)
    assert set(found) == {
        "off_median_ms",
        "before_median_ms",
        "now_median_ms",
        "now_minus_off_median_ms",
        "before_minus_off_median_ms",
        "now_minus_before_median_ms",
    }
    assert all(math.isfinite(v) for v in found.values())
    from salience import Config, Memory

    with Memory.open(config=Config(home=base, signal_gate=False), embedder=None) as memory:
        assert len(memory.list(limit=None)) == 300  # (the base store is copied, never written)
