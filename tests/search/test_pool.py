"""Recall over columns (salience.search.pool) gives exactly what the record path gives.

The record path (salience.search.fusion: fuse, spread_context, rank_candidates) is the
reference. Random hits hit every branch: ties in score, a memory found by both retrievers,
the same id in the local store and a mounted layer, neighbours that are and are not
candidates, questions before replies, every fusion and every profile.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from salience.briefing.columns import Columns
from salience.models import Hit, MemoryRecord, relabel
from salience.profiles import PROFILES, ProfileSettings
from salience.profiles.base import RecallPlan
from salience.search import fusion, pool
from tests.factory import NOW
from tests.profiles.test_columns_agree import SETTINGS, memories, unique_ids

pytestmark = [pytest.mark.slow]

SCORES = [0.0, 0.5, 1.0, 1.0, 2.5, 7.0]
SIMILARITIES = [0.2, 0.5, 0.5, 0.71, 0.9]
PLANS = [
    RecallPlan(fusion="lexical"),
    RecallPlan(fusion="union"),
    RecallPlan(fusion="semantic"),
    RecallPlan(fusion="weighted", dense_weight=0.4, context_weight=0.4),
    RecallPlan(fusion="weighted", dense_weight=0.3, context_weight=0.5, reply_weight=0.9),
    RecallPlan(fusion="weighted", dense_weight=1.0),
]


@st.composite
def recalls(draw: st.DrawFn) -> tuple[Any, ...]:
    """(memories, lexical hits, vector hits, neighbours) as indices into the memories; a
    memory at an odd index belongs to the mounted layer ``shared`` (some share an id with a
    local one)."""
    local = draw(st.lists(memories(), min_size=2, max_size=30).map(unique_ids))
    local = [relabel(replace(r, content=r.content + draw(_asks)), "local") for r in local]
    shared = [relabel(r, "shared") for r in draw(st.lists(st.sampled_from(local), max_size=4))]
    found = local + shared
    index = st.integers(0, len(found) - 1)
    lexical = draw(st.lists(st.tuples(index, st.sampled_from(SCORES)), max_size=25))
    vector = draw(st.lists(st.tuples(index, st.sampled_from(SIMILARITIES)), max_size=25))
    ids = [r.id for r in found] + ["01J0000000000000000000NOPE", None]
    around = st.tuples(st.sampled_from(ids), st.sampled_from(ids))
    neighbours = draw(st.dictionaries(st.sampled_from(ids[:-1]), around, max_size=20))
    return found, lexical, _unique(vector, found), neighbours


_asks = st.sampled_from(["", "", " what?"])


def _unique(hits: list[tuple[int, float]], found: list[MemoryRecord]) -> list[tuple[int, float]]:
    """One vector hit per memory and source, as a vector search returns them."""
    seen: set[tuple[str, str]] = set()
    out = []
    for i, score in hits:
        key = (found[i].id, found[i].layer)
        if key not in seen:
            seen.add(key)
            out.append((i, score))
    return out


def _found(hits: list[tuple[int, float]], records: list[MemoryRecord]) -> pool.Found:
    out = pool.Found()
    for i, score in hits:
        out.add(0 if records[i].layer == "local" else 1, [(i, records[i].id, score)])
    return out


def _record_path(
    plan: RecallPlan,
    records: list[MemoryRecord],
    lexical: list[tuple[int, float]],
    vector: list[tuple[int, float]],
    neighbours: dict[str, tuple[str | None, str | None]],
    name: str,
    tuned: ProfileSettings,
) -> list[Hit]:
    found = fusion.fuse(
        plan, [(records[i], s) for i, s in lexical], [(records[i], s) for i, s in vector]
    )
    if plan.context_weight and vector:
        found = fusion.spread_context(found, neighbours, plan.context_weight, plan.reply_weight)
    return fusion.rank_candidates(found, PROFILES[name], NOW, tuned, 10)


def _column_path(
    plan: RecallPlan,
    records: list[MemoryRecord],
    lexical: list[tuple[int, float]],
    vector: list[tuple[int, float]],
    neighbours: dict[str, tuple[str | None, str | None]],
    name: str,
    tuned: ProfileSettings,
) -> list[Hit]:
    vectors = _found(vector, records)
    found = pool.fuse(plan, _found(lexical, records), vectors)
    if plan.context_weight and len(vectors):

        def asks(p: pool.Pool) -> Any:
            return np.array(["?" in records[seq].content for seq in p.seqs], dtype=np.bool_)

        before, after = pool.neighbour_slots(found.ids, neighbours)
        found = pool.spread(found, before, after, plan.context_weight, plan.reply_weight, asks)
    columns = Columns.from_records([records[seq] for seq in found.seqs])
    profile = PROFILES[name]
    chosen = pool.choose(found, columns, profile, NOW, tuned, 10)
    return [
        pool.hit(found, row, records[found.seqs[row]], rank, profile, NOW, tuned)
        for rank, row in enumerate(chosen, 1)
    ]


@pytest.mark.parametrize("name", sorted(PROFILES))
@pytest.mark.parametrize("plan", PLANS, ids=lambda p: f"{p.fusion}-{p.reply_weight}")
@settings(max_examples=12, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(recall=recalls(), which=st.integers(0, len(SETTINGS) - 1))
def test_the_column_path_ranks_and_explains_as_the_record_path_does(
    name: str,
    plan: RecallPlan,
    recall: tuple[Any, ...],
    which: int,
) -> None:
    records, lexical, vector, neighbours = recall
    args = (plan, records, lexical, vector, neighbours, name, SETTINGS[which])
    old, new = _record_path(*args), _column_path(*args)
    assert [(h.record.id, h.record.layer) for h in new] == [
        (h.record.id, h.record.layer) for h in old
    ]
    assert [h.score for h in new] == [h.score for h in old]
    assert [(h.rank, h.lexical, h.vector, h.relevance, h.explanation) for h in new] == [
        (h.rank, h.lexical, h.vector, h.relevance, h.explanation) for h in old
    ]


def test_an_empty_pool_chooses_nothing() -> None:
    empty = pool.fuse(RecallPlan(fusion="weighted"), pool.Found(), pool.Found())
    assert len(empty) == 0
    columns = Columns.from_records([])
    assert pool.choose(empty, columns, PROFILES["salience"], NOW, ProfileSettings(), 5) == []


def test_a_memory_found_twice_is_one_candidate_with_both_scores() -> None:
    lexical, vector = pool.Found(), pool.Found()
    lexical.add(0, [(1, "a", 4.0), (2, "b", 2.0)])
    vector.add(0, [(2, "b", 0.9), (3, "c", 0.5)])
    fused = pool.fuse(RecallPlan(fusion="weighted", dense_weight=0.5), lexical, vector)
    assert fused.ids == ["a", "b", "c"]
    assert fused.relevance.lexical.tolist() == [1.0, 0.0, 0.0]
    assert fused.relevance.lexical_hit.tolist() == [True, True, False]
    assert np.isnan(fused.similarity[0])
    assert fused.similarity[1:].tolist() == [0.9, 0.5]
    assert fused.relevance.fused.tolist() == [0.5, 0.5, 0.0]


def test_columns_join_the_pool_in_its_order_and_drop_rows_gone() -> None:
    # Two sources (the store, a layer) interleaved in the pool; one row deleted since found.
    lexical = pool.Found()
    lexical.add(0, [(10, "a", 5.0)])
    lexical.add(1, [(20, "x", 4.0)])
    lexical.add(0, [(11, "b", 3.0)])
    lexical.add(1, [(21, "y", 2.0)])
    found = pool.fuse(RecallPlan(fusion="weighted"), lexical, pool.Found())
    assert found.ids == ["a", "x", "b", "y"]
    stored = {10: "a", 11: "b", 20: "x"}  # (row 21 is gone)
    vocab = Columns.from_records([]).vocab  # (one vocabulary: the briefing's)

    def read(source: int, seqs: list[int]) -> Any:
        here = [s for s in seqs if s in stored]
        records = [replace(_memory(stored[s]), layer=str(source)) for s in here]
        columns = Columns.from_records(records, vocab)
        return columns, np.array([i for i, s in enumerate(seqs) if s in stored], dtype=np.intp)

    joined = pool.with_columns(found, read)
    assert joined is not None
    kept, columns = joined
    assert kept.ids == ["a", "x", "b"]
    assert len(columns.created) == 3
    assert pool.with_columns(pool.fuse(RecallPlan(), pool.Found(), pool.Found()), read) is None


def _memory(memory_id: str) -> MemoryRecord:
    from tests.factory import record

    return replace(record(f"memory {memory_id} text"), id=memory_id)


@settings(max_examples=300, deadline=None)
@given(
    values=st.lists(
        st.sampled_from([0.0, -0.0, 0.25, 0.5, 1.0, float("nan")]) | st.floats(-1, 1),
        min_size=1,
        max_size=40,
    )
)
def test_the_order_is_by_value_then_id_with_or_without_ties(values: list[float]) -> None:
    ids = [f"01J{(7919 * i) % 1000:04d}" for i in range(len(values))]
    array = np.array(values)
    expected = np.lexsort((np.array(ids), -array))
    assert pool.order(array, ids).tolist() == expected.tolist()
