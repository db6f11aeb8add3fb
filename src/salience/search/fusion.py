"""Recall: how a profile gathers candidates (full-text, vectors) and fuses them (pure).

A :class:`RecallPlan` says how many full-text and vector candidates a profile takes and how
it fuses them into one :class:`~salience.profiles.base.Relevance` per memory; the profile's
search score then ranks them. Fusions:

* ``lexical`` (aide, ilab, talome): full-text only; ``lexical`` = bm25 / the best bm25.
* ``union`` (eidet): full-text ``2·L`` hits and vector ``L`` hits with similarity >= 0.70,
  merged by id; a memory found only by vectors is a vector-only hit (weight 0.9).
* ``semantic`` (rae): the vector hits, ``semantic`` = cosine similarity; full-text stands in
  while the store has no vectors.
* ``weighted`` (salience): full-text and vector candidates, each min-max normalised over its
  own list, summed with weights (``dense_weight`` for vectors); a memory missing from a list
  gets 0 there.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

from salience.models import LOCAL_LAYER, Hit, MemoryRecord, Relevance
from salience.profiles.base import Profile, ProfileSettings, RecallPlan
from salience.profiles.scoring.signals import layer_weight, shared_from
from salience.scores import SearchScore, scaled

LEXICAL = "lexical"
UNION = "union"
SEMANTIC = "semantic"
WEIGHTED = "weighted"
NEIGHBOUR = "session neighbour"
REPLY = "reply to a question"


def candidate_count(limit: int) -> int:
    """How many full-text hits to score for ``limit`` results (eidet takes 2 x limit)."""
    return 2 * limit


@dataclass(frozen=True)
class Candidate:
    """A memory found for a query, with what each retriever said about it."""

    record: MemoryRecord
    relevance: Relevance
    bm25: float = 0.0
    similarity: float | None = None


def _min_max(values: Sequence[float]) -> list[float]:
    """Scale to [0, 1] over the list; a list of equal values scales to all 1."""
    if not values:
        return []
    low, high = min(values), max(values)
    if high - low <= 1e-12:
        return [1.0] * len(values)
    return [(v - low) / (high - low) for v in values]


def fuse(
    plan: RecallPlan,
    lexical: Sequence[tuple[MemoryRecord, float]],
    vector: Sequence[tuple[MemoryRecord, float]],
) -> list[Candidate]:
    """One candidate per memory from full-text (record, bm25) and vector (record, cosine)."""
    best = max((bm25 for _, bm25 in lexical), default=0.0)
    if plan.fusion == LEXICAL or (plan.fusion == SEMANTIC and not vector):
        return [
            Candidate(r, Relevance(lexical=bm25 / best if best > 0 else 0.0), bm25)
            for r, bm25 in lexical
        ]
    if plan.fusion == SEMANTIC:
        return [Candidate(r, Relevance(vector=sim), similarity=sim) for r, sim in vector]
    if plan.fusion == UNION:
        merged: dict[str, Candidate] = {}
        for r, bm25 in lexical:
            merged[r.id] = Candidate(r, Relevance(lexical=bm25 / best if best > 0 else 0.0), bm25)
        for r, sim in vector:
            if r.id in merged:
                old = merged[r.id]
                relevance = Relevance(lexical=old.relevance.lexical, vector=sim)
                merged[r.id] = Candidate(r, relevance, old.bm25, sim)
            else:
                relevance = Relevance(vector=sim, lexical_hit=False)
                merged[r.id] = Candidate(r, relevance, similarity=sim)
        return list(merged.values())
    if plan.fusion == WEIGHTED:
        return _weighted(plan, lexical, vector)
    raise ValueError(f"unknown fusion {plan.fusion!r}")


def _weighted(
    plan: RecallPlan,
    lexical: Sequence[tuple[MemoryRecord, float]],
    vector: Sequence[tuple[MemoryRecord, float]],
) -> list[Candidate]:
    records: dict[str, MemoryRecord] = {}
    lex: dict[str, tuple[float, float]] = {}
    vec: dict[str, tuple[float | None, float]] = {}
    for (r, bm25), norm in zip(lexical, _min_max([b for _, b in lexical]), strict=True):
        records[r.id] = r
        lex[r.id] = (bm25, norm)
    for (r, cosine), norm in zip(vector, _min_max([s for _, s in vector]), strict=True):
        records.setdefault(r.id, r)
        vec[r.id] = (cosine, norm)
    weight = plan.dense_weight if vector else 0.0
    out = []
    for memory_id, record in records.items():
        bm25, lex_norm = lex.get(memory_id, (0.0, 0.0))
        sim, vec_norm = vec.get(memory_id, (None, 0.0))
        fused = (1 - weight) * lex_norm + weight * vec_norm
        relevance = Relevance(
            lexical=lex_norm,
            vector=vec_norm if sim is not None else None,
            fused=fused,
            lexical_hit=memory_id in lex,
        )
        out.append(Candidate(record, relevance, bm25, sim))
    return out


def spread_context(
    candidates: Sequence[Candidate],
    neighbours: Mapping[str, tuple[str | None, str | None]],
    weight: float,
    reply_weight: float = 0.0,
) -> list[Candidate]:
    """Let each candidate borrow from its best session neighbour among the candidates.

    ``fused' = (fused + weight * max(fused of the memory before, after)) / (1 + weight)``: a
    short reply ("Yes, last May!") is found through the question it answers. With
    ``reply_weight``, a memory that follows a question (its text has a ``?``) is also worth at
    least ``reply_weight * fused`` of that question: the answer ranks just below it.
    """
    fused = {c.record.id: c.relevance.fused or 0.0 for c in candidates}
    asks = {c.record.id for c in candidates if reply_weight and "?" in c.record.content}
    out = []
    for c in candidates:
        before, after = neighbours.get(c.record.id, (None, None))
        context = max(fused.get(before or "", 0.0), fused.get(after or "", 0.0))
        own = fused[c.record.id]
        value = (own + weight * context) / (1 + weight)
        reason = NEIGHBOUR if weight > 0 and context > own else None  # lifted, not lowered
        if before in asks and reply_weight * fused[before or ""] > value:
            value, reason = reply_weight * fused[before or ""], REPLY
        r = c.relevance
        relevance = Relevance(r.lexical, r.vector, r.lexical_hit, value, own, reason)
        out.append(Candidate(c.record, relevance, c.bm25, c.similarity))
    return out


def rank_candidates(
    candidates: Sequence[Candidate],
    profile: Profile,
    now: datetime,
    settings: ProfileSettings,
    limit: int,
) -> list[Hit]:
    """Score candidates with the profile's search score; best first, ties by id."""
    scored: list[tuple[Candidate, SearchScore]] = [
        (c, layered(profile, c.record, profile.search_score(c.record, now, c.relevance, settings)))
        for c in candidates
    ]
    scored.sort(key=lambda item: (-item[1].value, item[0].record.id))
    types = [c.record.type for c, _ in scored]
    chosen = profile.select(types, limit) if profile.select else range(min(limit, len(types)))
    return [
        Hit(
            scored[i][0].record,
            scored[i][1].value,
            rank,
            lexical=scored[i][0].bm25,
            explanation=scored[i][1],
            vector=scored[i][0].similarity,
            relevance=scored[i][0].relevance,
        )
        for rank, i in enumerate(chosen, 1)
    ]


def layered(profile: Profile, record: MemoryRecord, score: SearchScore) -> SearchScore:
    """The 0.8 de-boost for a memory of a mounted layer (if the profile did not apply it)."""
    shared = shared_from(record)
    if shared == LOCAL_LAYER or profile.weighs_layers:
        return score
    weight = layer_weight(shared)
    where = f"space {record.space!r}" if record.space is not None else f"layer {shared!r}"
    return scaled(score, weight, f"x {weight:g}: from {where}")


def rank_hits(
    found: Sequence[tuple[MemoryRecord, float]],
    profile: Profile,
    now: datetime,
    settings: ProfileSettings,
    limit: int,
) -> list[Hit]:
    """Full-text hits (record, bm25 > 0) ranked by the profile (no vectors)."""
    candidates = fuse(RecallPlan(), found, ())
    return rank_candidates(candidates, profile, now, settings, limit)
