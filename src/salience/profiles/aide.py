"""aide (seed 000, "Memory Scoring"): category, recency, provenance, access; priority pins.

``score = clamp01(category*0.50 + recency*0.25 + provenance*0.15 + access*0.10)``
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from salience.briefing import (
    LIMIT,
    NOT_IN_SCOPE,
    Briefing,
    BriefingRequest,
    BriefingSection,
    ManifestBuilder,
    by_score,
    estimate_tokens,
    one_line,
    render,
    scored_live,
)
from salience.clock import age_days
from salience.models import MemoryRecord, Relevance
from salience.profiles.base import Profile, ProfileSettings, TypeSpec
from salience.scoring.scores import ContextScore, SearchScore, weighted
from salience.scoring.signals import clamp01, half_life_recency, log10_access, tag_boosts

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


def _order(
    records: list[MemoryRecord], scores: dict[str, float], settings: ProfileSettings
) -> list[MemoryRecord]:
    if settings.aide_scoring_disabled:
        return sorted(records, key=lambda r: r.id)  # chronological ULID order
    return by_score(records, scores)


def _in_project(record: MemoryRecord, project: str) -> bool:
    return f"project:{project}" in record.tags or record.project == project


def _session_of(record: MemoryRecord) -> str | None:
    for tag in record.tags:
        if tag.startswith("session:"):
            return tag.removeprefix("session:")
    return record.session_id


class _Sections:
    """Builds the briefing's sections, remembering what is shown so nothing appears twice."""

    def __init__(self, scores: dict[str, float], manifest: ManifestBuilder) -> None:
        self.scores = scores
        self.manifest = manifest
        self.shown: set[str] = set()
        self.sections: list[BriefingSection] = []

    def add(self, title: str, chosen: list[MemoryRecord], lines: list[str] | None = None) -> None:
        lines = lines or [f"- {one_line(r)}" for r in chosen]
        for record, line in zip(chosen, lines, strict=True):
            self.manifest.keep(record, self.scores[record.id], estimate_tokens(line), title)
            self.shown.add(record.id)
        self.sections.append(BriefingSection(title, tuple(lines), tuple(r.id for r in chosen)))

    def drop(self, records: list[MemoryRecord], reason: str) -> None:
        self.manifest.drop_all(records, reason, self.scores)


def briefing(
    candidates: Sequence[MemoryRecord], request: BriefingRequest, settings: ProfileSettings
) -> Briefing:
    """Global (best 100) / project (best 30, overflow) / 2 recent sessions / latest decisions."""
    manifest = ManifestBuilder()
    live, scores = scored_live(
        candidates, request.now, manifest, lambda r: context_score(r, request.now, settings).value
    )
    out = _Sections(scores, manifest)

    ranked = _order([r for r in live if GLOBAL_TAG in r.tags], out.scores, settings)
    out.add("Global memories", ranked[:GLOBAL_LIMIT])
    out.drop(ranked[GLOBAL_LIMIT:], LIMIT)

    overflow = False
    if request.project:
        pool = [r for r in live if _in_project(r, request.project) and r.id not in out.shown]
        ranked = _order(pool, out.scores, settings)
        overflow = len(ranked) > PROJECT_LIMIT
        out.add(f"Project memories ({request.project})", ranked[:PROJECT_LIMIT])
        out.drop(ranked[PROJECT_LIMIT:], LIMIT)

    _recent_sessions(live, out)
    _decisions(live, out)
    out.drop([r for r in live if r.id not in out.shown], NOT_IN_SCOPE)
    sections = tuple(out.sections)
    return Briefing("aide", render(sections), sections, manifest.build(), request.now, overflow)


def _recent_sessions(live: list[MemoryRecord], out: _Sections) -> None:
    """The 2 newest session groups: each shows its session summary if any, else its members."""
    groups: dict[str, list[MemoryRecord]] = {}
    for record in live:
        session = _session_of(record)
        if session:
            groups.setdefault(session, []).append(record)
    newest = sorted(groups, key=lambda s: max((r.created_at, r.id) for r in groups[s]))
    for session in reversed(newest[-SESSION_GROUPS:]):
        members = sorted(groups[session], key=lambda r: (r.created_at, r.id))
        summaries = [r for r in members if r.type == "session"]
        chosen = [r for r in (summaries[-1:] or members) if r.id not in out.shown]
        out.add(f"Session {session}", chosen)
        out.drop([r for r in members if r not in chosen and r.id not in out.shown], LIMIT)


def _decisions(live: list[MemoryRecord], out: _Sections) -> None:
    """For every topic, its latest decision; topics in alphabetical order."""
    latest: dict[str, MemoryRecord] = {}
    for record in live:
        if record.type == "decision" and record.topic_key:
            best = latest.get(record.topic_key)
            if best is None or (record.created_at, record.id) > (best.created_at, best.id):
                latest[record.topic_key] = record
    chosen = [latest[topic] for topic in sorted(latest) if latest[topic].id not in out.shown]
    out.add("Decisions", chosen, [f"- {r.topic_key}: {one_line(r)}" for r in chosen])


PROFILE = Profile(
    name="aide",
    summary="category, recency (30-day half-life), provenance tags, access; priority pins",
    document="000 Memory Scoring",
    types=tuple(TypeSpec(name, f"category weight {w:.2f}") for name, w in CATEGORY.items()),
    default_type="learning",
    context_score=context_score,
    search_score=search_score,
    briefing=briefing,
    bump_on_recall=True,
)
