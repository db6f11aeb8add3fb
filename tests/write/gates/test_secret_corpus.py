"""The corpus (scripts/make_gate_corpus.py): every kind caught, nothing benign refused."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from salience.write.gates.secrets import ASSIGNMENT, HIGH_ENTROPY, KINDS, scan

DATA = Path(__file__).parent.parent.parent / "data"
POSITIVES = [
    json.loads(line)
    for line in (DATA / "secrets_positive.jsonl").read_text(encoding="utf-8").splitlines()
]
NEGATIVES = [
    json.loads(line)
    for line in (DATA / "secrets_negative.jsonl").read_text(encoding="utf-8").splitlines()
]


def test_the_corpus_has_every_kind_the_scanner_names() -> None:
    generated = {p["kind"] for p in POSITIVES}
    assert generated == KINDS | {ASSIGNMENT, HIGH_ENTROPY}
    assert len(KINDS) >= 200
    assert {n["set"] for n in NEGATIVES} == {"prose", "code", "structured", "look-alike"}
    assert len(NEGATIVES) >= 3000


def test_every_positive_is_caught_and_named_by_its_kind() -> None:
    generic = {ASSIGNMENT, HIGH_ENTROPY}  # a random value after NAME= is both
    missed = [
        p
        for p in POSITIVES
        if not ({p["kind"]} | (generic if p["kind"] in generic else set()))
        & {f.kind for f in scan(p["text"])}
    ]
    assert missed == []


def test_no_benign_text_is_refused() -> None:
    flagged = [(n["set"], n["text"], scan(n["text"])) for n in NEGATIVES if scan(n["text"])]
    assert flagged == []


def test_secrets_made_with_an_unseen_seed_are_caught_too() -> None:
    """The committed corpus is not what the scanner is judged by alone: a corpus generated
    with another seed holds values it never held, and every one must be caught."""
    sys.path.insert(0, str(Path(__file__).parents[3] / "scripts"))
    import make_gate_corpus

    rows, lookalikes = make_gate_corpus.fresh(seed=20261124, per_kind=4)
    generic = {ASSIGNMENT, HIGH_ENTROPY}
    missed = [
        r
        for r in rows
        if not ({r["kind"]} | (generic if r["kind"] in generic else set()))
        & {f.kind for f in scan(r["text"])}
    ]
    assert missed == []
    assert [text for text in lookalikes if scan(text)] == []
