"""Ranking recall candidates through a profile's search score (pure).

Full-text relevance is normalised per query (``bm25 / best bm25``, so the best hit gets 1.0:
ilab's documented choice, used by every profile). The hybrid-recall work adds vector
similarity to :class:`~salience.profiles.base.Relevance`; the ranking here does not change.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from salience.models import Hit, MemoryRecord
from salience.profiles.base import Profile, ProfileSettings, Relevance
from salience.scoring.scores import SearchScore


def candidate_count(limit: int) -> int:
    """How many full-text hits to score for ``limit`` results (eidet takes 2 x limit)."""
    return 2 * limit


def rank_hits(
    found: Sequence[tuple[MemoryRecord, float]],
    profile: Profile,
    now: datetime,
    settings: ProfileSettings,
    limit: int,
) -> list[Hit]:
    """Score ``found`` (record, bm25 > 0) with the profile; best first, ties by id."""
    best = max((bm25 for _, bm25 in found), default=0.0)
    scored: list[tuple[MemoryRecord, SearchScore, float]] = []
    for record, bm25 in found:
        relevance = Relevance(lexical=bm25 / best if best > 0 else 0.0)
        scored.append((record, profile.search_score(record, now, relevance, settings), bm25))
    scored.sort(key=lambda item: (-item[1].value, item[0].id))
    pairs = [(record, score) for record, score, _ in scored]
    chosen = profile.select(pairs, limit) if profile.select else range(min(limit, len(pairs)))
    return [
        Hit(scored[i][0], scored[i][1].value, rank, lexical=scored[i][2], explanation=scored[i][1])
        for rank, i in enumerate(chosen, 1)
    ]
