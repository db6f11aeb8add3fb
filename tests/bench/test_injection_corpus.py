"""bench/injection_corpus.py: the held-out split is made of held-out parts only, texts are
the same for a seed, and the shipped model was fitted on the corpus as it is now."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

import injection_corpus as corpus
import injection_fit
from salience.write.gates import learned


def _fixed_words(template: str) -> str:
    return template.split("{", maxsplit=1)[0].strip().lower()


def test_held_out_texts_never_carry_an_order_the_fit_sees() -> None:
    held = " ".join(t["text"].lower() for t in corpus.texts("held", 2000))
    train = " ".join(t["text"].lower() for t in corpus.texts("train", 2000))
    orders = corpus.PLAIN_ORDERS + corpus.ACTION_ORDERS
    for template in corpus._split(orders, "train"):
        words = _fixed_words(template)
        if len(words) >= 15:
            assert words not in held, template
    seen = [t for t in corpus._split(orders, "held") if len(_fixed_words(t)) >= 15]
    assert sum(_fixed_words(t) in held for t in seen) >= len(seen) * 0.8
    assert not any(_fixed_words(t) in train for t in seen)


def test_the_splits_cut_every_list_the_same_way() -> None:
    items = list(range(12))
    assert corpus._split(items, "held") == [3, 7, 11]
    assert corpus._split(items, "train") == [0, 1, 2, 4, 5, 6, 8, 9, 10]
    fit, val = set(corpus._split(items, "fit")), set(corpus._split(items, "val"))
    assert fit | val == set(corpus._split(items, "train"))
    assert not fit & val
    with pytest.raises(ValueError, match="split must be one of"):
        corpus.texts("test", 2)


def test_texts_are_the_same_for_a_seed_and_half_are_orders() -> None:
    first, again = corpus.texts("train", 200), corpus.texts("train", 200)
    assert first == again
    assert sum(t["label"] == "instruction" for t in first) == 100
    orders = [t for t in first + corpus.composed(200) if t["label"] == "instruction"]
    assert all(t["payload"] and t["payload"] in t["text"] for t in orders)


def test_the_extra_texts_are_made_of_train_parts_only() -> None:
    made = corpus.extra(400)
    assert made == corpus.extra(400)
    assert sum(t["label"] == "instruction" for t in made) == 200
    assert all(t["payload"] in t["text"] for t in made if t["label"] == "instruction")
    text = " ".join(t["text"] for t in made)
    held = [s for s in corpus._split(corpus.BENIGN_SENTENCES, "held") if "{" not in s]
    assert held
    assert not any(s in text for s in held)
    kinds = {t["carrier"] for t in made}
    assert kinds <= {c.kind for c in corpus._split(corpus.CARRIERS, "train")} | {"bare"}


def test_the_shipped_model_was_fitted_on_this_corpus() -> None:
    about = learned.model().about
    assert about["corpus sha256"] == injection_fit.fingerprint(
        int(about["count"]),
        int(about["composed"]),  # type: ignore[call-overload]
        int(about.get("extra", 0)),  # type: ignore[call-overload]
        int(about.get("fresh", 0)),  # type: ignore[call-overload]
    ), "the corpus changed: refit with bench/injection_fit.py"
