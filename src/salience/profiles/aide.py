"""aide (its document "Memory Scoring"): category, recency, provenance, access; priority pins.

``score = clamp01(category*0.50 + recency*0.25 + provenance*0.15 + access*0.10)``
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime
from typing import TYPE_CHECKING

from salience.briefing.columns import NONE, Columns, micros
from salience.briefing.policies import (
    AS_GIVEN,
    BY_SCORE,
    LIMIT,
    NOT_IN_SCOPE,
    BriefingRequest,
    Candidates,
    ManifestBuilder,
    best,
    one_line,
    render,
    split_live,
)
from salience.briefing.ranking import by_key_then_id
from salience.clock import age_days
from salience.lazy import lazy_module
from salience.models import Briefing, BriefingSection, MemoryRecord, estimate_tokens
from salience.profiles.base import Profile, ProfileSettings, TypeSpec
from salience.profiles.scoring import arrays
from salience.profiles.scoring.signals import clamp01, half_life_recency, log10_access, tag_boosts
from salience.scores import ContextScore, SearchScore, weighted

if TYPE_CHECKING:
    import numpy as np

    from salience.briefing.columns import Flags, Floats
    from salience.briefing.policies import Rows
    from salience.models import Relevance
else:
    np = lazy_module("numpy")


CATEGORY = {
    "abandoned": 0.90,
    "blocker": 0.85,
    "issue": 0.80,
    "gotcha": 0.75,
    "discovery": 0.70,
    "decision": 0.65,
    "learning": 0.60,
    "pattern": 0.60,
    "session": 0.40,
}
USER_PREFERENCE = 1.00  # learning + scope:global
UNKNOWN_CATEGORY = 0.50
PROVENANCE = {"source:user": 0.20, "verified:true": 0.10, "source:discovered": 0.05}
GLOBAL_TAG = "scope:global"
GLOBAL_LIMIT = 100
PROJECT_LIMIT = 30
SESSION_GROUPS = 2


def category_score(record: MemoryRecord) -> float:
    """The category's base weight; a learning tagged scope:global is a user preference (1.0)."""
    if record.type == "learning" and GLOBAL_TAG in record.tags:
        return USER_PREFERENCE
    return CATEGORY.get(record.type, UNKNOWN_CATEGORY)


def context_score(record: MemoryRecord, now: datetime, settings: ProfileSettings) -> ContextScore:
    """aide's score, or the priority that overrides it (any non-zero priority, clamped)."""
    recency = (
        1.0
        if settings.aide_decay_disabled
        else half_life_recency(age_days(record.created_at, now), 30.0)
    )
    score: ContextScore = weighted(
        ContextScore,
        "aide",
        (
            ("category", 0.50, category_score(record)),
            ("recency", 0.25, recency),
            ("provenance", 0.15, tag_boosts(record.tags, PROVENANCE)),
            ("access", 0.10, log10_access(record.access_count)),
        ),
    )
    if record.priority != 0.0:
        pinned = clamp01(record.priority)
        note = f"priority {record.priority:g} replaces the computed {score.value:.6f}"
        return ContextScore(pinned, score.parts, "aide", note)
    return ContextScore(clamp01(score.value), score.parts, "aide")


def search_score(
    record: MemoryRecord, now: datetime, relevance: Relevance, settings: ProfileSettings
) -> SearchScore:
    """memory_search ranks by text relevance (the document scores injection, not search)."""
    return weighted(SearchScore, "aide", (("relevance", 1.0, relevance.lexical),))


def context_scores(columns: Columns, now: datetime, settings: ProfileSettings) -> Floats:
    """:func:`context_score`'s values for whole columns."""
    rows = len(columns)
    if settings.aide_decay_disabled:
        recency: Floats | float = 1.0
    else:
        recency = arrays.half_life_recency(arrays.ages_days(columns.created, micros(now)), 30.0)
    category = arrays.table(columns.type, columns.vocab.types.names, CATEGORY, UNKNOWN_CATEGORY)
    learning = columns.type == columns.vocab.types.lookup("learning")
    category = np.where(learning & columns.tag_global, USER_PREFERENCE, category)
    provenance = np.zeros(rows)  # tag_boosts: the table's order, each tag once, at most 1
    for flags, boost in (
        (columns.tag_user, PROVENANCE["source:user"]),
        (columns.tag_verified, PROVENANCE["verified:true"]),
        (columns.tag_discovered, PROVENANCE["source:discovered"]),
    ):
        provenance = provenance + np.where(flags, boost, 0.0)
    provenance = np.minimum(1.0, provenance)
    access = arrays.by_value(log10_access, columns.access_count)
    score = arrays.weighted_sum(
        ((0.50, category), (0.25, recency), (0.15, provenance), (0.10, access)), rows
    )
    pinned = columns.priority != 0.0
    result: Floats = np.where(pinned, arrays.clamp01(columns.priority), arrays.clamp01(score))
    return result


def _best(
    candidates: Candidates, rows: Rows, scores: Floats, limit: int, settings: ProfileSettings
) -> tuple[Rows, Rows, str]:
    """The first ``limit`` of ``rows`` by score (by id, oldest first, with scoring off)."""
    if settings.aide_scoring_disabled:  # chronological ULID order
        ordered = rows[np.argsort(candidates.columns.ids[rows], kind="stable")]
        return ordered[:limit], ordered[limit:], AS_GIVEN
    chosen, rest = best(candidates, rows, scores, limit)
    return chosen, rest, BY_SCORE


