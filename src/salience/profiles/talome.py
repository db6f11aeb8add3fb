"""talome (its document "ADR-002: Memory Ranking"): recency, access, confidence; top 10 injected.

``score = 0.4*recency + 0.3*ln(1 + access_count) + 0.3*confidence`` (unbounded above), with
``recency = max(0, 1 - age_days / 30)`` on the later of creation and update.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING

from salience.briefing.columns import Columns, micros
from salience.briefing.policies import (
    BriefingRequest,
    Candidates,
    ManifestBuilder,
    best,
    listed_section,
    render,
    split_live,
)
from salience.clock import age_days
from salience.lazy import lazy_module
from salience.models import Briefing, MemoryRecord
from salience.profiles.base import Profile, ProfileSettings, TypeSpec
from salience.profiles.scoring import arrays
from salience.profiles.scoring.signals import linear_recency, ln_access
from salience.scores import ContextScore, SearchScore, weighted

if TYPE_CHECKING:
    import numpy as np

    from salience.briefing.columns import Floats
    from salience.models import Relevance
else:
    np = lazy_module("numpy")


HEADING = "What I Remember About You"
TOP = 10


def context_score(record: MemoryRecord, now: datetime, settings: ProfileSettings) -> ContextScore:
    """getTopMemories' composite score."""
    touched = max(record.created_at, record.updated_at)
    return weighted(
        ContextScore,
        "talome",
        (
            ("recency", 0.4, linear_recency(age_days(touched, now), 30.0)),
            ("access", 0.3, ln_access(record.access_count)),
            ("confidence", 0.3, record.confidence),
        ),
    )


def search_score(
    record: MemoryRecord, now: datetime, relevance: Relevance, settings: ProfileSettings
) -> SearchScore:
    """The recall tool matches text; the document gives it no other ranking."""
    return weighted(SearchScore, "talome", (("relevance", 1.0, relevance.lexical),))


def context_scores(columns: Columns, now: datetime, settings: ProfileSettings) -> Floats:
    """:func:`context_score`'s values for whole columns."""
    touched = np.maximum(columns.created, columns.updated)
    recency = arrays.linear_recency(arrays.ages_days(touched, micros(now)), 30.0)
    access = arrays.by_value(ln_access, columns.access_count)
    return arrays.weighted_sum(
        ((0.4, recency), (0.3, access), (0.3, columns.confidence)), len(columns)
    )


def briefing(
    candidates: Sequence[MemoryRecord] | Candidates,
    request: BriefingRequest,
    settings: ProfileSettings,
) -> Briefing:
    """The top 10 enabled memories under ``## What I Remember About You``, one line each."""
    candidates = Candidates.of(candidates)
    columns = candidates.columns
    scores = context_scores(columns, request.now, settings) * arrays.layer_weight(columns.layer)
    manifest = ManifestBuilder(candidates, scores)
    live = split_live(candidates, request.now, manifest)
    chosen, rest = best(candidates, np.flatnonzero(live), scores, TOP)
    section = listed_section(
        HEADING, candidates, chosen, rest, manifest, lambda r: f"- {r.content}"
    )
    return Briefing("talome", render([section]), (section,), manifest.build(), request.now)


PROFILE = Profile(
    name="talome",
    summary="linear 30-day recency, log access, confidence; top 10 in the system prompt",
    document="003 ADR-002: Memory Ranking",
    types=(
        TypeSpec("preference", "what the user prefers", confidence=1.0),
        TypeSpec("fact", "facts about the user's setup", confidence=1.0),
        TypeSpec("context", "what the user is doing now", confidence=0.8),
        TypeSpec("correction", "a user-confirmed correction", confidence=1.0),
    ),
    default_type="fact",
    context_score=context_score,
    context_scores=context_scores,
    search_score=search_score,
    search_scores=arrays.text_relevance,
    briefing=briefing,
    bump_on_recall=True,
    dedup=("bigram_dice",),
)
