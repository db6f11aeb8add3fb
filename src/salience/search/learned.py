"""The learned fusion applied to a pool (``SALIENCE_RECALL_LEARNED``): the fusion's best
candidates, in its order, scored again by :mod:`salience.search.rerank`'s model, whose
relevance then replaces the fused one in the profile's search score. Each hit's
``relevance.learned`` explains the sum, term by term."""

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
    ``read``: None for one deleted since it was found), ranked by the learned relevance."""
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
    hits: list[Hit] = []
    for row in choose(learned, columns, rules, now, settings, limit):
        found_hit = hit(learned, row, records[row], len(hits) + 1, rules, now, settings)
        terms = zip(rerank.FEATURE_NAMES, inputs[row].tolist(), model.weights, strict=True)
        why = Learned(float(r.fused[row]), model.bias, tuple(terms), float(logits[row]), low, high)
        assert found_hit.relevance is not None
        hits.append(replace(found_hit, relevance=replace(found_hit.relevance, learned=why)))
    return hits
