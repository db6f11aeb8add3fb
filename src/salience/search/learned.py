"""The learned fusion applied to a pool (the salience profile's default recall;
``SALIENCE_RECALL_LEARNED=false`` turns it off): the fusion's best candidates, in its order,
scored again by :mod:`salience.search.rerank`'s model, whose relevance then replaces the fused
one in the profile's search score for the first :data:`HEAD` hits. Each of them has
``relevance.learned`` explaining the sum, term by term."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from datetime import datetime
from typing import TYPE_CHECKING

from salience.lazy import lazy_module
from salience.models import Hit, Learned, MemoryRecord
from salience.profiles.base import Profile, ProfileSettings
from salience.search import rerank
from salience.search.pool import Pool, choose, hit
from salience.text_dates import resolve

if TYPE_CHECKING:
    import numpy as np

    from salience.briefing.columns import Columns
else:
    np = lazy_module("numpy")


HEAD = 10
"""How many hits the learned order places. The rest follow the hand-set fusion's order: the
learned model puts the best turns first but gathers them from fewer sessions, and past the
first ten the hand-set order reaches more of them (docs/scoring.md has the measurements)."""


def rescored(
    query: str,
    model: rerank.Reranker,
    pool: Pool,
    columns: Columns,
    best: Sequence[int],
    read: Sequence[MemoryRecord | None],
    rules: Profile,
    now: datetime,
    settings: ProfileSettings,
    limit: int,
) -> list[Hit]:
    """The hits among ``best`` (pool rows, in the fusion's order, with their records
    ``read``: None for one deleted since it was found): the first :data:`HEAD` ranked by the
    learned relevance (each explained by its terms), the rest by the hand-set fusion."""
    rows = np.array([b for b, r in zip(best, read, strict=True) if r is not None], np.intp)
    records = [r for r in read if r is not None]
    pool, columns = pool.taken(rows), columns.take(rows)
    r = pool.relevance
    found = rerank.Candidates(
        r.lexical,
        r.lexical_hit,
        r.vector,
        pool.similarity,
        pool.own,
        r.fused,
        columns.line_length,
        columns.session,
        np.array(["?" in record.content for record in records], dtype=np.bool_),
        columns.created,
        tuple(resolve(query, now)) if rules.recall.dated else (),
    )
    raw = rerank.signals(query, found, rules.recall.context_weight)
    sink = rerank.SINK.get()
    if sink is not None:
        sink.append((list(pool.ids), raw))
    inputs = rerank.features(raw)
    logits = model.logits(inputs)
    relevance, low, high = rerank.normalised(logits)
    learned = pool.relearned(relevance)
    head = choose(learned, columns, rules, now, settings, min(limit, HEAD))
    hits: list[Hit] = []
    for row in head:
        found_hit = hit(learned, row, records[row], len(hits) + 1, rules, now, settings)
        terms = zip(rerank.FEATURE_NAMES, inputs[row].tolist(), model.weights, strict=True)
        why = Learned(float(r.fused[row]), model.bias, tuple(terms), float(logits[row]), low, high)
        assert found_hit.relevance is not None
        hits.append(replace(found_hit, relevance=replace(found_hit.relevance, learned=why)))
    if limit > len(head):  # the rest as the hand-set fusion orders them
        placed = set(head)
        for row in choose(pool, columns, rules, now, settings, len(records)):
            if len(hits) >= limit:
                break
            if row not in placed:
                hits.append(hit(pool, row, records[row], len(hits) + 1, rules, now, settings))
    return hits
