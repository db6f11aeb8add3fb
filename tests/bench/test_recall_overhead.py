"""bench/recall_overhead.py on a LoCoMo conversation: its store, its questions, each timing."""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

import recall_overhead

TURNS = [
    ("Caroline", "I went to the pottery class on Saturday and made a bowl."),
    ("Melanie", "That sounds lovely, what colour did you paint it?"),
    ("Caroline", "Blue, like the lake we camped at last summer."),
]
SAMPLE = {
    "sample_id": "conv-x",
    "conversation": {
        "speaker_a": "Caroline",
        "speaker_b": "Melanie",
        "session_1_date_time": "1:56 pm on 8 May, 2023",
        "session_1": [
            {"speaker": who, "dia_id": f"D1:{i + 1}", "text": text}
            for i, (who, text) in enumerate(TURNS)
        ],
    },
    "qa": [
        {"question": "What did Caroline make in pottery class?", "category": 1},
        {"question": "Where did they camp last summer?", "category": 2},
        {"question": "An adversarial one", "category": 5},
    ],
}


def test_a_conversation_store_is_its_turns_and_its_questions(tmp_path: Path) -> None:
    data = tmp_path / "locomo.json"
    data.write_text(json.dumps([SAMPLE]))
    home, queries = tmp_path / "home", tmp_path / "queries.json"
    recall_overhead.fill_store(home, 0, 10, queries, (data, "conv-x"))
    asked = json.loads(queries.read_text())
    assert list(asked) == [qa["question"] for qa in SAMPLE["qa"][:2]]  # (categories 1-4)
    assert all(len(vector) == 384 for vector in asked.values())
    timed = recall_overhead.child(home, queries, 2)
    assert set(timed) == set(recall_overhead.KINDS)
    assert all(math.isfinite(timed[k]["median_ms"]) for k in recall_overhead.KINDS)
    assert timed["read"]["median_ms"] > 0
    with pytest.raises(SystemExit, match="no conversation 'conv-y'"):
        recall_overhead.fill_store(tmp_path / "other", 0, 10, queries, (data, "conv-y"))


@pytest.mark.process
def test_two_trees_side_by_side_time_the_same_queries_block_by_block(tmp_path: Path) -> None:
    data = tmp_path / "locomo.json"
    data.write_text(json.dumps([SAMPLE]))
    base, queries = tmp_path / "home", tmp_path / "queries.json"
    recall_overhead.fill_store(base, 0, 10, queries, (data, "conv-x"))
    trees = {"before": recall_overhead.SRC, "this": recall_overhead.SRC}
    side = recall_overhead.paired(trees, base, queries, 3, rounds=2, block=1)
    for name in trees:
        assert set(side[name]) == set(recall_overhead.KINDS)
        for values in side[name].values():
            assert len(values) == 2 * 2  # (two questions, twice: the count asked is cut to them)
            assert all(math.isfinite(v) for v in values)
        assert all(v > 0 for v in side[name]["read"])


def test_a_paired_run_reports_each_ratio_beside_the_medians(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import argparse

    kinds = recall_overhead.KINDS
    side = {
        "before": {k: [0.002, 0.004, 0.003] for k in kinds},
        "this": {k: [0.001, 0.004, 0.0045] for k in kinds},
    }
    out = tmp_path / "paired.json"
    args = argparse.Namespace(
        conversation="conv-x", locomo=None, size=10, queries=3, rounds=1, block=2,
        before=Path("/old/src"), out=out,
    )  # fmt: skip
    recall_overhead.report_paired(args, side)
    printed = capsys.readouterr().out
    assert "10 memories, side by side (3 each)" in printed
    written = json.loads(out.read_text())
    ratio = written["summary"]["ratio"]["read"]
    assert ratio["of_medians"] == pytest.approx(4 / 3)  # (medians 4 ms and 3 ms)
    assert ratio["median_of_pairs"] == pytest.approx(1.0)  # (ratios 0.5, 1 and 1.5)
    assert written["paired"] is True
    assert written["block"] == 2
    assert written["times_ms"]["this"]["read"] == pytest.approx([1.0, 4.0, 4.5])
