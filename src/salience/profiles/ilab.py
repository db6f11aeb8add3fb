"""ilab (its document "Scoring"): SearchScore and ContextScore, distinct and never compared.

``SearchScore  = 0.60*fts_rank + 0.25*recency(updated_at) + 0.15*revision``
``ContextScore = 0.50*recency(updated_at) + 0.30*revision + 0.20*type_priority``
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING

from salience.briefing.columns import Columns, micros
from salience.briefing.policies import (
    NEWEST,
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
from salience.profiles.scoring.signals import half_life_recency, revision_score, type_priority
from salience.scores import ContextScore, SearchScore, weighted

if TYPE_CHECKING:
    import numpy as np

    from salience.briefing.columns import Floats
    from salience.models import Relevance
else:
    np = lazy_module("numpy")


TYPE_PRIORITY = {
    "profile": 1.00,
    "preference": 0.90,
    "decision": 0.70,
    "pattern": 0.60,
    "discovery": 0.50,
    "summary": 0.30,
}
UNKNOWN_TYPE_PRIORITY = 0.50
SUMMARY = "summary"
SESSION_MEMORIES = 10
SESSION_SUMMARIES = 5


def recency_score(updated_at: datetime, now: datetime) -> float:
    """``0.5 ** (age_days / 30)`` on ``updated_at`` (the same curve as ``2 ** (-age / 30)``)."""
    return half_life_recency(age_days(updated_at, now), 30.0)


def search_score(
    record: MemoryRecord, now: datetime, relevance: Relevance, settings: ProfileSettings
) -> SearchScore:
    """Relevance to the query dominates; ``fts_rank`` is bm25 / the best bm25 of the query."""
    return weighted(
        SearchScore,
        "ilab",
        (
            ("fts_rank", 0.60, relevance.lexical),
            ("recency", 0.25, recency_score(record.updated_at, now)),
            ("revision", 0.15, revision_score(record.revision_count)),
        ),
    )


def search_scores(
    columns: Columns, now: datetime, relevance: Relevances, settings: ProfileSettings
) -> Floats:
    """:func:`search_score`'s values for whole columns."""
    recency = arrays.half_life_recency(arrays.ages_days(columns.updated, micros(now)), 30.0)
    revision = arrays.by_value(revision_score, columns.revision_count)
    return arrays.weighted_sum(
        ((0.60, relevance.lexical), (0.25, recency), (0.15, revision)), len(columns)
    )


def context_score(record: MemoryRecord, now: datetime, settings: ProfileSettings) -> ContextScore:
    """Salience as default context: recency dominates, type priority is a thumb on the scale."""
    return weighted(
        ContextScore,
        "ilab",
        (
            ("recency", 0.50, recency_score(record.updated_at, now)),
            ("revision", 0.30, revision_score(record.revision_count)),
            (
                "type_priority",
                0.20,
                type_priority(record.type, TYPE_PRIORITY, UNKNOWN_TYPE_PRIORITY),
            ),
        ),
    )


def context_scores(columns: Columns, now: datetime, settings: ProfileSettings) -> Floats:
    """:func:`context_score`'s values for whole columns."""
    recency = arrays.half_life_recency(arrays.ages_days(columns.updated, micros(now)), 30.0)
    revision = arrays.by_value(revision_score, columns.revision_count)
    priority = arrays.table(
        columns.type, columns.vocab.types.names, TYPE_PRIORITY, UNKNOWN_TYPE_PRIORITY
    )
    return arrays.weighted_sum(((0.50, recency), (0.30, revision), (0.20, priority)), len(columns))


def briefing(
    candidates: Sequence[MemoryRecord] | Candidates,
    request: BriefingRequest,
    settings: ProfileSettings,
) -> Briefing:
    """What mem_session_start returns: up to 5 recent summaries and ~10 memories by score."""
    candidates = Candidates.of(candidates)
    columns = candidates.columns
    scores = context_scores(columns, request.now, settings) * arrays.layer_weight(columns.layer)
    manifest = ManifestBuilder(candidates, scores)
    live = split_live(candidates, request.now, manifest)
    summary = columns.type == columns.vocab.types.lookup(SUMMARY)
    summaries = np.flatnonzero(live & summary)
    newest = summaries[np.lexsort((columns.ids[summaries], columns.created[summaries]))[::-1]]
    chosen, rest = best(candidates, np.flatnonzero(live & ~summary), scores, SESSION_MEMORIES)

    def line(record: MemoryRecord) -> str:
        return f"- {one_line(record)}"

    sections = (
        listed_section(
            "Recent sessions",
            candidates,
            newest[:SESSION_SUMMARIES],
            newest[SESSION_SUMMARIES:],
            manifest,
            line,
            order=NEWEST,
        ),
        listed_section("Memories", candidates, chosen, rest, manifest, line),
    )
    return Briefing("ilab", render(sections), sections, manifest.build(), request.now)


PROFILE = Profile(
    name="ilab",
    summary="SearchScore (bm25, recency, revisions) and ContextScore (recency, revisions, type)",
    document="002 Scoring",
    types=tuple(TypeSpec(name, f"type priority {p:.2f}") for name, p in TYPE_PRIORITY.items()),
    default_type="discovery",
    context_score=context_score,
    context_scores=context_scores,
    search_score=search_score,
    search_scores=search_scores,
    briefing=briefing,
    bump_on_recall=False,
    dedup=("topic_upsert", "exact_hash"),
    reserved_types=frozenset({SUMMARY}),
    recall=RecallPlan(substring_below=3),  # mem_search: queries under 3 chars match substrings
)
