"""rae (seed 004, "Scoring & Heuristics"): semantic relevance re-scored by recency, importance
and usage, with configurable weights.

``final = semantic*0.6 + recency*0.1 + importance*0.2 + usage*0.1`` (the default weights),
``recency = 0.5 ** (hours / H)`` on the later of creation and last access (H = 24 h),
``usage = min(1, ln(1 + n) / ln(11))``.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from salience.briefing import (
    Briefing,
    BriefingRequest,
    ManifestBuilder,
    by_score,
    listed_section,
    one_line,
    render,
    scored_live,
)
from salience.clock import age_days
from salience.models import MemoryRecord, Relevance
from salience.profiles.base import Profile, ProfileSettings, RecallPlan, TypeSpec
from salience.scoring.scores import ContextScore, SearchScore, weighted
from salience.scoring.signals import half_life_recency, normalized_ln_usage

TOP = 10


def _parts(
    record: MemoryRecord, now: datetime, semantic: float, settings: ProfileSettings
) -> tuple[tuple[str, float, float], ...]:
    touched = max(record.created_at, record.last_accessed_at or record.created_at)
    hours = age_days(touched, now) * 24.0
    values = {
        "semantic": semantic,
        "recency": half_life_recency(hours, settings.rae_half_life_hours),
        "importance": record.importance,
        "usage": normalized_ln_usage(record.access_count),
    }
    return tuple((name, weight, values[name]) for name, weight in settings.rae_weights)


def search_score(
    record: MemoryRecord, now: datetime, relevance: Relevance, settings: ProfileSettings
) -> SearchScore:
    """The final score; ``semantic`` is the vector similarity, or the normalised full-text
    relevance while the store has no vectors."""
    semantic = relevance.vector if relevance.vector is not None else relevance.lexical
    return weighted(SearchScore, "rae", _parts(record, now, semantic, settings))


def context_score(record: MemoryRecord, now: datetime, settings: ProfileSettings) -> ContextScore:
    """With no query there is no semantic signal: the other three terms, same weights."""
    return weighted(ContextScore, "rae", _parts(record, now, 0.0, settings))


def briefing(
    candidates: Sequence[MemoryRecord], request: BriefingRequest, settings: ProfileSettings
) -> Briefing:
    """rae injects nothing by itself; salience gives it a plain top 10 by the query-less score."""
    manifest = ManifestBuilder()
    live, scores = scored_live(
        candidates, request.now, manifest, lambda r: context_score(r, request.now, settings).value
    )
    ranked = by_score(live, scores)
    section = listed_section(
        "Memories", ranked, TOP, scores, manifest, lambda r: f"- {one_line(r)}"
    )
    return Briefing("rae", render([section]), (section,), manifest.build(), request.now)


PROFILE = Profile(
    name="rae",
    summary="semantic relevance + recency (24 h half-life) + importance + usage, weights tunable",
    document="004 Scoring & Heuristics",
    types=(TypeSpec("memory", "rae does not type its memories"),),
    default_type="memory",
    context_score=context_score,
    search_score=search_score,
    briefing=briefing,
    bump_on_recall=True,
    dedup=("semantic",),
    recall=RecallPlan(fusion="semantic", lexical_factor=2, vector_factor=2),
)
