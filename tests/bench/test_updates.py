"""bench/updates.py: the labelled pairs' parts and the write cost's turns."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

import updates as bench


def test_the_labelled_pairs_split_into_a_dev_and_a_held_out_part() -> None:
    pairs = bench.labelled_pairs()
    assert set(pairs) == {
        f"{prefix}{part}"
        for prefix in ("", "v2 ", "v3 ", "v4 ", "v5 ", "v6 ", "v7 ", "v8 ")
        for part in ("dev", "held-out")
    }
    assert pairs["dev"]["pairs"] == 137  # (frozen: every third pair is held out)
    assert pairs["held-out"]["pairs"] == 68
    assert pairs["v2 dev"]["pairs"] == 50  # (the second set, frozen the same way)
    assert pairs["v2 held-out"]["pairs"] == 25
    assert pairs["v3 dev"]["pairs"] == 56
    assert pairs["v3 held-out"]["pairs"] == 27
    assert pairs["v4 dev"]["pairs"] == 100
    assert pairs["v4 held-out"]["pairs"] == 50
    assert pairs["v5 dev"]["pairs"] == 95
    assert pairs["v5 held-out"]["pairs"] == 47
    assert pairs["v6 dev"]["pairs"] == 94
    assert pairs["v6 held-out"]["pairs"] == 46
    assert pairs["v7 dev"]["pairs"] == 99
    assert pairs["v7 held-out"]["pairs"] == 49
    assert pairs["v8 dev"]["pairs"] == 32
    assert pairs["v8 held-out"]["pairs"] == 16
    assert all(0 <= v["precision"] <= 1 and 0 <= v["recall"] <= 1 for v in pairs.values())
    assert all(v["sure_recall"] <= v["recall"] for v in pairs.values())  # (sure: kept too)
    assert pairs["dev"]["sure_precision"] > 0


@pytest.mark.parametrize(("block", "writes"), [(1, 3), (3, 4)])
def test_the_write_cost_counts_each_policy_s_writes_in_turns(
    block: int, writes: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """In turns of ``block`` writes the first of each is not counted; alternating, every
    write is. Each policy is timed as many times as asked."""
    import scale

    monkeypatch.setattr(scale, "POOL", 40)  # (the texts' vectors: a few, not 2,000)
    cost = bench.write_cost(40, writes, block=block)
    assert cost["writes_each"] == writes
    assert cost["block"] == block
    assert cost["stores"] == "one each, the same texts"
    assert cost["off_median_ms"] > 0
    assert cost["link_median_ms"] > 0
    assert "difference_median_ms" in cost
    assert "difference_mean_ms" in cost
    assert cost["looked"] == writes  # (synthetic texts: no document)


def test_the_differences_say_apart_the_writes_that_looked() -> None:
    found = bench._differences([(0.003, True), (0.0, False), (0.001, True), (0.0001, False)])
    assert found["looked"] == 2
    assert found["looked_median_ms"] == pytest.approx(2.0)
    assert found["difference_median_ms"] == pytest.approx(0.55)


@pytest.mark.parametrize("shared", [False, True])
def test_both_policies_write_the_same_texts_unless_they_share_a_store(
    shared: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each text's two times are a pair (own stores); on one store a text written twice would
    be a duplicate, so each policy writes its own."""
    import scale

    monkeypatch.setattr(scale, "POOL", 40)
    written: dict[str, list[str]] = {"off": [], "link": []}
    timing = bench._writes

    def writes(memory: bench.Memory, texts: list[str]) -> list[float]:
        written[memory._config.updates] += texts
        return timing(memory, texts)

    monkeypatch.setattr(bench, "_writes", writes)
    cost = bench.write_cost(40, 4, shared=shared, block=3)
    assert len(written["off"]) == len(written["link"]) == 6  # (two turns of three)
    assert (written["off"] == written["link"]) is not shared
    assert ("difference_median_ms" in cost) is not shared


def test_the_write_cost_on_real_turns_fills_with_the_first_and_writes_the_next(
    tmp_path: Path,
) -> None:
    turns = [f"I moved my bike to shed number {i} this week" for i in range(30)]
    question = {
        "question_id": "q1",
        "question_type": "single-session-user",
        "question": "where is my bike?",
        "answer": "x",
        "haystack_session_ids": ["a1", "b2"],
        "haystack_sessions": [
            [{"role": "user", "content": t} for t in turns[:15]],
            [{"role": "user", "content": t} for t in turns[15:]],
        ],
    }
    path = tmp_path / "lme.json"
    path.write_text(json.dumps([question]), encoding="utf-8")
    cost = bench.write_cost(20, 4, block=3, real=path, cache=tmp_path)
    assert cost["texts"] == "LongMemEval turns"
    assert cost["size"] == 20
    assert cost["writes_each"] == 4
    assert cost["link_median_ms"] > 0
