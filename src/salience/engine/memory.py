"""The engine: :class:`Memory`, the one object every face (CLI, MCP, HTTP) calls.

It validates input, keeps the bookkeeping fields (ids, timestamps, counters, supersession)
right, and delegates persistence to a :class:`~salience.stores.base.Store`. The verbs live in
groups: reads and sessions here; opening a store and briefings in :mod:`.briefs`; writes in
:mod:`.writes`; recall in :mod:`.recall`; feedback, maintenance and consolidation in
:mod:`.lifecycle`; export, import, layers and packs in :mod:`.sharing`. Their shared state
and helpers are :mod:`.core`.
"""

from __future__ import annotations

import builtins
from collections.abc import Callable, Iterable
from dataclasses import replace
from datetime import UTC, datetime, time, timedelta
from typing import TYPE_CHECKING

from salience.briefing.ranking import ranked_ids
from salience.briefing.sessions import (
    RECENT_SUMMARIES,
    START_MEMORIES,
    SUMMARY_TYPE,
    automatic_summary,
    is_stale,
)
from salience.engine.briefs import Briefs
from salience.engine.catalog import Catalog
from salience.engine.decisions import Decisions
from salience.engine.dependents import versions
from salience.engine.erasure import Erasure
from salience.engine.jobs import Jobs
from salience.engine.keys import Keys
from salience.engine.lifecycle import Lifecycle
from salience.engine.quarantine import Quarantine
from salience.engine.reading import person_reads
from salience.engine.recall import Recall
from salience.engine.scrubbing import ERASURE_PENDING
from salience.engine.sharing import Sharing
from salience.engine.spaces import Spaces
from salience.engine.staleness import Staleness
from salience.engine.writes import rejection
from salience.errors import (
    ConflictError,
    InvalidInputError,
)
from salience.ids import new_ulid
from salience.models import (
    AuditEntry,
    DayCount,
    GraphEdge,
    MemoryGraph,
    MemoryRecord,
    Outcome,
    Session,
    SessionStart,
    Stats,
    UserScope,
    WriteResult,
)
from salience.models.spaces import READ
from salience.scores import ContextScore
from salience.stores.base import MemoryFilter
from salience.write.authority import decide
from salience.write.records import (
    build_record,
    validate_content,
)

if TYPE_CHECKING:
    pass


