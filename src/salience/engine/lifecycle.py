"""Lifecycle verbs of :class:`~salience.engine.memory.Memory`: feedback, decay maintenance and
consolidation (rules in :mod:`salience.lifecycle.feedback`, :mod:`salience.lifecycle.maintenance`,
:mod:`salience.lifecycle.consolidation`)."""

from __future__ import annotations

import builtins
from dataclasses import replace
from datetime import datetime
from typing import TYPE_CHECKING, Any

from salience.errors import (
    InvalidInputError,
)
from salience.ids import new_ulid
from salience.lifecycle.consolidation import (
    BOOST_PER_MEMBER,
    BOOST_SIMILARITY,
    EXTRACTIVE,
    INSIGHT_CONFIDENCE,
    LLM,
    MIN_GROUP,
    ConsolidationReport,
    GroupPlan,
    group_by_tags,
    insight_importance,
    representative,
    summarize,
    union_tags,
)
from salience.lifecycle.feedback import apply_feedback
from salience.lifecycle.maintenance import (
    OBSERVATION,
    ImportanceChange,
    MaintenanceReport,
    decayed_importance,
    retention_due,
)
from salience.models import (
    MemoryRecord,
    Outcome,
    UserScope,
    WriteResult,
)
from salience.sharing.jsonl import CLOCK_SKEW
from salience.stores.base import MemoryFilter
from salience.write.entities import extract_entities
from salience.write.records import (
    build_record,
    with_changes,
)

if TYPE_CHECKING:
    from salience.lifecycle.llm import Summarizer

from salience.engine.core import EngineCore

DECAY_STEP = 5e-5
"""The smallest change of importance maintenance writes: half the last digit it prints."""


