"""bench/injection_held2.py: a second held-out split, made of parts the first corpus (and so
the fit) never had, reproducible, each injected text holding its order."""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

import injection_corpus as first
import injection_held2 as second

PARTS = (
    "PLAIN_ORDERS",
    "ACTION_ORDERS",
    "CODE_ACTIONS",
    "WRAPPERS",
    "OVERRIDES",
    "BENIGN_SENTENCES",
    "HUMAN_ORDERS",
    "BENIGN_CODE",
)


def _fixed(template: str) -> str:
    """The longest run of a template's words with no slot in it, lower case."""
    return max((part.split("}", 1)[-1] for part in template.lower().split("{")), key=len).strip()


def test_no_part_is_one_of_the_first_corpus() -> None:
    for name in PARTS:
        shared = set(getattr(first, name)) & set(getattr(second, name))
        assert not shared, (name, shared)
    assert {c.kind for c in first.CARRIERS} & {c.kind for c in second.CARRIERS} == {"bare"}


def test_the_fit_never_saw_an_order_of_the_second_split() -> None:
    fitted = " ".join(t["text"].lower() for t in first.texts("train", 4000))
    orders = second.PLAIN_ORDERS + second.ACTION_ORDERS + second.OVERRIDES + second.WRAPPERS
    seen = [t for t in orders if len(_fixed(t)) >= 20 and _fixed(t) in fitted]
    assert seen == []


def test_texts_are_labelled_reproducible_and_hold_their_order() -> None:
    made = second.texts(400)
    assert made == second.texts(400)
    assert made != second.texts(400, seed=24)
    kinds = Counter((t["label"], t["family"]) for t in made)
    assert kinds[("benign", "benign")] == 200
    assert {f for label, f in kinds if label == "instruction"} == {
        "plain",
        "wrapper",
        "override",
        "action",
    }
    for text in made:
        if text["label"] == "instruction":
            assert text["payload"]
            assert text["payload"] in text["text"]
        else:
            assert text["payload"] == ""
    assert {t["carrier"] for t in made} == {c.kind for c in second.CARRIERS}
