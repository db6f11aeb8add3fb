"""aide's briefing, one record at a time."""

from __future__ import annotations

from collections.abc import Sequence

from salience.briefing.policies import LIMIT, NOT_IN_SCOPE, BriefingRequest, one_line, render
from salience.models import Briefing, BriefingSection, MemoryRecord, estimate_tokens
from salience.profiles.aide import (
    GLOBAL_LIMIT,
    GLOBAL_TAG,
    PROJECT_LIMIT,
    SESSION_GROUPS,
    context_score,
)
from salience.profiles.base import ProfileSettings
from tests.profiles.oracle.common import ManifestBuilder, by_score, scored_live


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
