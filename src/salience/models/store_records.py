"""What a store keeps beside memories, and its reports: the audit log, counts by day, the
memory graph, stats, sessions, mounted layers, API keys, jobs, spaces and their grants.

Read by the verbs that ask for them (:mod:`salience.models` imports this module on first use):
a cold ``salience briefing`` builds none of these classes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, datetime
from enum import StrEnum
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from salience.models import MemoryRecord


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


@dataclass(frozen=True)
class LayerMount:
    """A read-only store mounted beside the local one, under a name."""

    name: str
    kind: str
    path: str
    mounted_at: datetime


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


@dataclass(frozen=True)
class Space:
    """A space of the store: its name, who made it, and whether a member's contributions
    stay (their author's name erased) when that member is erased."""

    name: str
    created_at: datetime
    created_by: str
    keep_contributions: bool = False
    right: str | None = None  # the asking user's right on it, where listed for a user


@dataclass(frozen=True)
class Grant:
    """A user's right on a space, and who gave it when."""

    space: str
    user: str
    right: str
    granted_at: datetime
    granted_by: str
