"""talome's top 10, one record at a time."""

from __future__ import annotations

from collections.abc import Sequence

from salience.briefing.policies import BriefingRequest, render
from salience.models import Briefing, MemoryRecord
from salience.profiles.base import ProfileSettings
from salience.profiles.talome import HEADING, TOP, context_score
from tests.profiles.oracle.common import ManifestBuilder, by_score, listed_section, scored_live


def briefing(
    candidates: Sequence[MemoryRecord], request: BriefingRequest, settings: ProfileSettings
) -> Briefing:
    """The top 10 enabled memories under ``## What I Remember About You``, one line each."""
    manifest = ManifestBuilder()
    live, scores = scored_live(
        candidates, request.now, manifest, lambda r: context_score(r, request.now, settings).value
    )
    ranked = by_score(live, scores)
    section = listed_section(HEADING, ranked, TOP, scores, manifest, lambda r: f"- {r.content}")
    return Briefing("talome", render([section]), (section,), manifest.build(), request.now)
