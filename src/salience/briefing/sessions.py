"""Sessions (ilab's mem_session_start / mem_session_end), the pure parts.

A session stays open while it is used; one idle for more than 24 hours is closed with an
automatic, extractive summary the next time its user starts a session.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from salience.briefing.policies import one_line
from salience.models import MemoryRecord

if TYPE_CHECKING:
    from salience.models import Session

STALE_AFTER = timedelta(hours=24)
RECENT_SUMMARIES = 5
START_MEMORIES = 10
SUMMARY_TYPE = "summary"


def is_stale(session: Session, now: datetime) -> bool:
    """Whether the session has been idle for more than 24 hours."""
    return now - session.last_active_at > STALE_AFTER


def automatic_summary(session: Session, members: Sequence[MemoryRecord]) -> str:
    """An extractive summary: how many memories, and the most important three, one line each."""
    if not members:
        return f"Session {session.id} closed after 24 h idle; no memories were written in it."
    best = sorted(members, key=lambda r: (-r.importance, r.id))[:3]
    lines = "; ".join(one_line(r)[:200] for r in best)
    return (
        f"Session {session.id} closed after 24 h idle with {len(members)} memories. "
        f"Most important: {lines}"
    )
