"""A manifest's best dropped entries, found on its columns, are the ones its entries give."""

from __future__ import annotations

import numpy as np

from salience.briefing.manifest import Manifest, ManifestBuilder, best_dropped
from salience.briefing.policies import Candidates
from tests.factory import record

IDS = [f"01J0000000000000000000000{c}" for c in "9876543210"]  # rows in falling id order


def _manifest(scores: list[float]) -> Manifest:
    records = [record(f"memory {i}", id=IDS[i]) for i in range(len(scores))]
    candidates = Candidates.of(records)
    builder = ManifestBuilder(candidates, np.array(scores))
    builder.drop([0, 2, 4, 6], "token budget")
    builder.drop(np.array([1, 3, 5]), np.array(["muted", "stale", "muted"]))
    builder.drop([7], "superseded", scored=False)
    builder.drop([8, 9], "not in scope", order="by score")
    return builder.build()


def test_ties_go_to_the_lower_id_and_unscored_entries_are_left_out() -> None:
    manifest = _manifest([0.5, 0.5, 0.5, 0.9, 0.5, 0.1, 0.5, 1.0, 0.5, 0.2])
    entries = tuple(manifest)
    for n in range(12):
        assert best_dropped(manifest, n) == best_dropped(entries, n), n
    best = best_dropped(manifest, 3)
    assert [(e.id, e.score, e.reason) for e in best] == [
        (IDS[3], 0.9, "stale"),
        (IDS[8], 0.5, "not in scope"),
        (IDS[6], 0.5, "token budget"),
    ]


def test_columns_agree_with_the_entries() -> None:
    rng = np.random.default_rng(3)
    for _ in range(20):
        scores = rng.choice([0.1, 0.4, 0.4, 0.7], 10).tolist()
        manifest = _manifest(scores)
        entries = tuple(manifest)
        for n in (1, 2, 5):
            assert best_dropped(manifest, n) == best_dropped(entries, n)
