"""The values salience passes around: memory records, write outcomes, stats (and, from
:mod:`salience.models.hits`, search hits).

All are frozen dataclasses. Embeddings are stored beside a record, never inside it.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from datetime import date, datetime
from enum import StrEnum
from typing import TYPE_CHECKING, Any

from salience.models.briefings import NOTES as NOTES
from salience.models.briefings import BriefedMemory as BriefedMemory
from salience.models.briefings import Briefing as Briefing
from salience.models.briefings import BriefingLog as BriefingLog
from salience.models.briefings import BriefingLogEntry as BriefingLogEntry
from salience.models.briefings import BriefingSection as BriefingSection
from salience.models.briefings import Feedback as Feedback
from salience.models.briefings import ManifestEntry as ManifestEntry
from salience.models.briefings import SessionStart as SessionStart
from salience.models.briefings import Trace as Trace
from salience.models.briefings import TraceHit as TraceHit
from salience.models.briefings import estimate_tokens as estimate_tokens
from salience.models.hits import Degraded as Degraded
from salience.models.hits import Hit as Hit
from salience.models.hits import Learned as Learned
from salience.models.hits import Recalled as Recalled
from salience.models.hits import Relevance as Relevance
from salience.models.hits import Terms as Terms
from salience.models.provenance import CEILING as CEILING
from salience.models.provenance import PERSON as PERSON
from salience.models.provenance import SOURCES as SOURCES
from salience.models.provenance import TRUST as TRUST
from salience.models.provenance import channel as channel
from salience.models.provenance import is_person as is_person
from salience.models.provenance import standing as standing
from salience.models.spaces import Grant as Grant
from salience.models.spaces import Space as Space
from salience.models.spaces import space_of as space_of

if TYPE_CHECKING:
    from salience.models.evaluation import EvalReport as EvalReport
    from salience.models.evaluation import Metrics as Metrics
    from salience.models.evaluation import Moved as Moved
    from salience.models.evaluation import Probe as Probe
    from salience.models.evaluation import Run as Run
    from salience.models.evaluation import Variant as Variant
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

# Reports and evaluation values are read by a few verbs only: imported when first asked for
# (a cold `salience briefing` no longer builds their classes).
_LAZY = {
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


@dataclass(frozen=True)
class UpdateLink:
    """A newer memory found to change what an older one says (``why``: the shared subject,
    the values that differ, the words of change), ``open`` until a person confirms it (a
    supersession) or dismisses it; ``confirmed`` at once by the ``supersede`` policy."""

    new_id: str
    old_id: str
    user: str
    confidence: float
    why: str
    state: str
    found_at: datetime
    decided_at: datetime | None = None


@dataclass(frozen=True)
class WriteResult:
    """The outcome of one write, with the id concerned; ``reason`` and ``gate`` when rejected;
    ``updates``: the older memories a new one was found to change."""

    outcome: Outcome
    id: str | None
    reason: str | None = None
    gate: str | None = None
    record: MemoryRecord | None = None
    notes: tuple[str, ...] = ()  # what the pipeline did on the way (redacted, gate bypassed)
    updates: tuple[UpdateLink, ...] = ()

    @property
    def ok(self) -> bool:
        """Whether the write was accepted (anything but ``rejected``)."""
        return self.outcome is not Outcome.REJECTED


@dataclass(frozen=True)
class ImportResult:
    """What an import did: how many records were created, replaced, or already identical,
    and how many of them were given ids of the importer's own (``renamed``: their ids could
    not be theirs; see :meth:`salience.Memory.import_`)."""

    created: int = 0
    updated: int = 0
    unchanged: int = 0
    renamed: int = 0

    @property
    def total(self) -> int:
        """Records read from the input."""
        return self.created + self.updated + self.unchanged


@dataclass(frozen=True)
class AuditEntry:
    """One change in the audit log: when, to which memory, what, by whom, and the details."""

    at: datetime
    memory_id: str | None
    action: str
    actor: str
    detail: dict[str, Any] = field(default_factory=dict)
    seq: int = 0
    user: str | None = None  # whose memory (or write) it concerns; None: the store's own


@dataclass(frozen=True)
class DayCount:
    """How many memories were created on one UTC day."""

    day: date
    created: int


@dataclass(frozen=True)
class GraphEdge:
    """A link of :class:`MemoryGraph`: ``source`` mentions, supersedes or is derived from
    ``target`` (``relation``: ``mentions``, ``supersedes``, ``derived_from``)."""

    source: str
    target: str
    relation: str


@dataclass(frozen=True)
class MemoryGraph:
    """Memories, the entities they name (node id ``entity:<name folded>`` -> the name as
    first written), and the links between them that fall inside the graph."""

    memories: tuple[MemoryRecord, ...]
    entities: dict[str, str]
    edges: tuple[GraphEdge, ...]


@dataclass(frozen=True)
class Stats:
    """A summary of a store."""

    path: str
    schema: str
    total: int
    by_status: dict[str, int] = field(default_factory=dict)
    by_type: dict[str, int] = field(default_factory=dict)
    by_user: dict[str, int] = field(default_factory=dict)
    by_project: dict[str, int] = field(default_factory=dict)
    size_bytes: int = 0
    erasure_pending: str | None = None  # since when a purge's scrub waits for readers


@dataclass(frozen=True)
class Session:
    """A working session of one user (ilab): open until ended or stale."""

    id: str
    user: str
    started_at: datetime
    last_active_at: datetime
    ended_at: datetime | None = None
    summary_id: str | None = None


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


@dataclass(frozen=True)
class LayerMount:
    """A read-only store mounted beside the local one, under a name."""

    name: str
    kind: str
    path: str
    mounted_at: datetime


FIELD_NAMES = tuple(f.name for f in fields(MemoryRecord))
TIME_FIELDS = ("created_at", "updated_at", "last_accessed_at", "valid_until")
LIST_FIELDS = ("tags", "entities", "derived_from")


def relabel(record: MemoryRecord, layer: str) -> MemoryRecord:
    """The record as read through a layer: the same fields, ``layer`` set to its name."""
    copy = object.__new__(MemoryRecord)
    copy.__dict__.update(record.__dict__)
    copy.__dict__["layer"] = layer
    return copy


@dataclass(frozen=True)
class ApiKey:
    """An API key of the HTTP server, as stored: its public id and the SHA-256 of its secret
    (the key itself is shown once, when made, and never stored)."""

    id: str
    secret_hash: str
    user: str
    read_only: bool
    admin: bool
    created_at: datetime
    revoked_at: datetime | None = None
    label: str | None = None
    source: str = "user"  # the highest source its writes may claim (salience.models)
    agent: str | None = None  # the agent its writes name
    spaces: tuple[tuple[str, str], ...] | None = None  # narrowed to these (space, right)


class JobState(StrEnum):
    """Where a job is: waiting its turn, running, or finished one way or the other."""

    QUEUED = "queued"
    RUNNING = "running"
    DONE = "done"
    FAILED = "failed"


@dataclass(frozen=True)
class Job:
    """Long work (an import, a consolidation, a reindex) run beside the requests that asked
    for it: how far it is (``done`` of ``total``), and when finished its ``result`` (the
    answer the verb gives, as the API shapes it) or its ``error`` (``kind``, ``message`` and
    any ``field`` or ``line``: never stored or refused text). ``updated_at`` is the heartbeat
    of the process running it (``owner``): one that stopped beating, or a process of this
    host that no longer runs, means it died before the job finished."""

    id: str
    user: str
    kind: str
    state: JobState
    created_at: datetime
    updated_at: datetime
    done: int = 0
    total: int = 0
    finished_at: datetime | None = None
    result: dict[str, Any] | None = None
    error: dict[str, Any] | None = None
    owner: str = ""  # the process running it: "host:pid"
