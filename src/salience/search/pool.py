"""Recall's candidates as columns: fused, spread and ordered without building a record.

The same arithmetic as :mod:`salience.search.fusion` (which works on records, one
:class:`~salience.search.fusion.Candidate` each), on arrays: a search of a few hundred
candidates builds only the records of the hits it returns. Every value is computed in the
record path's order of operations, so both give the same doubles; tests/search/test_pool.py
checks them against each other, and ``bench/rankings.py`` on the dev files.

A :class:`Found` holds one retriever's hits from every source (the local store, mounted
layers) as parallel lists; :func:`fuse` makes one :class:`Pool` row per memory, as
:func:`salience.search.fusion.fuse` makes one candidate.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import TYPE_CHECKING

from salience.lazy import lazy_module
from salience.models import Hit, Learned, MemoryRecord, Relevance
from salience.profiles.base import Profile, ProfileSettings, RecallPlan, Relevances
from salience.profiles.scoring import arrays
from salience.search.fusion import (
    LEXICAL,
    NEIGHBOUR,
    REPLY,
    SEMANTIC,
    UNION,
    WEIGHTED,
    layered,
)
from salience.search.merging import merged

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    from salience.briefing.columns import Columns, Flags, Floats

    Slots = npt.NDArray[np.intp]
else:
    np = lazy_module("numpy")

NAN = float("nan")


@dataclass
class Found:
    """One retriever's hits, best first: the source each came from (0: the local store, then
    the mounted layers in order), its row number there, its id and the retriever's score."""

    source: list[int] = field(default_factory=list)
    seqs: list[int] = field(default_factory=list)
    ids: list[str] = field(default_factory=list)
    scores: list[float] = field(default_factory=list)

    def add(self, source: int, rows: Sequence[tuple[int, str, float]]) -> None:
        """Append a source's (row number, id, score) hits."""
        if rows:
            seqs, ids, scores = zip(*rows, strict=True)
            self.source += [source] * len(rows)
            self.seqs += seqs
            self.ids += ids
            self.scores += scores

    def __len__(self) -> int:
        return len(self.ids)


@dataclass
class Pool:
    """The candidates of one recall, one row each (NaN stands for the record path's None)."""

    source: list[int]
    seqs: list[int]
    ids: list[str]
    relevance: Relevances
    bm25: Floats
    similarity: Floats  # NaN: not found by vector search
    own: Floats  # the fused relevance before context was spread (NaN: not spread)
    context: list[str | None]  # what lifted a row (see spread), None: nothing

    def __len__(self) -> int:
        return len(self.ids)

    def of_source(self, source: int) -> list[str]:
        """The ids of the rows from that source."""
        return [i for i, s in zip(self.ids, self.source, strict=True) if s == source]

    def relevance_of(self, row: int, learned: Learned | None = None) -> Relevance:
        """The :class:`Relevance` the record path gives this candidate (``learned``: how a
        learned fusion scored it)."""
        r = self.relevance
        return Relevance(
            float(r.lexical[row]),
            _none(float(r.vector[row])),
            bool(r.lexical_hit[row]),
            _none(float(r.fused[row])),
            _none(float(self.own[row])),
            self.context[row],
            learned,
        )

    def relearned(self, fused: Floats) -> Pool:
        """The same rows with another fused relevance (a learned fusion's)."""
        return replace(self, relevance=replace(self.relevance, fused=fused))

    def taken(self, rows: npt.NDArray[np.intp]) -> Pool:
        """These rows only, in that order."""
        picks = rows.tolist()
        r = self.relevance
        return Pool(
            [self.source[i] for i in picks],
            [self.seqs[i] for i in picks],
            [self.ids[i] for i in picks],
            Relevances(r.lexical[rows], r.vector[rows], r.lexical_hit[rows], r.fused[rows]),
            self.bm25[rows],
            self.similarity[rows],
            self.own[rows],
            [self.context[i] for i in picks],
        )


def _none(value: float) -> float | None:
    return None if math.isnan(value) else value


def _floats(values: Sequence[float]) -> Floats:
    return np.array(values, dtype=np.float64)


def _min_max(values: Floats) -> Floats:
    """:func:`salience.search.fusion._min_max` on an array."""
    if not len(values):
        return values
    low, high = float(values.min()), float(values.max())
    if high - low <= 1e-12:
        return np.ones(len(values))
    result: Floats = (values - low) / (high - low)
    return result


def _pool(
    found: Sequence[tuple[int, int, str]],
    lexical: Sequence[float],
    vector: Sequence[float],
    hit: Sequence[bool],
    fused: Sequence[float],
    bm25: Sequence[float],
    similarity: Sequence[float],
) -> Pool:
    n = len(found)
    relevance = Relevances(
        _floats(lexical), _floats(vector), np.array(hit, dtype=np.bool_), _floats(fused)
    )
    return Pool(
        [f[0] for f in found],
        [f[1] for f in found],
        [f[2] for f in found],
        relevance,
        _floats(bm25),
        _floats(similarity),
        np.full(n, NAN),
        [None] * n,
    )