class Memory(
    Decisions,
    Quarantine,
    Erasure,
    Staleness,
    Recall,
    Lifecycle,
    Sharing,
    Jobs,
    Briefs,
    Keys,
    Catalog,
    Spaces,
):
    """A memory store with the verbs agents need: remember, search, update, supersede, forget."""

    @person_reads
    def list(
        self,
        *,
        user: UserScope = None,
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
    ) -> list[MemoryRecord]:
        """The user's memories matching every given filter, newest first (``offset`` of them
        skipped, for paging); a space's with ``space`` (the user reads it); only those an
        agent wrote with ``agent``."""
        if limit is not None and limit < 1:
            raise InvalidInputError("limit must be at least 1", field="limit")
        if offset < 0:
            raise InvalidInputError("offset must not be negative", field="offset")
        flt = MemoryFilter(
            as_of=self.now(),
            user=self._acting_on(self._scope(user), space, READ),
            agent=agent,
            project=project,
            type=type,
            tags=tuple(tags),
            session_id=session_id,
            entity=entity,
            include_superseded=include_superseded,
            include_forgotten=include_forgotten,
        )
        return self._store.list(flt, limit, offset)

    @person_reads
    def rank(
        self,
        profile: str | None = None,
        *,
        user: UserScope = None,
        project: str | None = None,
        as_of: datetime | None = None,
        limit: int | None = None,
    ) -> builtins.list[tuple[MemoryRecord, ContextScore]]:
        """The user's current, enabled memories by the profile's context score, best first
        (ties by id)."""
        if limit is not None and limit < 1:
            raise InvalidInputError("limit must be at least 1", field="limit")
        return self._ranked(profile, self._scope(user), project, self._at(as_of), limit)

    def _ranked(
        self,
        profile: str | None,
        user: str | None,
        project: str | None,
        now: datetime,
        limit: int | None,
        exclude_types: tuple[str, ...] = (),
    ) -> builtins.list[tuple[MemoryRecord, ContextScore]]:
        """:meth:`rank`, ordered on columns (salience.briefing.ranking); the memories shown
        are read and scored as records (the same values: the column scorers are exact)."""
        rules = self.profile(profile)
        every = MemoryFilter(as_of=now, include_superseded=True, include_forgotten=True)
        for attempt in range(3):
            columns = self._briefings.local(user)
            ids = ranked_ids(
                columns,
                lambda c: rules.context_scores(c, now, self._settings),
                now,
                project=project,
                exclude_types=exclude_types,
                limit=limit,
            )
            records = {r.id: r for r in self._store.get_many(ids, every)}
            if len(records) == len(ids) or attempt == 2:
                break  # else one was deleted meanwhile: look again
        shown = [records[i] for i in ids if i in records]
        return [(r, rules.context_score(r, now, self._settings)) for r in shown]

    def session_start(
        self, user: UserScope = None, *, profile: str | None = None, as_of: datetime | None = None
    ) -> SessionStart:
        """Reuse the user's session if active in the last 24 h, else close it and open one."""
        user = self._one_user(user, "a session")
        now = self._at(as_of)
        closed = None
        with self._store.transaction():
            session = self._store.open_session(user)
            if session is not None and not is_stale(session, now):
                session = replace(session, last_active_at=now)
                self._store.save_session(session)
                is_new = False
            else:
                if session is not None:
                    members = self._store.list(MemoryFilter(as_of=now, session_id=session.id), None)
                    self._close(session, automatic_summary(session, members), "system", now)
                    closed = session.id
                session = Session(new_ulid(now), user, now, now)
                self._store.save_session(session)
                is_new = True
        summaries = self._store.list(
            MemoryFilter(as_of=now, user=user, type=SUMMARY_TYPE), RECENT_SUMMARIES
        )
        ranked = self._ranked(profile, user, None, now, START_MEMORIES, (SUMMARY_TYPE,))
        return SessionStart(session.id, is_new, tuple(summaries), tuple(ranked), closed)

    def current_session(self, *, user: UserScope = None) -> Session | None:
        """The user's open session if it was active in the last 24 h (what a write made
        now belongs to), else None."""
        session = self._store.open_session(self._one_user(user, "a session"))
        return None if session is None or is_stale(session, self.now()) else session

    def session_end(
        self, summary: str, *, user: UserScope = None, as_of: datetime | None = None
    ) -> WriteResult:
        """Close the user's open session with a summary (stored as a ``summary`` memory)."""
        user = self._one_user(user, "a session")
        validate_content(summary, self._config.max_content_bytes)
        from salience.write.gates.pipeline import screen  # (the gates compile on first use)

        screened = screen(summary)
        if screened.rejected:
            with self._store.transaction():
                return self._rejected(rejection(screened), "agent", user)
        now = self._at(as_of)
        with self._store.transaction():
            session = self._store.open_session(user)
            if session is None:
                raise ConflictError(f"user {user!r} has no open session; start one first")
            record = self._close(session, screened.content, "agent", now)
        return WriteResult(Outcome.CREATED, record.id, record=record)

    def _close(self, session: Session, summary: str, source: str, now: datetime) -> MemoryRecord:
        values = {
            "id": new_ulid(now),
            "type": SUMMARY_TYPE,
            "user": session.user,
            "source": source,
            "session_id": session.id,
            "tags": [f"session:{session.id}"],
            "created_at": now,
            "updated_at": now,
        }
        record = build_record(summary, max_bytes=self._config.max_content_bytes, values=values)
        words = summary if source != "system" else None  # (salience's own summary: no order)
        decision = decide("summary", None, record, words=words)
        self._authority.write(decision)
        record = decision.after or record
        self._put_vector(record.id, self._embed_one(record.content))
        self._audit(
            "create", record.id, source, session.user, type=SUMMARY_TYPE, session=session.id
        )
        self._store.save_session(replace(session, ended_at=now, summary_id=record.id))
        return record

    @person_reads
    def entities(
        self, *, user: UserScope = None, project: str | None = None, top: int | None = None
    ) -> builtins.list[tuple[str, int]]:
        """Entities named by the user's current memories, with how many mention each."""
        if top is not None and top < 1:
            raise InvalidInputError("top must be at least 1", field="top")
        flt = MemoryFilter(as_of=self.now(), user=self._scope(user), project=project)
        return self._store.entity_counts(flt, top)

    @person_reads
    def history(self, memory_id: str, *, user: UserScope = None) -> builtins.list[MemoryRecord]:
        """The whole supersession chain this memory belongs to, newest first (cycle-safe);
        only its owner's versions (a chain never crosses users)."""
        return versions(self._store, self.get(memory_id, user=user))

    @person_reads
    def log(
        self,
        memory_id: str | None = None,
        *,
        limit: int | None = None,
        user: UserScope = None,
        space: str | None = None,
        agent: str | None = None,
    ) -> builtins.list[AuditEntry]:
        """The user's part of the audit log, newest first; one memory's entries with
        ``memory_id``; a space's with ``space`` (the user reads it); those an agent made with
        ``agent``. With :data:`ALL_USERS`, every entry (the store's own too: mounts)."""
        if limit is not None and limit < 1:
            raise InvalidInputError("limit must be at least 1", field="limit")
        owner = self._acting_on(self._scope(user), space, READ)
        if agent is None:
            return self._store.audit_entries(memory_id, limit, owner)
        made = [e for e in self._store.audit_entries(memory_id, None, owner) if _by(e, agent)]
        return made if limit is None else made[:limit]

    @person_reads
    def stats(self, *, user: UserScope = None) -> Stats:
        """Counts of the user's memories (every user's with :data:`ALL_USERS`) by status, type,
        user and project."""
        stats = self._store.stats(self.now(), self._scope(user))
        return replace(stats, erasure_pending=self._store.get_meta(ERASURE_PENDING))

    @person_reads
    def activity(self, *, days: int = 30, user: UserScope = None) -> builtins.list[DayCount]:
        """Memories created per UTC day (every status), the last ``days`` days, oldest first,
        days without one included: one aggregate query, whatever the store's size."""
        if not 1 <= days <= 3660:
            raise InvalidInputError("days must be between 1 and 3660", field="days")
        today = self.now().astimezone(UTC).date()
        first = today - timedelta(days=days - 1)
        since = datetime.combine(first, time(), UTC)
        counts = self._store.created_per_day(since, self._scope(user))
        return [
            DayCount(day, counts.get(day.isoformat(), 0))
            for day in (first + timedelta(days=n) for n in range(days))
        ]

    @person_reads
    def graph(
        self,
        *,
        user: UserScope = None,
        limit: int = 500,
        type: str | None = None,
        project: str | None = None,
    ) -> MemoryGraph:
        """The newest ``limit`` memories (superseded ones too), the entities they name, and
        the version chains, derived-from links and mentions among them."""
        records = self.list(
            user=user, type=type, project=project, include_superseded=True, limit=limit
        )
        shown = {r.id for r in records}
        entities: dict[str, str] = {}
        edges: builtins.list[GraphEdge] = []
        for r in records:
            for name in r.entities:
                key = "entity:" + name.casefold()
                entities.setdefault(key, name)
                edges.append(GraphEdge(r.id, key, "mentions"))
            if r.parent_id in shown:
                edges.append(GraphEdge(r.id, r.parent_id, "supersedes"))
            edges += [GraphEdge(r.id, d, "derived_from") for d in r.derived_from if d in shown]
        return MemoryGraph(tuple(records), entities, tuple(edges))

    def reindex(self, *, progress: Callable[[int, int], None] | None = None) -> int:
        """Embed every memory that lacks a vector; after an embedder change, all of them."""
        return self.vectors.reindex(progress=progress)

    def repair_text(self) -> int:
        """Add to the full-text index every memory it lacks (a stale or damaged index: recall
        says so, as ``full_text_stale``), and drop its rows of no memory; how many it added.
        The rows are not changed: only the index built from them."""
        return self._store.repair_text()


def _by(entry: AuditEntry, agent: str) -> bool:
    """Whether an audit entry records a change that agent made."""
    return isinstance(entry.detail, dict) and entry.detail.get("agent") == agent
