"""bench/injection_fresh.py: the v5 training texts, in shapes and carriers neither held-out
split has, reproducible, each injected text holding its order where the fit will look."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

import injection_corpus
import injection_fresh
import injection_held2
from tests.bench.corpora import assert_labelled


def test_texts_are_labelled_reproducible_and_hold_their_order() -> None:
    assert_labelled(injection_fresh.texts, 600, other_seed=20)


def test_a_quoted_reply_keeps_its_order_findable() -> None:
    made = [t for t in injection_fresh.texts(2000) if t["carrier"] == "quoted reply"]
    quoted = [t for t in made if t["label"] == "instruction" and "\n> " in t["payload"]]
    assert quoted  # (a multi-line order, quoted line by line, is labelled as placed)


def test_its_carriers_are_in_neither_held_out_split() -> None:
    ours = {kind for kind, _ in injection_fresh.CARRIERS} - {"bare"}
    held = {c.kind for c in injection_held2.CARRIERS} | {
        c.kind for c in injection_corpus._split(injection_corpus.CARRIERS, "held")
    }
    assert ours
    assert not ours & held


def test_no_held_out_benign_sentence_is_in_it() -> None:
    text = " ".join(t["text"] for t in injection_fresh.texts(2000))
    held = [s for s in injection_corpus._split(injection_corpus.BENIGN_SENTENCES, "held")
            if "{" not in s]  # fmt: skip
    assert held
    assert not any(s in text for s in held)
