"""The learned fusion applied to a pool (the salience profile's default recall;
``SALIENCE_RECALL_LEARNED=false`` turns it off): the fusion's best candidates, in its order,
scored again by :mod:`salience.search.rerank`'s model, whose relevance then replaces the fused
one in the profile's search score for the first :data:`HEAD` hits. Each of them has
``relevance.learned`` explaining the sum, term by term."""

from __future__ import annotations

from collections.abc import Callable, Sequence
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
    from salience.search.rerank import Floats
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
    present: Sequence[bool],
    read: Callable[[Sequence[int]], Sequence[MemoryRecord | None]],
    rules: Profile,
    now: datetime,
    settings: ProfileSettings,
    limit: int,
    vectors: Callable[[Pool], Floats | None] | None = None,
) -> list[Hit]:
    """The hits among ``best`` (pool rows, in the fusion's order; ``present``: whether each is
    still there, a memory deleted since it was found is left out): the first :data:`HEAD`
    ranked by the learned relevance (each explained by its terms), the rest by the hand-set
    fusion. ``read`` gives the records of pool rows (None: gone since), asked for the hits
    alone. ``vectors`` gives the stored vectors of a pool's rows (for the ``hop`` signal)."""
    rows = np.array([b for b, p in zip(best, present, strict=True) if p], np.intp)
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
        columns.asks,
        columns.created,
        columns.speaker,
        tuple(resolve(query, now)) if rules.recall.dated else (),
        vectors(pool) if vectors is not None else None,
    )
    raw = rerank.signals(query, found, rules.recall.context_weight)
    sink = rerank.SINK.get()
    if sink is not None:
        sink.append((list(pool.ids), raw))
    inputs = rerank.features(raw)
    logits, units = model.scored(inputs)
    relevance, low, high = rerank.normalised(logits)
    learned = pool.relearned(relevance)
    head = choose(learned, columns, rules, now, settings, min(limit, HEAD))
    chosen = list(head)
    if limit > len(head):  # the rest as the hand-set fusion orders them
        placed = set(head)
        rest = choose(pool, columns, rules, now, settings, len(rows))
        chosen += [row for row in rest if row not in placed][: limit - len(head)]
    hits: list[Hit] = []
    for at, (row, record) in enumerate(zip(chosen, read(rows[chosen].tolist()), strict=True)):
        if record is None:  # (deleted since it was found)
            continue
        if at >= len(head):
            hits.append(hit(pool, row, record, len(hits) + 1, rules, now, settings))
            continue
        terms = model.terms(inputs[row], units[row])
        why = Learned(float(r.fused[row]), model.bias, terms, float(logits[row]), low, high)
        hits.append(hit(learned, row, record, len(hits) + 1, rules, now, settings, why))
    return hits
