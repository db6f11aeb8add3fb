"""The verbs a memory answers on every face: :class:`Verbs`, which both
:class:`salience.Memory` (in process) and :class:`salience.Client` (over HTTP) satisfy, as
mypy checks (``salience/__init__.py``). Code written against it runs on either: the same
arguments, the same return types, the same errors. (An evaluation is above the engine:
``salience.evaluation.evaluate(memory, ...)`` in process, ``Client.evaluate`` over HTTP.)"""

from __future__ import annotations

import builtins
from collections.abc import Callable, Iterable, Iterator
from datetime import datetime
from pathlib import Path
from typing import Any, Protocol, TextIO

from salience.models import (
    AuditEntry,
    Briefing,
    BriefingLog,
    ConsolidationReport,
    DayCount,
    Decision,
    Grant,
    ImportResult,
    Job,
    LayerMount,
    MaintenanceReport,
    MemoryGraph,
    MemoryRecord,
    MigrationReport,
    PackIdentity,
    PackImport,
    PackManifest,
    Recalled,
    Session,
    SessionStart,
    Space,
    Stats,
    UpdateLink,
    WriteResult,
)
from salience.scores import ContextScore


class Verbs(Protocol):
    """What a memory answers, in process or over HTTP (the user is the client's key's, or
    the library's configured one)."""

    def activity(self, *, days: int = 30) -> builtins.list[DayCount]:
        """Memories created per UTC day, the last ``days`` days, oldest first."""
        ...

    def briefing(
        self,
        profile: str | None = None,
        *,
        project: str | None = None,
        session_id: str | None = None,
        budget: int | None = None,
        as_of: datetime | None = None,
        space: str | None = None,
    ) -> Briefing:
        """The text to inject at session start, with its manifest."""
        ...

    def spaces(self) -> builtins.list[Space]:
        """The spaces the user has a right on, each with that right."""
        ...

    def create_space(self, name: str, *, keep_contributions: bool = False) -> Space:
        """Make a space; the user is its first admin."""
        ...

    def set_space(self, name: str, *, keep_contributions: bool) -> Space:
        """Whether an erased member's contributions stay (an admin's)."""
        ...

    def delete_space(self, name: str) -> dict[str, Any]:
        """Delete a space and every memory in it (an admin's); the receipt."""
        ...

    def space_members(self, name: str) -> builtins.list[Grant]:
        """Who has which right on a space."""
        ...

    def grant(self, name: str, member: str, right: str) -> Grant:
        """Give a user a right on a space (an admin's)."""
        ...

    def revoke(self, name: str, member: str) -> bool:
        """Take a user's right on a space away (an admin's)."""
        ...

    def consolidate(
        self, *, dry_run: bool = False, as_of: datetime | None = None
    ) -> ConsolidationReport:
        """Groups of 3+ tag-sharing observations become insights."""
        ...

    def derived_from_this(self, memory_id: str) -> builtins.list[MemoryRecord]:
        """The insights derived from a memory."""
        ...

    def briefing_log(self, *, limit: int = 50) -> BriefingLog:
        """What each session was given and what became of it (newest first)."""
        ...

    def entities(
        self, *, project: str | None = None, top: int | None = None
    ) -> builtins.list[tuple[str, int]]:
        """Entities named by current memories, with how many mention each."""
        ...

    def export_lines(self, *, space: str | None = None) -> Iterator[str]:
        """The user's memories (a space's: its admin's) as JSON Lines."""
        ...

    def feedback(self, memory_id: str, *, used: bool) -> WriteResult:
        """The memory helped (echo) or did not (fizzle)."""
        ...

    def forget(self, memory_id: str, reason: str = "forgotten on request") -> WriteResult:
        """Forget a memory softly."""
        ...

    def quarantined(self) -> builtins.list[MemoryRecord]:
        """The memories held in quarantine (orders to the agent from below the user)."""
        ...

    def approve(self, memory_id: str) -> WriteResult:
        """Let a held memory into briefings."""
        ...

    def reject(self, memory_id: str) -> WriteResult:
        """Forget a held memory."""
        ...

    def stale(self) -> builtins.list[MemoryRecord]:
        """The memories derived from one that changed since."""
        ...

    def confirm(self, memory_id: str) -> WriteResult:
        """A stale memory is still true: clear its mark."""
        ...

    def get(self, memory_id: str) -> MemoryRecord:
        """One memory, whatever its status."""
        ...

    def graph(
        self, *, limit: int = 500, type: str | None = None, project: str | None = None
    ) -> MemoryGraph:
        """The newest ``limit`` memories, their entities and the links among them."""
        ...

    def history(self, memory_id: str) -> builtins.list[MemoryRecord]:
        """The version chain, newest first."""
        ...

    def import_(self, lines: Iterable[str]) -> ImportResult:
        """Import JSON Lines, all or nothing."""
        ...

    def list(
        self,
        *,
        project: str | None = None,
        type: str | None = None,
        tags: Iterable[str] = (),
        session_id: str | None = None,
        entity: str | None = None,
        include_superseded: bool = False,
        include_forgotten: bool = False,
        limit: int | None = None,
        offset: int = 0,
        space: str | None = None,
        agent: str | None = None,
    ) -> builtins.list[MemoryRecord]:
        """The user's memories (a space's), newest first (every page up to ``limit``)."""
        ...

    def log(
        self,
        memory_id: str | None = None,
        *,
        limit: int | None = None,
        space: str | None = None,
        agent: str | None = None,
    ) -> builtins.list[AuditEntry]:
        """The user's part of the audit log, newest first."""
        ...

    def maintain(
        self, *, dry_run: bool = False, as_of: datetime | None = None
    ) -> MaintenanceReport:
        """Decay, retention and index cleaning (an admin key, or local mode)."""
        ...

    def purge(self, memory_id: str) -> WriteResult:
        """Delete a memory for good."""
        ...

    def rank(
        self,
        profile: str | None = None,
        *,
        project: str | None = None,
        as_of: datetime | None = None,
        limit: int | None = None,
    ) -> builtins.list[tuple[MemoryRecord, ContextScore]]:
        """Current memories by context score, best first."""
        ...

    def remember(
        self,
        content: str,
        *,
        profile: str | None = None,
        force: bool = False,
        space: str | None = None,
        **fields: Any,
    ) -> WriteResult:
        """Store a memory (see :meth:`salience.Memory.remember`)."""
        ...

    def search(
        self,
        query: str,
        limit: int = 10,
        *,
        profile: str | None = None,
        project: str | None = None,
        types: Iterable[str] = (),
        types_exclude: Iterable[str] = (),
        tags: Iterable[str] = (),
        as_of: datetime | None = None,
        touch: bool | None = None,
        space: str | None = None,
        agent: str | None = None,
    ) -> Recalled:
        """Recall memories for a query (the user's and every space it reads), each hit
        explained, and how the recall ran short (``degraded``), if it did."""
        ...

    def session_end(self, summary: str) -> WriteResult:
        """Close the user's session with a summary."""
        ...

    def session_start(self, *, profile: str | None = None) -> SessionStart:
        """Resume or open the user's session."""
        ...

    def updates(self, *, state: str = "open") -> builtins.list[UpdateLink]:
        """The user's update links in ``state`` (open, confirmed, dismissed, all)."""
        ...

    def confirm_update(self, new_id: str, old_id: str) -> WriteResult:
        """The newer memory replaces the older (a supersession)."""
        ...

    def dismiss_update(self, new_id: str, old_id: str) -> UpdateLink:
        """Not an update: the pair is never found again."""
        ...

    def stats(self) -> Stats:
        """Counts of the user's memories."""
        ...

    def supersede(self, old_id: str, content: str, **fields: Any) -> WriteResult:
        """Replace a memory with a new version."""
        ...

    def update(self, memory_id: str, **changes: Any) -> WriteResult:
        """Change fields of a memory in place."""
        ...

    # -- beyond memories: decisions, sessions, layers, packs, reindexing ------------------------

    def current_session(self) -> Session | None:
        """The user's open session if it was active in the last 24 h."""
        ...

    def decide(
        self, topic: str, decision: str, *, rationale: str | None = None, precedence: int = 0
    ) -> WriteResult:
        """Record the decision on a topic; a current one is superseded."""
        ...

    def decision(self, topic: str) -> Decision:
        """The current decision on a topic."""
        ...

    def decision_history(self, topic: str) -> builtins.list[Decision]:
        """Every decision on a topic, oldest first."""
        ...

    def decisions(self) -> builtins.list[Decision]:
        """The current decision of every topic."""
        ...

    def duplicate_of(self, content: str) -> MemoryRecord | None:
        """The current memory with this content, if any."""
        ...

    def export(self, out: TextIO, *, space: str | None = None) -> int:
        """The user's memories (a space's: its admin's) as JSON Lines into ``out``; how many."""
        ...

    def export_pack(
        self,
        path: str | Path,
        *,
        tags: Iterable[str] = (),
        type: str | None = None,
        project: str | None = None,
        key: bytes | None = None,
        identity: PackIdentity | None = None,
        space: str | None = None,
    ) -> PackManifest:
        """The user's current memories matching the filters as a pack file."""
        ...

    def import_from(
        self,
        system: str,
        path: str | Path,
        *,
        dry_run: bool = False,
        progress: Callable[[int, int], None] | None = None,
    ) -> MigrationReport:
        """Bring another memory system's store or export over, all or nothing."""
        ...

    def import_pack(
        self,
        path: str | Path,
        *,
        mount_as: str | None = None,
        name: str | None = None,
        key: bytes | None = None,
        progress: Callable[[int, int], None] | None = None,
    ) -> PackImport:
        """Import a pack file (or mount it as a layer)."""
        ...

    def layers(self) -> builtins.list[LayerMount]:
        """The read-only layers mounted beside the store."""
        ...

    def mount(self, path: str | Path, *, kind: str, name: str | None = None) -> LayerMount:
        """Mount another store read-only as a layer."""
        ...

    def reindex(self, *, progress: Callable[[int, int], None] | None = None) -> int:
        """Embed every memory that lacks a vector."""
        ...

    def unavailable_layers(self) -> dict[str, str]:
        """Mounted layers that cannot be opened now (name -> why)."""
        ...

    def unmount(self, name: str) -> LayerMount:
        """Stop searching a mounted layer."""
        ...

    # -- running the store: jobs, erasure, an evaluation's probes ----------------------------

    def job(self, job_id: str) -> Job:
        """The job with this id as it stands."""
        ...

    def jobs(self, *, limit: int = 50) -> builtins.list[Job]:
        """The user's jobs, newest first."""
        ...

    def cancel_job(self, job_id: str) -> Job:
        """Ask a job to stop."""
        ...

    def erase_user(self, user: str) -> dict[str, Any]:
        """Erase everything ``user`` ever stored; the receipt."""
        ...
