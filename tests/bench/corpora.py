"""What every injection corpus of bench/ promises: texts labelled by family, the same for a
seed and different for another, each injected text holding its order where the fit looks."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable

Made = list[dict[str, str]]


def assert_labelled(make: Callable[..., Made], count: int, other_seed: int) -> Made:
    """``make(count)`` checked: half benign, the four families of orders, every payload in
    its text (none for a benign text), reproducible; returns the texts."""
    made = make(count)
    assert made == make(count)
    assert made != make(count, seed=other_seed)
    kinds = Counter((t["label"], t["family"]) for t in made)
    assert kinds[("benign", "benign")] == count // 2
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
    return made
