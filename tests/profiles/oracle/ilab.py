"""ilab's session-start briefing, one record at a time."""

from __future__ import annotations

from collections.abc import Sequence

from salience.briefing.policies import BriefingRequest, one_line, render
from salience.models import Briefing, MemoryRecord
from salience.profiles.base import ProfileSettings
from salience.profiles.ilab import SESSION_MEMORIES, SESSION_SUMMARIES, SUMMARY, context_score
from tests.profiles.oracle.common import ManifestBuilder, by_score, listed_section, scored_live


def briefing(
    candidates: Sequence[MemoryRecord], request: BriefingRequest, settings: ProfileSettings
) -> Briefing:
    """What mem_session_start returns: up to 5 recent summaries and ~10 memories by score."""
    manifest = ManifestBuilder()
    live, scores = scored_live(
        candidates, request.now, manifest, lambda r: context_score(r, request.now, settings).value
    )
    summaries = sorted((r for r in live if r.type == SUMMARY), key=lambda r: (r.created_at, r.id))
    ranked = by_score((r for r in live if r.type != SUMMARY), scores)

    def line(record: MemoryRecord) -> str:
        return f"- {one_line(record)}"

    sections = (
        listed_section(
            "Recent sessions", summaries[::-1], SESSION_SUMMARIES, scores, manifest, line
        ),
        listed_section("Memories", ranked, SESSION_MEMORIES, scores, manifest, line),
    )
    return Briefing("ilab", render(sections), sections, manifest.build(), request.now)
