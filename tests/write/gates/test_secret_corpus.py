"""The corpus (scripts/make_gate_corpus.py): recall 100 %, false positives <= 0.1 %."""

from __future__ import annotations

import json
from pathlib import Path

from salience.write.gates.secrets import scan

DATA = Path(__file__).parent.parent.parent / "data"
POSITIVES = [
    json.loads(line)
    for line in (DATA / "secrets_positive.jsonl").read_text(encoding="utf-8").splitlines()
]
NEGATIVES = (DATA / "secrets_negative.txt").read_text(encoding="utf-8").splitlines()


def test_the_corpus_is_as_large_as_promised() -> None:
    assert len(POSITIVES) >= 150
    assert len({p["kind"] for p in POSITIVES}) >= 25
    assert len(NEGATIVES) >= 2000


def test_every_positive_is_caught_and_named_by_its_kind() -> None:
    missed = [p for p in POSITIVES if p["kind"] not in {f.kind for f in scan(p["text"])}]
    assert missed == []


def test_false_positives_stay_under_one_in_a_thousand() -> None:
    flagged = [line for line in NEGATIVES if scan(line)]
    assert len(flagged) <= len(NEGATIVES) // 1000, flagged
