"""The values salience passes around: memory records and briefings here; write outcomes
(:mod:`.results`), search hits (:mod:`.hits`), traces (:mod:`.traces`), what a store keeps
beside memories (:mod:`.store_records`), reports and evaluations, each imported on first use.

All are frozen dataclasses. Embeddings are stored beside a record, never inside it.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from datetime import datetime
from enum import StrEnum
from typing import TYPE_CHECKING, Any

from salience.models.briefings import NOTES as NOTES
from salience.models.briefings import Briefing as Briefing
from salience.models.briefings import BriefingSection as BriefingSection
from salience.models.briefings import ManifestEntry as ManifestEntry
from salience.models.briefings import estimate_tokens as estimate_tokens
from salience.models.provenance import CEILING as CEILING
from salience.models.provenance import PERSON as PERSON
from salience.models.provenance import SOURCES as SOURCES
from salience.models.provenance import TRUST as TRUST
from salience.models.provenance import channel as channel
from salience.models.provenance import is_person as is_person
from salience.models.provenance import standing as standing
from salience.models.spaces import space_of as space_of

if TYPE_CHECKING:
    from salience.models.evaluation import EvalReport as EvalReport
    from salience.models.evaluation import Metrics as Metrics
    from salience.models.evaluation import Moved as Moved
    from salience.models.evaluation import Probe as Probe
    from salience.models.evaluation import Run as Run
    from salience.models.evaluation import Variant as Variant
    from salience.models.hits import Degraded as Degraded
    from salience.models.hits import Hit as Hit
    from salience.models.hits import Learned as Learned
    from salience.models.hits import Recalled as Recalled
    from salience.models.hits import Relevance as Relevance
    from salience.models.hits import Terms as Terms
    from salience.models.reports import PACK_FORMAT as PACK_FORMAT
    from salience.models.reports import ConsolidationReport as ConsolidationReport
    from salience.models.reports import CopyReport as CopyReport
    from salience.models.reports import Decision as Decision
    from salience.models.reports import GroupPlan as GroupPlan
    from salience.models.reports import ImportanceChange as ImportanceChange
    from salience.models.reports import MaintenanceReport as MaintenanceReport
    from salience.models.reports import MigrationReport as MigrationReport
    from salience.models.reports import NewKey as NewKey
    from salience.models.reports import PackIdentity as PackIdentity
    from salience.models.reports import PackImport as PackImport
    from salience.models.reports import PackManifest as PackManifest
    from salience.models.results import ImportResult as ImportResult
    from salience.models.results import UpdateLink as UpdateLink
    from salience.models.results import WriteResult as WriteResult
    from salience.models.store_records import ApiKey as ApiKey
    from salience.models.store_records import AuditEntry as AuditEntry
    from salience.models.store_records import DayCount as DayCount
    from salience.models.store_records import Grant as Grant
    from salience.models.store_records import GraphEdge as GraphEdge
    from salience.models.store_records import Job as Job
    from salience.models.store_records import JobState as JobState
    from salience.models.store_records import LayerMount as LayerMount
    from salience.models.store_records import MemoryGraph as MemoryGraph
    from salience.models.store_records import Session as Session
    from salience.models.store_records import Space as Space
    from salience.models.store_records import Stats as Stats
    from salience.models.traces import BriefedMemory as BriefedMemory
    from salience.models.traces import BriefingLog as BriefingLog
    from salience.models.traces import BriefingLogEntry as BriefingLogEntry
    from salience.models.traces import Feedback as Feedback
    from salience.models.traces import SessionStart as SessionStart
    from salience.models.traces import Trace as Trace
    from salience.models.traces import TraceHit as TraceHit

# Every value but a memory and a briefing is read by some verbs only: imported when first
# asked for. Building a frozen dataclass costs ~1 ms on a slow CPU (Python 3.11 compiles each
# of its methods), and a cold `salience briefing` builds none of these.
_LAZY = {
    "BriefedMemory": "traces",
    "BriefingLog": "traces",
    "BriefingLogEntry": "traces",
    "Feedback": "traces",
    "SessionStart": "traces",
    "Trace": "traces",
    "TraceHit": "traces",
    "Degraded": "hits",
    "Hit": "hits",
    "Learned": "hits",
    "Recalled": "hits",
    "Relevance": "hits",
    "Terms": "hits",
    "ImportResult": "results",
    "UpdateLink": "results",
    "WriteResult": "results",
    "ApiKey": "store_records",
    "AuditEntry": "store_records",
    "DayCount": "store_records",
    "GraphEdge": "store_records",
    "Job": "store_records",
    "JobState": "store_records",
    "LayerMount": "store_records",
    "MemoryGraph": "store_records",
    "Session": "store_records",
    "Stats": "store_records",
    "Grant": "store_records",
    "Space": "store_records",
    "EvalReport": "evaluation",
    "Metrics": "evaluation",
    "Moved": "evaluation",
    "Probe": "evaluation",
    "Run": "evaluation",
    "Variant": "evaluation",
    "PACK_FORMAT": "reports",
    "ConsolidationReport": "reports",
    "CopyReport": "reports",
    "Decision": "reports",
    "GroupPlan": "reports",
    "ImportanceChange": "reports",
    "MaintenanceReport": "reports",
    "MigrationReport": "reports",
    "NewKey": "reports",
    "PackIdentity": "reports",
    "PackImport": "reports",
    "PackManifest": "reports",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(f"salience.models.{module}"), name)
    globals()[name] = value
    return value


EXTRACTIVE = "extractive"
"""How a consolidation insight's text was made without an LLM (else ``llm``)."""


