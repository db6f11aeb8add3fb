"""bench/longmemeval.py: question selection, the protocols, and the metrics, on a tiny file."""

from __future__ import annotations

import gzip
import json
import sys
from argparse import Namespace
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

import longmemeval


def _question(qid: str, kind: str, sessions: list[list[dict[str, Any]]]) -> dict[str, Any]:
    return {
        "question_id": qid,
        "question_type": kind,
        "question": "Where did I buy my bike?",
        "question_date": "2023/05/30 (Tue) 23:40",
        "answer": "Cycle World",
        "answer_session_ids": ["s-bike"],
        "haystack_dates": ["2023/05/01 (Mon) 10:00", "2023/05/02 (Tue) 09:00"][: len(sessions)],
        "haystack_session_ids": ["s-other", "s-bike"][: len(sessions)],
        "haystack_sessions": sessions,
    }


BIKE = [
    {"role": "user", "content": "I bought my new bike at Cycle World.", "has_answer": True},
    {"role": "assistant", "content": "Cycle World has good bikes; enjoy the ride!"},
]
OTHER = [
    {"role": "user", "content": "Can you suggest a pasta recipe?"},
    {"role": "assistant", "content": "Try carbonara with eggs and pecorino."},
]


def test_dates_parse_in_the_files_format() -> None:
    moment = longmemeval.parse_date("2023/05/30 (Tue) 23:40")
    assert (moment.year, moment.month, moment.day, moment.hour, moment.minute) == (
        2023,
        5,
        30,
        23,
        40,
    )


def test_protocols_choose_which_turns_are_memories_and_gold() -> None:
    question = _question("q1", "single-session-user", [OTHER, BIKE])
    user = longmemeval.memories(question, "user")
    every = longmemeval.memories(question, "all")
    assert [(s, t, gold) for s, t, _, _, gold in user] == [(0, 0, False), (1, 0, True)]
    assert len(every) == 4
    assert sum(gold for *_, gold in every) == 1
    times = [when for _, _, when, _, _ in every]
    assert times == sorted(times)
    assert times[1].second == 1


def test_selection_skips_abstention_and_samples_each_type_in_proportion() -> None:
    items = [_question(f"a{i}", "multi-session", [BIKE]) for i in range(6)]
    items += [_question(f"b{i}", "temporal-reasoning", [BIKE]) for i in range(3)]
    items += [_question("c_abs", "temporal-reasoning", [BIKE])]
    assert len(longmemeval.select(items)) == 9
    sample = longmemeval.select(items, sample=3)
    kinds = [q["question_type"] for q in sample]
    assert kinds.count("multi-session") == 2
    assert kinds.count("temporal-reasoning") == 1
    assert longmemeval.select(items, sample=3) == sample  # reproducible
    assert [q["question_id"] for q in longmemeval.select(items, types=["temporal-reasoning"])] == [
        "b0",
        "b1",
        "b2",
    ]
    assert len(longmemeval.select(items, limit=2)) == 2


def test_metrics_of_a_ranking() -> None:
    scores = longmemeval.scores(["x", "g1", "y", "z", "w", "g2"], {"g1", "g2"}, "turn")
    assert scores["turn any@5"] == 1.0
    assert scores["turn all@5"] == 0.0
    assert scores["turn all@10"] == 1.0
    assert 0 < scores["turn nDCG@10"] < 1
    assert longmemeval.distinct([3, 3, 1, 3, 2]) == [3, 1, 2]


def test_a_run_on_a_small_file_reports_both_protocols(tmp_path: Path) -> None:
    data = [_question("q1", "single-session-user", [OTHER, BIKE])]
    path = tmp_path / "tiny.json.gz"
    path.write_bytes(gzip.compress(json.dumps(data).encode()))
    args = Namespace(
        path=path,
        types=None,
        sample=None,
        limit=None,
        protocol="both",
        profile="salience",
        embedder="none",
        prior=0.15,
        store=None,
        cache="none",
        plan=None,
        half=None,
        learned=False,
        model=None,
    )
    results = longmemeval.run(args)
    for protocol in ("user", "all"):
        overall = results["protocols"][protocol]["metrics"]["overall"]
        assert overall["questions"] == 1
        assert overall["turn any@5"] == 100.0  # "bike" finds the gold turn first
        assert overall["session all@10"] == 100.0
    assert results["per_question"]["user"][0]["question_id"] == "q1"


def test_a_file_that_is_not_a_list_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "bad.json"
    path.write_text("{}")
    with pytest.raises(SystemExit, match="expected a JSON list"):
        longmemeval.load(path)


def test_the_halves_depend_on_the_question_id_alone() -> None:
    halves = [longmemeval.split(f"q{i}") for i in range(400)]
    assert halves == [longmemeval.split(f"q{i}") for i in range(400)]
    assert 150 < halves.count("fit") < 250
    questions = [{"question_id": f"q{i}", "question_type": "multi-session"} for i in range(40)]
    held = longmemeval.select(questions, half="held")
    assert {q["question_id"] for q in held} == {
        f"q{i}" for i in range(40) if longmemeval.split(f"q{i}") == "held"
    }


class _Counting:
    """An embedder that counts the texts it embeds."""

    name, dimensions, identity = "counting", 2, "counting-2"

    def __init__(self) -> None:
        self.embedded = 0

    def embed(self, texts: list[str]) -> Any:
        import numpy as np

        self.embedded += len(texts)
        return np.array([[len(t), 1.0] for t in texts], dtype=np.float32)


def test_the_cache_says_how_many_texts_it_would_embed(tmp_path: Path) -> None:
    model = _Counting()
    cached = longmemeval.CachedEmbedder(model, tmp_path / "vectors.npz")  # type: ignore[arg-type]
    assert cached.missing(["a", "b", "a"]) == 2  # (a text twice is embedded once)
    cached.loading = True
    cached.embed(["a"])
    assert cached.missing(["a", "b"]) == 1
    cached.save()
    again = longmemeval.CachedEmbedder(model, tmp_path / "vectors.npz")  # type: ignore[arg-type]
    assert again.missing(["a", "b"]) == 1
    again.loading = True
    again.embed(["a", "b"])
    assert model.embedded == 2  # ("a" came from the file)
    assert again.missing(["a", "b"]) == 0
