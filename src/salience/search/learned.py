"""The learned fusion applied to a pool (the salience profile's default recall;
``SALIENCE_RECALL_LEARNED=false`` turns it off): the fusion's best candidates, in its order,
scored again by :mod:`salience.search.rerank`'s model, whose relevance then replaces the fused
one in the profile's search score. The hits keep the hand-set fusion's order of sessions and
take the learned order within each (:func:`by_sessions`). Each hit has ``relevance.learned``
explaining the sum, term by term, and its session's place."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime
from typing import TYPE_CHECKING

from salience.briefing.columns import NONE
from salience.lazy import lazy_module
from salience.models import Hit, Learned, MemoryRecord
from salience.profiles.base import Profile, ProfileSettings
from salience.search import rerank
from salience.search.pool import Pool, choose, hit
from salience.text_dates import resolve

if TYPE_CHECKING:
    import numpy as np

    from salience.briefing.columns import Columns, Ints
    from salience.search.rerank import Floats
else:
    np = lazy_module("numpy")


def by_sessions(
    ranked: Sequence[int], sessions: Sequence[int] | Ints, limit: int | None = None
) -> tuple[list[int], list[int]]:
    """``ranked`` (rows, in the learned order; a row's number is its place in the hand-set
    fusion's order) placed so that the sessions come in the hand-set order (of their first
    row) and each session's rows in the learned order: a row whose session is not open yet
    opens it, after opening every session before it, each with its own best row. A row of no
    session (:data:`~salience.briefing.columns.NONE`) keeps its learned place.

    The learned model puts the best turns first but draws them from fewer sessions than the
    hand-set fusion, which finds more of the sessions a question needs; so the sessions a
    recall reaches, at any depth, are the hand-set fusion's (docs/scoring.md has the
    measurements). Returns the rows and each one's session's place (1: the hand-set fusion's
    first session; 0: no session); the first ``limit`` of them, if given."""
    codes: list[int] = sessions.tolist() if isinstance(sessions, np.ndarray) else list(sessions)
    place: dict[int, int] = {}
    best: dict[int, int] = {}
    for row in sorted(ranked):
        session = codes[row]
        if session != NONE and session not in place:
            place[session] = len(place) + 1
    for row in ranked:
        session = codes[row]
        if session != NONE and session not in best:
            best[session] = row
    opening = sorted(place, key=place.__getitem__)
    out: list[int] = []
    taken: set[int] = set()
    opened = 0
    for row in ranked:
        if limit is not None and len(out) >= limit:
            break
        if row in taken:
            continue
        session = codes[row]
        if session != NONE and place[session] > opened:
            while opened < place[session]:  # (the last one opened is this row's session)
                first = best[opening[opened]]
                out.append(first)
                taken.add(first)
                opened += 1
            continue
        out.append(row)
        taken.add(row)
    out = out[:limit]
    return out, [place.get(codes[row], 0) for row in out]


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
    still there, a memory deleted since it was found is left out), ranked by the learned
    relevance within the hand-set fusion's order of sessions (:func:`by_sessions`), each
    explained by its terms. ``read`` gives the records of pool rows (None: gone since), asked
    for the hits alone. ``vectors`` gives the stored vectors of a pool's rows (for the ``hop``
    signal)."""
    rows = np.array([b for b, p in zip(best, present, strict=True) if p], np.intp)
    pool, columns = pool.taken(rows), columns.take(rows, lazy=True)  # (the pool's own copy)
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
    ranked = choose(learned, columns, rules, now, settings, len(rows))
    chosen, places = by_sessions(ranked, columns.session, limit)
    hits: list[Hit] = []
    records = read(rows[chosen].tolist())
    for row, place, record in zip(chosen, places, records, strict=True):
        if record is None:  # (deleted since it was found)
            continue
        terms = model.terms(inputs[row], units[row])
        why = Learned(
            float(r.fused[row]), model.bias, terms, float(logits[row]), low, high, place or None
        )
        hits.append(hit(learned, row, record, len(hits) + 1, rules, now, settings, why))
    return hits