def fuse(plan: RecallPlan, lexical: Found, vector: Found) -> Pool:
    """:func:`salience.search.fusion.fuse` on found rows: one pool row per memory."""
    bm25 = _floats(lexical.scores)
    if plan.fusion == WEIGHTED:
        return _weighted(plan, lexical, vector, bm25, _floats(vector.scores))
    rows_l = list(zip(lexical.source, lexical.seqs, lexical.ids, strict=True))
    rows_v = list(zip(vector.source, vector.seqs, vector.ids, strict=True))
    best = float(bm25.max()) if len(bm25) else 0.0
    n_l, n_v = len(rows_l), len(rows_v)
    if plan.fusion == LEXICAL or (plan.fusion == SEMANTIC and not n_v):
        norm = (bm25 / best).tolist() if best > 0 else [0.0] * n_l
        nan = [NAN] * n_l
        return _pool(rows_l, norm, nan, [True] * n_l, nan, lexical.scores, nan)
    if plan.fusion == SEMANTIC:
        nan = [NAN] * n_v
        sims = vector.scores
        return _pool(rows_v, [0.0] * n_v, sims, [True] * n_v, nan, [0.0] * n_v, sims)
    if plan.fusion == UNION:
        return _union(rows_l, rows_v, bm25, best, vector.scores)
    raise ValueError(f"unknown fusion {plan.fusion!r}")


def _union(
    rows_l: list[tuple[int, int, str]],
    rows_v: list[tuple[int, int, str]],
    bm25: Floats,
    best: float,
    sims: list[float],
) -> Pool:
    """Merged by id: a later row with the same id takes its place (and its source)."""
    norm = (bm25 / best).tolist() if best > 0 else [0.0] * len(rows_l)
    # id -> (row, lexical, vector, lexical hit, bm25)
    merged: dict[str, tuple[tuple[int, int, str], float, float, bool, float]] = {}
    for row, lex, raw in zip(rows_l, norm, bm25.tolist(), strict=True):
        merged[row[2]] = (row, lex, NAN, True, raw)
    for row, sim in zip(rows_v, sims, strict=True):
        old = merged.get(row[2])
        if old is not None:
            merged[row[2]] = (row, old[1], sim, True, old[4])
        else:
            merged[row[2]] = (row, 0.0, sim, False, 0.0)
    rows, lexical, vectors, hits, raws = zip(*merged.values(), strict=True) if merged else ((),) * 5
    return _pool(rows, lexical, vectors, hits, [NAN] * len(rows), raws, vectors)


def _weighted(plan: RecallPlan, lexical: Found, vector: Found, bm25: Floats, sims: Floats) -> Pool:
    """Min-max normalised per list, summed with ``dense_weight`` for vectors."""
    source, seqs, ids, at_l, at_v = merged(lexical, vector)
    found_v = at_v >= 0
    # (row -1, appended: the record path's value where a list did not find the memory)
    lex_norm = np.append(_min_max(bm25), 0.0)[at_l]
    vec_norm = np.append(_min_max(sims), 0.0)[at_v]
    weight = plan.dense_weight if len(vector) else 0.0
    fused = (1 - weight) * lex_norm + weight * vec_norm
    similarity = np.append(sims, NAN)[at_v]
    relevance = Relevances(lex_norm, np.where(found_v, vec_norm, NAN), at_l >= 0, fused)
    return Pool(
        source,
        seqs,
        ids,
        relevance,
        np.append(bm25, 0.0)[at_l],
        similarity,
        np.full(len(ids), NAN),
        [None] * len(ids),
    )


def neighbour_slots(
    memory_ids: Sequence[str], neighbours: Mapping[str, tuple[str | None, str | None]]
) -> tuple[Slots, Slots]:
    """Each memory's session neighbours (by id, as ``Vectors.neighbours`` gives them) as
    positions among ``memory_ids`` (unique): ``len(memory_ids)`` for none, or one not there."""
    n = len(memory_ids)
    slot = {memory_id: i for i, memory_id in enumerate(memory_ids)}
    before = np.full(n, n, dtype=np.intp)
    after = np.full(n, n, dtype=np.intp)
    for i, memory_id in enumerate(memory_ids):
        b, a = neighbours.get(memory_id, (None, None))
        if b is not None:
            before[i] = slot.get(b, n)
        if a is not None:
            after[i] = slot.get(a, n)
    return before, after