class _Sections:
    """Builds the briefing's sections, remembering what is shown so nothing appears twice."""

    def __init__(self, candidates: Candidates, manifest: ManifestBuilder) -> None:
        self.candidates = candidates
        self.manifest = manifest
        self.shown: Flags = np.zeros(len(candidates), dtype=np.bool_)
        self.sections: list[BriefingSection] = []

    def add(self, title: str, chosen: Rows, line: Callable[[MemoryRecord], str]) -> None:
        records = self.candidates.records(chosen)
        lines = [line(r) for r in records]
        for row, record, text in zip(chosen.tolist(), records, lines, strict=True):
            self.manifest.keep(row, record, estimate_tokens(text), title)
        self.shown[chosen] = True
        ids = tuple(r.id for r in records)
        self.sections.append(BriefingSection(title, tuple(lines), ids))


def _plain(record: MemoryRecord) -> str:
    return f"- {one_line(record)}"


def briefing(
    candidates: Sequence[MemoryRecord] | Candidates,
    request: BriefingRequest,
    settings: ProfileSettings,
) -> Briefing:
    """Global (best 100) / project (best 30, overflow) / 2 recent sessions / latest decisions."""
    candidates = Candidates.of(candidates)
    columns = candidates.columns
    scores = context_scores(columns, request.now, settings) * arrays.layer_weight(columns.layer)
    manifest = ManifestBuilder(candidates, scores)
    live = split_live(candidates, request.now, manifest)
    out = _Sections(candidates, manifest)

    chosen, rest, order = _best(
        candidates, np.flatnonzero(live & columns.tag_global), scores, GLOBAL_LIMIT, settings
    )
    out.add("Global memories", chosen, _plain)
    manifest.drop(rest, LIMIT, order=order)

    overflow = False
    if request.project:
        pool = np.flatnonzero(live & columns.in_project(request.project) & ~out.shown)
        chosen, rest, order = _best(candidates, pool, scores, PROJECT_LIMIT, settings)
        overflow = len(pool) > PROJECT_LIMIT
        out.add(f"Project memories ({request.project})", chosen, _plain)
        manifest.drop(rest, LIMIT, order=order)

    _recent_sessions(live, out)
    _decisions(live, out)
    manifest.drop(np.flatnonzero(live & ~out.shown), NOT_IN_SCOPE)
    sections = tuple(out.sections)
    return Briefing("aide", render(sections), sections, manifest.build(), request.now, overflow)


def _oldest_first(columns: Columns, rows: Rows) -> Rows:
    """``rows`` by (creation time, id), oldest first."""
    ordered: Rows = rows[by_key_then_id(columns.created[rows], columns.ids, rows)]
    return ordered


def _recent_sessions(live: Flags, out: _Sections) -> None:
    """The 2 newest session groups: each shows its session summary if any, else its members."""
    columns = out.candidates.columns
    members = _oldest_first(columns, np.flatnonzero(live & (columns.session != NONE)))
    sessions = columns.session[members]
    # A group is as new as its newest member: the last occurrence of its session in ``members``.
    _, last = np.unique(sessions[::-1], return_index=True)
    newest = np.sort(len(members) - 1 - last)[-SESSION_GROUPS:]
    summary = columns.vocab.types.lookup("session")
    for position in newest[::-1].tolist():
        session = int(sessions[position])
        group = members[sessions == session]
        summaries = group[columns.type[group] == summary]
        candidates = summaries[-1:] if len(summaries) else group
        chosen = candidates[~out.shown[candidates]]
        title = f"Session {columns.vocab.sessions.name(session)}"
        out.add(title, chosen, _plain)
        others = group[~np.isin(group, chosen) & ~out.shown[group]]
        out.manifest.drop(others, LIMIT)


def _decisions(live: Flags, out: _Sections) -> None:
    """For every topic, its latest decision; topics in alphabetical order."""
    columns = out.candidates.columns
    decision = columns.vocab.types.lookup("decision")
    rows = _oldest_first(columns, np.flatnonzero(live & (columns.type == decision)))
    rows = rows[columns.topic[rows] != NONE]
    topics = columns.topic[rows]
    codes, last = np.unique(topics[::-1], return_index=True)
    latest = rows[len(rows) - 1 - last]
    names = [columns.vocab.topics.name(int(c)) for c in codes.tolist()]
    alphabetical = latest[np.argsort(np.array(names, dtype=np.str_), kind="stable")]
    chosen = alphabetical[~out.shown[alphabetical]]
    out.add("Decisions", chosen, lambda r: f"- {r.topic_key}: {one_line(r)}")


PROFILE = Profile(
    name="aide",
    summary="category, recency (30-day half-life), provenance tags, access; priority pins",
    document="000 Memory Scoring",
    types=tuple(TypeSpec(name, f"category weight {w:.2f}") for name, w in CATEGORY.items()),
    default_type="learning",
    context_score=context_score,
    context_scores=context_scores,
    search_score=search_score,
    search_scores=arrays.text_relevance,
    briefing=briefing,
    bump_on_recall=True,
)
