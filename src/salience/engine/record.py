"""The record of recalls and briefings, and what followed them (:mod:`salience.stores.traces`).

On by default, local to the store, off with ``SALIENCE_RECORD=0``. Each recall that counts
(``touch``: not an evaluation, not a search ``as_of`` another time) and each briefing given to
a session is kept: query, profile, the ids with rank and score (kept and best dropped ones
with reasons, for a briefing). A query holding a secret is kept without its text. Later
feedback on a memory (echo, fizzle, use), an update or supersede of it, and a recall that
finds it again, are linked to the newest trace of its user that surfaced it in the session,
and to the briefing that opened the session if it gave the memory (a session: since the
user's newest briefing, at most a day back).
Traces older than ``SALIENCE_RECORD_DAYS`` (90) go; ``erase --user`` takes a user's, and a
purge takes every trace that surfaced the purged memory (its query may quote it).

Writing a trace never makes a recall wait: it goes through the same queue as access counts.
"""

from __future__ import annotations

import builtins
import threading
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from contextvars import ContextVar
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from salience.briefing.manifest import Manifest, best_dropped
from salience.engine.core import EngineCore
from salience.engine.reading import person_reads
from salience.ids import new_ulid
from salience.models import UserScope
from salience.profiles.base import ProfileSettings
from salience.stores.traces import BRIEFING, RECALL

if TYPE_CHECKING:
    from salience.embeddings.arrays import Vector
    from salience.models import Briefing, Feedback, Hit, Trace
    from salience.models.traces import BriefingLog

SETTINGS: ContextVar[ProfileSettings | None] = ContextVar("salience_eval_settings", default=None)
"""Profile settings a search uses instead of the engine's (an evaluation's alternative)."""
FULL_TEXT_ONLY: ContextVar[bool] = ContextVar("salience_eval_full_text", default=False)
"""A search leaves vectors out, as with no embedder (an evaluation's alternative)."""
QUERY_VECTORS: ContextVar[Mapping[str, Vector] | None] = ContextVar(
    "salience_eval_query_vectors", default=None
)
"""Query vectors made beforehand, by query text (an evaluation embeds its probes at once)."""
LINK_WINDOW = timedelta(days=1)
"""Feedback links to a trace that surfaced the memory at most this long before."""
DROPPED_KEPT = 20
"""A briefing's trace keeps this many of the best memories it dropped, with their reasons."""
PRUNE_EVERY = timedelta(hours=1)
HELPED = frozenset({"echo", "used", "recalled", "updated", "superseded"})
"""Feedback that says a surfaced memory was of use."""