def spread(
    pool: Pool,
    before: Slots,
    after: Slots,
    weight: float,
    reply_weight: float = 0.0,
    asks: Callable[[Pool], Flags] | None = None,
) -> Pool:
    """:func:`salience.search.fusion.spread_context` on a pool (ids unique, as fusion leaves
    them), its rows' session neighbours given as rows of the pool (:func:`neighbour_slots`:
    ``len(pool)`` for none). ``asks``: which rows' texts hold a question (needed only with
    ``reply_weight``)."""
    n = len(pool)
    fused = arrays.or_zero(pool.relevance.fused)  # (``fused or 0.0``)
    padded = np.append(fused, 0.0)  # (n, not a candidate: this 0.0)
    context = np.maximum(padded[before], padded[after])
    value = (fused + weight * context) / (1 + weight)
    lifted = (context > fused) if weight > 0 else np.zeros(n, dtype=np.bool_)
    reasons: list[str | None] = [None] * n  # (a few rows are lifted: those are named)
    for i in np.flatnonzero(lifted).tolist():
        reasons[i] = NEIGHBOUR
    if reply_weight and asks is not None:
        question = np.append(asks(pool), False)[before]
        reply = reply_weight * padded[before]
        replies = question & (reply > value)
        value = np.where(replies, reply, value)
        for i in np.flatnonzero(replies).tolist():
            reasons[i] = REPLY
    r = pool.relevance
    return Pool(
        pool.source,
        pool.seqs,
        pool.ids,
        Relevances(r.lexical, r.vector, r.lexical_hit, value),
        pool.bm25,
        pool.similarity,
        fused,
        reasons,
    )


def choose(
    pool: Pool,
    columns: Columns,
    profile: Profile,
    now: datetime,
    settings: ProfileSettings,
    limit: int,
) -> list[int]:
    """The pool rows a recall returns, best first: scored as columns by the profile's search
    score (``columns``: the pool's memories, row for row), de-boosted off the local layer
    unless the profile does it itself, ordered, then the profile's selection."""
    values = profile.search_scores(columns, now, pool.relevance, settings)
    if not profile.weighs_layers:
        values = values * arrays.layer_weight(columns.layer)
    ranked = order(values, pool.ids)
    if profile.select is not None:
        ranked = ranked[profile.select(columns.type_names(ranked.tolist()), limit)]
    result: list[int] = ranked[:limit].tolist()
    return result


def hit(
    pool: Pool,
    row: int,
    record: MemoryRecord,
    rank: int,
    profile: Profile,
    now: datetime,
    settings: ProfileSettings,
    learned: Learned | None = None,
) -> Hit:
    """The hit for a chosen pool row, its score explained by the record's scalar score
    (``learned``: how a learned fusion scored it, kept in its relevance)."""
    relevance = pool.relevance_of(row, learned)
    score = layered(profile, record, profile.search_score(record, now, relevance, settings))
    similarity = float(pool.similarity[row])
    return Hit(
        record,
        score.value,
        rank,
        lexical=float(pool.bm25[row]),
        explanation=score,
        vector=None if math.isnan(similarity) else similarity,
        relevance=relevance,
    )


def order(values: Floats, ids: Sequence[str]) -> npt.NDArray[np.intp]:
    """Rows best first by value, ties by id (the record path's ``(-value, id)`` sort)."""
    if not len(ids):
        return np.zeros(0, dtype=np.intp)
    by_value: npt.NDArray[np.intp] = np.argsort(-values, kind="stable")
    ordered = values[by_value]
    nan = np.isnan(ordered)  # (last, as lexsort puts them, and alike there)
    alike = (ordered[1:] == ordered[:-1]) | (nan[1:] & nan[:-1])
    if not alike.any():
        return by_value  # (no two values alike: the ids decide nothing; ~4x faster)
    # Each run of alike values sorted by id, in Python: the runs hold a tenth of a pool, a
    # few rows each (converting their ids for np.lexsort took a third more, 48 -> 37 us).
    rows = by_value.tolist()
    places = np.flatnonzero(alike).tolist()  # (each place alike the next)
    k = 0
    while k < len(places):
        first = last = places[k]
        while k < len(places) and places[k] == last:
            k, last = k + 1, last + 1
        by_value[first : last + 1] = sorted(rows[first : last + 1], key=ids.__getitem__)
    return by_value


def with_columns(
    pool: Pool, read: Callable[[int, list[int]], tuple[Columns, npt.NDArray[np.intp]]]
) -> tuple[Pool, Columns] | None:
    """The pool with the briefing columns of its rows, in the pool's order: ``read(source,
    seqs)`` gives a source's columns for those row numbers and which of them it found (one
    deleted since it was found is dropped). None when none is left."""
    kept: list[npt.NDArray[np.intp]] = []
    parts = []
    sources = sorted(set(pool.source))
    for index in sources:
        if len(sources) == 1:  # (the usual: every row the local store's)
            mine, seqs = np.arange(len(pool), dtype=np.intp), pool.seqs
        else:
            mine = np.array([i for i, s in enumerate(pool.source) if s == index], dtype=np.intp)
            seqs = [pool.seqs[i] for i in mine.tolist()]
        columns, found = read(index, seqs)
        parts.append(columns)
        kept.append(mine[found])
    if not parts:
        return None
    columns = parts[0]
    for part in parts[1:]:
        columns = columns.extended(part)
    rows = np.concatenate(kept)
    if bool(np.all(rows[1:] > rows[:-1])):  # one source: already in the pool's order
        if len(rows) < len(pool):
            pool = pool.taken(rows)  # (some deleted since they were found)
    else:
        back = np.argsort(rows, kind="stable")  # (the pool's order: full ties keep it)
        columns, pool = columns.take(back), pool.taken(rows[back])
    return pool, columns