class Lifecycle(EngineCore):
    """How memories get better with use and age: feedback, maintenance, consolidation."""

    def feedback(self, memory_id: str, *, used: bool, user: UserScope = None) -> WriteResult:
        """Record whether a memory was used (echo) or not (fizzle).

        See :mod:`salience.lifecycle.feedback`.

        The result's reason says what changed (importance and confidence, before and after).
        """
        if not isinstance(used, bool):
            raise InvalidInputError("used must be true or false", field="used")
        with self._store.transaction():
            old = self._current(memory_id, "give feedback on", self._scope(user))
            now = self.now()
            new = apply_feedback(old, used=used, now=now)
            self._store.replace(new)
            self._store.set_importance_base(memory_id, new.importance, now)
            self._audit(
                "feedback",
                memory_id,
                "caller",
                old.user,
                used=used,
                importance=[old.importance, new.importance],
                confidence=[old.confidence, new.confidence],
            )
        kind = "echo (used)" if used else "fizzle (not used)"
        reason = (
            f"{kind}: importance {old.importance:.2f} -> {new.importance:.2f}, "
            f"confidence {old.confidence:.2f} -> {new.confidence:.2f}"
        )
        return WriteResult(Outcome.UPDATED, memory_id, reason=reason, record=new)

    def maintain(
        self, *, dry_run: bool = False, as_of: datetime | None = None
    ) -> MaintenanceReport:
        """Decay importance (FadeMem, idempotent), apply retention if configured, and clean
        orphaned index rows. ``dry_run`` reports the same plan and changes nothing.

        A change of importance under :data:`DECAY_STEP` is not written (it would not show;
        the next run computes from the same base anyway). An ``as_of`` in the future may
        only be previewed: it would decay importances ahead of time."""
        now = self._at(as_of)
        if not dry_run and now > self.now() + CLOCK_SKEW:
            raise InvalidInputError(
                "maintenance as of a future time would decay importances ahead of time; "
                "preview it with dry_run (--dry-run)",
                field="as_of",
            )
        decayed: builtins.list[ImportanceChange] = []
        forgotten: builtins.list[str] = []
        days = self._config.retention_days
        with self._store.transaction():
            records = self._store.list(MemoryFilter(as_of=now), None)
            bases = self._store.importance_bases()
            consolidated = {source for r in self._store.iter_all() for source in r.derived_from}
            for record in records:
                if record.layer != "local":
                    continue
                if (
                    record.type == OBSERVATION
                    and record.id not in consolidated
                    and retention_due(record.created_at, now, days)
                ):
                    forgotten.append(record.id)
                    if not dry_run:
                        reason = (
                            f"retention: observation older than {days} days, never consolidated"
                        )
                        gone = with_changes(record, {"forget_reason": reason})
                        self._store.replace(replace(gone, valid_until=now))
                        self._audit(
                            "retention", record.id, "maintenance", record.user, reason=reason
                        )
                    continue
                base, set_at = bases.get(record.id, (record.importance, record.created_at))
                value = decayed_importance(base, set_at, record.type, record.confidence, now)
                if abs(value - record.importance) >= DECAY_STEP:
                    decayed.append(ImportanceChange(record.id, record.importance, value))
                    if not dry_run:
                        if record.id not in bases:
                            self._store.set_importance_base(record.id, base, set_at)
                        self._store.replace(replace(record, importance=value))
                        self._audit(
                            "decay",
                            record.id,
                            "maintenance",
                            record.user,
                            importance=[record.importance, value],
                        )
            orphans = self._store.orphans(delete=not dry_run)
            if orphans and not dry_run:
                self._audit("orphans", None, "maintenance", None, removed=orphans)
        return MaintenanceReport(dry_run, tuple(decayed), tuple(forgotten), orphans)

    def consolidate(
        self, *, dry_run: bool = False, as_of: datetime | None = None, user: UserScope = None
    ) -> ConsolidationReport:
        """Turn groups of 3+ tag-sharing observations of the user (each user's apart with
        :data:`ALL_USERS`) into insights (see :mod:`salience.lifecycle.consolidation`);
        idempotent. ``dry_run`` returns the plan only."""
        scope = self._scope(user)
        now = self._at(as_of)
        plans: builtins.list[GroupPlan] = []
        with self._store.transaction():
            done = {source for r in self._store.iter_all() for source in r.derived_from}
            candidates = [
                r
                for r in self._store.list(
                    MemoryFilter(as_of=now, user=scope, enabled_only=True), None
                )
                if r.type == OBSERVATION and r.layer == "local" and r.id not in done
            ]
            candidates.sort(key=lambda r: r.id)
            for owner in sorted({r.user for r in candidates}):
                mine = [r for r in candidates if r.user == owner]
                for group in group_by_tags(mine):
                    if len(group) >= MIN_GROUP:
                        plans.append(self._consolidate_group(group, now, dry_run=dry_run))
        return ConsolidationReport(dry_run, tuple(plans), len(candidates))

    def _consolidate_group(
        self, group: builtins.list[MemoryRecord], now: datetime, *, dry_run: bool
    ) -> GroupPlan:
        members = tuple(r.id for r in group)
        target: tuple[MemoryRecord, float] | None = None
        if self._embedder is not None:
            centre = self.vectors.centroid(members)
            if centre is not None:
                flt = MemoryFilter(as_of=now, user=group[0].user, type="insight")
                for hit in self.vectors.search(centre, flt, 1, min_similarity=BOOST_SIMILARITY):
                    if hit.similarity > BOOST_SIMILARITY and hit.record.layer == "local":
                        target = (hit.record, hit.similarity)
        if target is not None:
            insight, similarity = target
            importance = min(1.0, insight.importance + BOOST_PER_MEMBER * len(group))
            if not dry_run:
                links = insight.derived_from + tuple(
                    m for m in members if m not in insight.derived_from
                )
                self._store.replace(replace(insight, importance=importance, derived_from=links))
                self._audit(
                    "consolidate",
                    insight.id,
                    "consolidation",
                    insight.user,
                    plan="boost",
                    members=list(members),
                    importance=[insight.importance, importance],
                )
            return GroupPlan(members, "boost", insight.id, insight.content, importance, similarity)
        source = representative(group)
        importance = insight_importance(group)
        summary = summarize(
            group, self._summarizer(), max_bytes=self._config.max_content_bytes, dry_run=dry_run
        )
        if dry_run:
            return GroupPlan(
                members,
                "create",
                None,
                summary.content,
                importance,
                None,
                summary.method,
                summary.note,
            )
        values = {
            "id": new_ulid(now),
            "type": "insight",
            "user": source.user,
            "project": source.project,
            "source": "consolidation",
            "importance": importance,
            "confidence": INSIGHT_CONFIDENCE,
            "tags": list(union_tags(group)),
            "derived_from": list(members),
            "entities": list(
                source.entities
                if summary.method == EXTRACTIVE
                else extract_entities(summary.content)
            ),
            "created_at": now,
            "updated_at": now,
        }
        insight = build_record(
            summary.content, max_bytes=self._config.max_content_bytes, values=values
        )
        self._store.insert(insight)
        self._put_vector(insight.id, self._embed_one(insight.content))
        detail: dict[str, Any] = {"plan": "create", "members": list(members)}
        detail["summary"] = summary.method
        llm = self._summarizer()
        if summary.method == LLM and llm is not None:
            detail["llm"] = llm.identity
        if summary.note:
            detail["note"] = summary.note
        self._audit("consolidate", insight.id, "consolidation", insight.user, **detail)
        return GroupPlan(
            members,
            "create",
            insight.id,
            insight.content,
            importance,
            None,
            summary.method,
            summary.note,
        )

    def _summarizer(self) -> Summarizer | None:
        """The configured LLM for consolidation summaries (None: extractive only)."""
        if self._llm == "config":
            from salience.lifecycle.llm import load_llm

            self._llm = load_llm(self._config)
        return self._llm

    def derived_from_this(
        self, memory_id: str, *, user: UserScope = None
    ) -> builtins.list[MemoryRecord]:
        """The user's memories (insights) that list ``memory_id`` in their ``derived_from``:
        the link back."""
        owner = self.get(memory_id, user=user).user
        return [
            r for r in self._store.iter_all() if memory_id in r.derived_from and r.user == owner
        ]
