"""bench/locomo.py: evidence recall as the field reports it."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

import locomo


def test_fraction_any_and_all_at_five_and_ten() -> None:
    ranked = ["x1", "g1", "x2", "x3", "x4", "x5", "g2", "x6", "x7", "x8", "g3"]
    scores = locomo.evaluate(ranked, {"g1", "g2", "g3"})
    assert scores["R@5"] == pytest.approx(1 / 3)
    assert scores["R@10"] == pytest.approx(2 / 3)
    assert (scores["any@5"], scores["any@10"]) == (1.0, 1.0)
    assert (scores["all@5"], scores["all@10"]) == (0.0, 0.0)
    assert scores["MRR"] == pytest.approx(1 / 2)


def test_all_evidence_in_the_top_five() -> None:
    scores = locomo.evaluate(["g2", "g1", "x1"], {"g1", "g2"})
    assert (scores["R@5"], scores["all@5"], scores["all@10"]) == (1.0, 1.0, 1.0)


def test_no_evidence_found() -> None:
    scores = locomo.evaluate(["x1", "x2"], {"g1"})
    assert (scores["any@5"], scores["any@10"], scores["R@10"], scores["MRR"]) == (0, 0, 0, 0)


def test_repaired_evidence_labels() -> None:
    assert locomo.repair_evidence(["D8:6; D9:17", "D:11:26", "D"]) == ["D8:6", "D9:17", "D11:26"]
