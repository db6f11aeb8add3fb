"""What is kept of briefings and recalls: a session's start, the traces of which memories
were given and the feedback on them, and the log of briefings read back from them.

Read by a few verbs only (recording, the briefing log, session start): a cold ``salience
briefing`` does not build these classes (:mod:`salience.models` imports them on first use).
"""

from __future__ import annotations

import builtins
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from salience.models import MemoryRecord
    from salience.scores import ContextScore


@dataclass(frozen=True)
class SessionStart:
    """What starting a session returns."""

    session_id: str
    is_new: bool
    summaries: tuple[MemoryRecord, ...] = ()
    memories: tuple[tuple[MemoryRecord, ContextScore], ...] = ()
    closed_session_id: str | None = None


@dataclass(frozen=True)
class BriefedMemory:
    """One memory a briefing gave, and what became of it in that session."""

    memory_id: str
    section: str | None
    feedback: tuple[str, ...]  # echo, fizzle, used, recalled, updated, ... in order


@dataclass(frozen=True)
class BriefingLogEntry:
    """One briefing given: when, under which profile and budget, and what it gave."""

    trace_id: str
    at: datetime
    profile: str
    session_id: str | None
    tokens: int | None
    budget: int | None
    memories: tuple[BriefedMemory, ...]


@dataclass(frozen=True)
class BriefingLog:
    """Briefings newest first, and per memory how often it was briefed and how often that
    helped (echoed, used or recalled again in the session)."""

    entries: tuple[BriefingLogEntry, ...]
    briefed: dict[str, int]
    helped: dict[str, int]


@dataclass(frozen=True, slots=True)
class TraceHit:
    """One memory of a trace: returned or kept (``reason`` None) at ``rank``, or dropped."""

    memory_id: str
    rank: int
    score: float | None = None
    reason: str | None = None
    section: str | None = None


@dataclass(frozen=True, slots=True)
class Trace:
    """One recorded recall or briefing."""

    id: str
    user: str
    at: datetime
    kind: str
    profile: str
    query: str | None = None
    session_id: str | None = None
    tokens: int | None = None
    budget: int | None = None
    hits: tuple[TraceHit, ...] = ()

    @property
    def returned(self) -> builtins.list[str]:
        """The ids returned (a recall) or kept (a briefing), in rank order."""
        return [h.memory_id for h in sorted(self.hits, key=lambda h: h.rank) if h.reason is None]


@dataclass(frozen=True, slots=True)
class Feedback:
    """What happened to a memory a trace surfaced: ``echo``, ``fizzle``, ``used``,
    ``unused``, ``updated``, ``superseded`` or ``recalled`` (found again in the session)."""

    trace_id: str
    memory_id: str
    kind: str
    at: datetime
