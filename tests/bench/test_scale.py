"""bench/scale.py: the real turns it fills a store with."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

import scale


def _question(qid: str, ids: list[str], sessions: list[list[str]]) -> dict[str, Any]:
    return {
        "question_id": qid,
        "question_type": "single-session-user",
        "question": f"question {qid}?",
        "answer": "x",
        "haystack_session_ids": ids,
        "haystack_sessions": [[{"role": "user", "content": t} for t in s] for s in sessions],
    }


def test_real_turns_are_distinct_in_short_named_sessions(tmp_path: Path) -> None:
    path = tmp_path / "lme.json"
    shared = ["we went hiking", "  "]  # (an empty turn is left out)
    path.write_text(
        json.dumps(
            [
                _question("q1", ["a1b2c3d4e5f6", "9f8e7d6c5b4a"], [shared, ["I bought a bike"]]),
                _question("q2", ["9f8e7d6c5b4a", "0a0b0c"], [["I bought a bike"], ["tea"]]),
            ]
        ),
        encoding="utf-8",
    )
    assert scale.real_turns(path, 10) == [
        ("we went hiking", "s0"),
        ("I bought a bike", "s1"),
        ("tea", "s2"),
    ]
    assert scale.real_turns(path, 2) == [("we went hiking", "s0"), ("I bought a bike", "s1")]
    assert scale.real_questions(path) == ["question q1?", "question q2?"]
