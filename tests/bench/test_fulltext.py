"""bench/fulltext.py: stores of the sizes asked for, and both ways checked equal."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

import fulltext

WORDS = "maria john dinner beach car painting sunset group support running".split()


def _conversation(name: str) -> dict[str, Any]:
    turns = [
        {
            "speaker": ("Maria", "John")[i % 2],
            "dia_id": f"D1:{i}",
            "text": " ".join(WORDS[(i + k) % len(WORDS)] for k in range(i % 5 + 2)),
        }
        for i in range(30)
    ]
    return {
        "sample_id": name,
        "conversation": {"session_1_date_time": "1:56 pm on 8 May, 2023", "session_1": turns},
        "qa": [{"question": q} for q in ("Who had dinner with Maria?", "John's car", "sunset")],
    }


def test_turns_repeat_the_conversations_under_new_names() -> None:
    data = [_conversation("a"), _conversation("b")]
    turns = fulltext.turns_for(data, 70)
    assert len(turns) == 70
    assert len({label for label, _, _, _ in turns}) == 70
    assert turns[60][0].startswith("a-1/")  # the second time round


def test_a_measure_asks_both_and_reports_each(tmp_path: Path) -> None:
    result = fulltext.measure([_conversation("a")], 45, tmp_path / "store")
    assert (result["rows"], result["questions"]) == (45, 3)
    assert result["arrays_mb"] > 0
    assert result["copy_ms"]["p50"] > 0
    assert result["fts5_ms"]["p50"] > 0
    assert result["after_write_ms"]["copy"]["p50"] > 0
    assert result["loads"] == 1  # (the copy followed every write)


def test_a_recall_measure_asks_both_ways(tmp_path: Path) -> None:
    result = fulltext.measure([_conversation("a")], 30, tmp_path / "store", recall=True)
    assert (result["rows"], result["questions"]) == (30, 3)
    assert result["copy_ms"]["p50"] > 0
