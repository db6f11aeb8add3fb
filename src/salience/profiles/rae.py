"""rae (its document "Scoring & Heuristics"): semantic relevance re-scored by recency, importance
and usage, with configurable weights.

``final = semantic*0.6 + recency*0.1 + importance*0.2 + usage*0.1`` (the default weights),
``recency = 0.5 ** (hours / H)`` on the later of creation and last access (H = 24 h),
``usage = min(1, ln(1 + n) / ln(11))``.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING

from salience.briefing.columns import NEVER, Columns, micros
from salience.briefing.policies import (
    BriefingRequest,
    Candidates,
    ManifestBuilder,
    best,
    listed_section,
    one_line,
    render,
    split_live,
)
from salience.clock import age_days
from salience.lazy import lazy_module
from salience.models import Briefing, MemoryRecord
from salience.profiles.base import Profile, ProfileSettings, RecallPlan, Relevances, TypeSpec
from salience.profiles.scoring import arrays
from salience.profiles.scoring.signals import half_life_recency, normalized_ln_usage
from salience.scores import ContextScore, SearchScore, weighted

if TYPE_CHECKING:
    import numpy as np

    from salience.briefing.columns import Floats
    from salience.models import Relevance
else:
    np = lazy_module("numpy")


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


def search_scores(
    columns: Columns, now: datetime, relevance: Relevances, settings: ProfileSettings
) -> Floats:
    """:func:`search_score`'s values for whole columns."""
    semantic = np.where(np.isnan(relevance.vector), relevance.lexical, relevance.vector)
    return _columns(columns, now, semantic, settings)


def context_score(record: MemoryRecord, now: datetime, settings: ProfileSettings) -> ContextScore:
    """With no query there is no semantic signal: the other three terms, same weights."""
    return weighted(ContextScore, "rae", _parts(record, now, 0.0, settings))


def context_scores(columns: Columns, now: datetime, settings: ProfileSettings) -> Floats:
    """:func:`context_score`'s values for whole columns."""
    return _columns(columns, now, 0.0, settings)


def _columns(
    columns: Columns, now: datetime, semantic: Floats | float, settings: ProfileSettings
) -> Floats:
    """:func:`_parts` summed for whole columns."""
    accessed = np.where(columns.accessed == NEVER, columns.created, columns.accessed)
    touched = np.maximum(columns.created, accessed)
    hours = arrays.ages_days(touched, micros(now)) * 24.0
    values: dict[str, Floats | float] = {
        "semantic": semantic,
        "recency": arrays.half_life_recency(hours, settings.rae_half_life_hours),
        "importance": columns.importance,
        "usage": arrays.by_value(normalized_ln_usage, columns.access_count),
    }
    parts = tuple((weight, values[name]) for name, weight in settings.rae_weights)
    return arrays.weighted_sum(parts, len(columns))


def briefing(
    candidates: Sequence[MemoryRecord] | Candidates,
    request: BriefingRequest,
    settings: ProfileSettings,
) -> Briefing:
    """rae injects nothing by itself; salience gives it a plain top 10 by the query-less score."""
    candidates = Candidates.of(candidates)
    columns = candidates.columns
    scores = context_scores(columns, request.now, settings) * arrays.layer_weight(columns.layer)
    manifest = ManifestBuilder(candidates, scores)
    live = split_live(candidates, request.now, manifest)
    chosen, rest = best(candidates, np.flatnonzero(live), scores, TOP)
    section = listed_section(
        "Memories", candidates, chosen, rest, manifest, lambda r: f"- {one_line(r)}"
    )
    return Briefing("rae", render([section]), (section,), manifest.build(), request.now)


PROFILE = Profile(
    name="rae",
    summary="semantic relevance + recency (24 h half-life) + importance + usage, weights tunable",
    document="004 Scoring & Heuristics",
    types=(TypeSpec("memory", "rae does not type its memories"),),
    default_type="memory",
    context_score=context_score,
    context_scores=context_scores,
    search_score=search_score,
    search_scores=search_scores,
    briefing=briefing,
    bump_on_recall=True,
    dedup=("semantic",),
    recall=RecallPlan(fusion="semantic", lexical_factor=2, vector_factor=2),
)
