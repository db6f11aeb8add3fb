"""rae's plain top 10, one record at a time."""

from __future__ import annotations

from collections.abc import Sequence

from salience.briefing.policies import BriefingRequest, one_line, render
from salience.models import Briefing, MemoryRecord
from salience.profiles.base import ProfileSettings
from salience.profiles.rae import TOP, context_score
from tests.profiles.oracle.common import ManifestBuilder, by_score, listed_section, scored_live


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