class Status(StrEnum):
    """Where a memory is in its life."""

    CURRENT = "current"
    SUPERSEDED = "superseded"  # valid_until has passed (replaced by a newer version, or expired)
    FORGOTTEN = "forgotten"  # forgotten on purpose, with a reason


class Outcome(StrEnum):
    """What a write did. Every write returns exactly one of these."""

    CREATED = "created"
    UPDATED = "updated"
    DUPLICATE = "duplicate"
    REJECTED = "rejected"
    FORGOTTEN = "forgotten"  # forget only: kept, readable, out of recall and briefings
    DELETED = "deleted"  # purge only: the record is gone for good


@dataclass(frozen=True)
class MemoryRecord:
    """One memory, with every field the five scoring systems and salience's own need."""

    id: str
    content: str
    type: str
    created_at: datetime
    updated_at: datetime
    title: str | None = None
    tags: tuple[str, ...] = ()
    user: str = "default"
    project: str | None = None
    topic_key: str | None = None
    source: str = "agent"
    importance: float = 0.5
    confidence: float = 0.5
    priority: float = 0.0
    access_count: int = 0
    revision_count: int = 1
    echo_count: int = 0
    fizzle_count: int = 0
    last_accessed_at: datetime | None = None
    valid_until: datetime | None = None
    parent_id: str | None = None
    forget_reason: str | None = None
    layer: str = "local"
    session_id: str | None = None
    entities: tuple[str, ...] = ()
    derived_from: tuple[str, ...] = ()
    enabled: bool = True
    author: str | None = None  # who wrote a space's memory (None: its owner, or erased)
    agent: str | None = None  # the agent that wrote it, as its key or MCP client names it

    @property
    def space(self) -> str | None:
        """The space this memory belongs to, or None for a user's own memory."""
        return space_of(self.user)

    def status(self, now: datetime) -> Status:
        """Forgotten, superseded (``valid_until`` reached) or current, as of ``now``."""
        if self.forget_reason is not None:
            return Status.FORGOTTEN
        if self.valid_until is not None and self.valid_until <= now:
            return Status.SUPERSEDED
        return Status.CURRENT

    def is_current(self, now: datetime) -> bool:
        """Whether the memory is neither superseded nor forgotten as of ``now``."""
        return self.status(now) is Status.CURRENT


DEFAULT_USER = "default"
"""The user every verb acts for when none is named (``SALIENCE_USER`` changes it)."""


class AllUsers:
    """The type of :data:`ALL_USERS` (one instance)."""

    def __repr__(self) -> str:
        return "ALL_USERS"


ALL_USERS = AllUsers()
"""Pass as ``user=`` to act across every user's memories: an explicit capability, separately
named, for administrators and backups. Any other ``user=`` names one user, and a verb then
sees that user's memories only (another user's id is "not found")."""

UserScope = str | AllUsers | None
"""What a verb's ``user=`` takes: a user's name, :data:`ALL_USERS`, or None (the default)."""


LOCAL_LAYER = "local"
"""The layer every write goes to: the store's own memories."""

LAYER_KINDS = ("shared", "base")
"""Read-only layers: ``shared`` (a sibling project's or a team's store) and ``base``
(an imported knowledge pack)."""


FIELD_NAMES = tuple(f.name for f in fields(MemoryRecord))
TIME_FIELDS = ("created_at", "updated_at", "last_accessed_at", "valid_until")
LIST_FIELDS = ("tags", "entities", "derived_from")


def relabel(record: MemoryRecord, layer: str) -> MemoryRecord:
    """The record as read through a layer: the same fields, ``layer`` set to its name."""
    copy = object.__new__(MemoryRecord)
    copy.__dict__.update(record.__dict__)
    copy.__dict__["layer"] = layer
    return copy