class Recording(EngineCore):
    """Keeps the record, links feedback to it, reads it back."""

    _pruned_at: datetime | None = None
    _prune_lock = threading.Lock()

    def _recording(self) -> bool:
        return self._config.record and not self._store.read_only

    def _keep(self, write: Callable[[], None], now: datetime) -> None:
        """Run ``write`` on the queue's thread (a recall never waits for it); prune traces
        older than ``record_days`` at most once an hour (of the engine's clock)."""
        self._records.later(write)
        with self._prune_lock:
            due = self._pruned_at is None or now - self._pruned_at >= PRUNE_EVERY
            if due:
                self._pruned_at = now
        if due:
            before = now - timedelta(days=self._config.record_days)
            self._records.later(lambda: self._store.delete_traces(before=before))

    def _record_recall(
        self, query: str, profile: str, user: str, hits: builtins.list[Hit], now: datetime
    ) -> None:
        """Keep one recall (inside ``search``; nothing waits for the write): the trace, and a
        ``recalled`` link for each hit an earlier trace of the day surfaced."""
        from salience.models.traces import Trace, TraceHit

        if not self._recording():
            return
        rows = tuple(
            TraceHit(h.record.id, h.rank, h.score) for h in hits if h.record.layer == "local"
        )
        if not rows:  # nothing surfaced: nothing to learn from, nothing to link
            return
        from salience.write.gates.secrets import first_secret  # (its patterns: on first use)

        said = None if first_secret(query) is not None else query.replace("\x00", "")
        store, records = self._store, self._records

        def write() -> None:
            session = store.open_session(user)
            trace = Trace(
                new_ulid(now),
                user,
                now,
                RECALL,
                profile,
                said,
                None if session is None else session.id,
                hits=rows,
            )
            again = self._links(user, [h.memory_id for h in rows], "recalled", now)
            with records.writes():
                store.save_traces([trace])
                store.save_feedback(again)

        self._keep(write, now)

    def _record_briefing(
        self,
        briefing: Briefing,
        user: str,
        session_id: str | None,
        budget: int | None,
        now: datetime,
    ) -> None:
        """Keep one briefing given to a session."""
        if not self._recording():
            return
        trace_id = new_ulid(now)

        def write() -> None:  # (on the queue's thread: the briefing is answered already)
            from salience.models.traces import Trace, TraceHit

            manifest = briefing.manifest
            kept = (
                manifest.kept if isinstance(manifest, Manifest) else [e for e in manifest if e.kept]
            )
            dropped = best_dropped(manifest, DROPPED_KEPT)
            order = {memory_id: rank for rank, memory_id in enumerate(briefing.kept_ids, 1)}
            hits = tuple(
                TraceHit(e.id, order.get(e.id, 0), e.score, None, e.section) for e in kept
            ) + tuple(TraceHit(e.id, 0, e.score, e.reason) for e in dropped)
            trace = Trace(
                trace_id,
                user,
                now,
                BRIEFING,
                briefing.profile,
                None,
                session_id,
                briefing.tokens,
                budget,
                hits,
            )
            with self._records.writes():
                self._store.save_traces([trace])

        self._keep(write, now)

    def _link(self, memory_id: str, user: str, kind: str) -> None:
        """Link what just happened to ``memory_id`` to the trace that surfaced it, if any."""
        if not self._recording():
            return
        now = self.now()
        store = self._store

        def write() -> None:
            links = self._links(user, [memory_id], kind, now)
            if links:
                with self._records.writes():
                    store.save_feedback(links)

        self._records.later(write)

    def _links(
        self, user: str, memory_ids: Sequence[str], kind: str, now: datetime
    ) -> builtins.list[Feedback]:
        """``kind`` on each of ``memory_ids``, linked to the newest trace of the session that
        surfaced it, and to the briefing that opened the session if it gave the memory. The
        session: since the user's newest briefing, at most :data:`LINK_WINDOW` back (a
        briefing is given at session start: what follows the next one is another session's)."""
        from salience.models.traces import Feedback

        since = now - LINK_WINDOW
        opened = self._store.traces(user, kind=BRIEFING, since=since, limit=1)
        if opened:
            since = opened[0].at
        newest = self._store.traces_surfacing(user, memory_ids, since)
        links = [Feedback(t, m, kind, now) for m, t in newest.items()]
        if opened:
            given = {h.memory_id for h in opened[0].hits if h.reason is None}
            links += [
                Feedback(opened[0].id, m, kind, now)
                for m in memory_ids
                if m in given and newest.get(m) != opened[0].id
            ]
        return links

    def record(
        self, *, user: UserScope = None, kind: str | None = None, limit: int | None = 100
    ) -> builtins.list[Trace]:
        """The user's recorded recalls and briefings, newest first (everyone's with
        ALL_USERS; all of them with ``limit`` None)."""
        self._records.flush()
        return self._store.traces(self._scope(user), kind=kind, limit=limit)

    @person_reads
    def briefing_log(self, *, user: UserScope = None, limit: int = 50) -> BriefingLog:
        """What each session was given, and what became of each memory in that session."""
        from salience.models.traces import BriefedMemory, BriefingLog, BriefingLogEntry

        self._records.flush()
        scope = self._scope(user)
        given = self._store.traces(scope, kind=BRIEFING, limit=limit)
        feedback: dict[str, builtins.list[Feedback]] = {}
        for item in self._store.feedback_of([t.id for t in given]):
            feedback.setdefault(item.trace_id, []).append(item)
        entries = []
        briefed: Counter[str] = Counter()
        helped: Counter[str] = Counter()
        for trace in given:
            kinds: dict[str, builtins.list[str]] = {}
            for item in feedback.get(trace.id, []):
                kinds.setdefault(item.memory_id, []).append(item.kind)
            memories = tuple(
                BriefedMemory(h.memory_id, h.section, tuple(kinds.get(h.memory_id, ())))
                for h in sorted(trace.hits, key=lambda h: h.rank)
                if h.reason is None
            )
            for m in memories:
                briefed[m.memory_id] += 1
                helped[m.memory_id] += bool(HELPED.intersection(m.feedback))
            entries.append(
                BriefingLogEntry(
                    trace.id,
                    trace.at,
                    trace.profile,
                    trace.session_id,
                    trace.tokens,
                    trace.budget,
                    memories,
                )
            )
        return BriefingLog(tuple(entries), dict(briefed), dict(helped))
