"""Consolidation: groups of 3+ tag-sharing observations become insights.

The plan is made outside the write lock: the reads (every observation of the user), the
vector searches for an insight to boost, the summaries (an LLM call may take seconds) and
the new insights' embeddings. The write lock is then held only to write the plan, after
checking that nothing it relies on changed meanwhile (:meth:`Consolidating._still_true`);
if something did, the plan is made again inside the lock, as it always was before.
"""

from __future__ import annotations

import builtins
from dataclasses import dataclass, replace
from datetime import datetime
from typing import TYPE_CHECKING, Any

from salience.engine.core import STALE_TAG, EngineCore, changed_since
from salience.ids import new_ulid
from salience.lifecycle.consolidation import (
    BOOST_PER_MEMBER,
    BOOST_SIMILARITY,
    INSIGHT_CONFIDENCE,
    LLM,
    MIN_GROUP,
    Summary,
    group_by_tags,
    insight_importance,
    representative,
    summarize,
    union_tags,
)
from salience.lifecycle.maintenance import OBSERVATION
from salience.models import EXTRACTIVE, MemoryRecord, UserScope
from salience.stores.base import NOW_ON, MemoryFilter, RowChanges
from salience.write.authority import decide
from salience.write.records import build_record

if TYPE_CHECKING:  # (reports are imported by the verbs that make them)
    from salience.embeddings.arrays import Vector
    from salience.lifecycle.llm import Summarizer
    from salience.models.reports import ConsolidationReport, GroupPlan


@dataclass(frozen=True)
class _Group:
    """One group's plan: boost ``target`` (with its similarity), or create an insight of
    ``summary`` (with its vector)."""

    records: tuple[MemoryRecord, ...]
    target: tuple[MemoryRecord, float] | None
    summary: Summary | None = None
    vector: Vector | None = None
    replaces: MemoryRecord | None = None  # a stale insight this one re-derives


@dataclass(frozen=True)
class _Plan:
    groups: tuple[_Group, ...]
    candidates: int


class Consolidating(EngineCore):
    """The consolidate verb."""

    def consolidate(
        self, *, dry_run: bool = False, as_of: datetime | None = None, user: UserScope = None
    ) -> ConsolidationReport:
        """Turn groups of 3+ tag-sharing observations of the user (each user's apart with
        :data:`ALL_USERS`) into insights (see :mod:`salience.lifecycle.consolidation`);
        idempotent. ``dry_run`` returns the plan only."""
        from salience.models.reports import ConsolidationReport

        scope = self._scope(user)
        now = self._at(as_of)
        if dry_run:
            plan = self._consolidation_plan(scope, now, dry_run=True)
            return ConsolidationReport(
                True, tuple(self._dry_group(g) for g in plan.groups), plan.candidates
            )
        before = self._store.row_changes(NOW_ON, NOW_ON)  # the counters, before any read
        plan = self._consolidation_plan(scope, now, dry_run=False)
        with self._store.transaction():
            if before is None or not self._still_true(plan, before):
                plan = self._consolidation_plan(
                    scope, now, dry_run=False
                )  # written meanwhile: plan again
            done = tuple(self._write_group(group, now) for group in plan.groups)
        return ConsolidationReport(False, done, plan.candidates)

    def _consolidation_plan(self, scope: str | None, now: datetime, *, dry_run: bool) -> _Plan:
        """What consolidation would do now (reads only): first re-derive each stale insight
        from the current versions of its members, then group what no insight lists."""
        listed: dict[str, set[str]] = {}
        for r in self._store.iter_all():
            for source in r.derived_from:
                listed.setdefault(source, set()).add(r.id)
        groups: builtins.list[_Group] = []
        taken: set[str] = set()
        for insight, members in self._stale_insights(scope, now, listed):
            fresh = [m for m in members if m.id not in taken]
            if len(fresh) >= MIN_GROUP:  # else it stays stale: a person confirms or forgets it
                taken |= {m.id for m in fresh}
                groups.append(self._plan_group(fresh, now, dry_run=dry_run, replaces=insight))
        candidates = [
            r
            for r in self._store.list(MemoryFilter(as_of=now, user=scope, enabled_only=True), None)
            if r.type == OBSERVATION
            and r.layer == "local"
            and r.id not in listed
            and r.id not in taken
        ]
        candidates.sort(key=lambda r: r.id)
        for owner in sorted({r.user for r in candidates}):
            mine = [r for r in candidates if r.user == owner]
            for group in group_by_tags(mine):
                if len(group) >= MIN_GROUP:
                    groups.append(self._plan_group(group, now, dry_run=dry_run))
        return _Plan(tuple(groups), len(candidates))

    def _stale_insights(
        self, scope: str | None, now: datetime, listed: dict[str, set[str]]
    ) -> builtins.list[tuple[MemoryRecord, builtins.list[MemoryRecord]]]:
        """Each stale insight of consolidation, with the current versions of its members
        (a superseded member's newest version; a forgotten or purged one left out; one that
        another memory already lists, or that is no longer an enabled observation, too)."""
        flt = MemoryFilter(as_of=now, user=scope, type="insight", tags=(STALE_TAG,))
        every = MemoryFilter(as_of=now, include_superseded=True, include_forgotten=True)
        found = []
        for insight in self._store.list(flt, None):
            if insight.source != "consolidation" or insight.layer != "local":
                continue
            known = {r.id: r for r in self._store.get_many(list(insight.derived_from), every)}
            members: dict[str, MemoryRecord] = {}
            for member_id in insight.derived_from:
                record = known.get(member_id)
                while record is not None and record.forget_reason is None:
                    if record.is_current(now):
                        break
                    newer = [r for r in self._store.successors(record.id) if r.user == record.user]
                    record = newer[-1] if newer else None
                if (
                    record is not None
                    and record.is_current(now)
                    and record.type == OBSERVATION
                    and record.enabled
                    and listed.get(record.id, set()) <= {insight.id}
                ):
                    members[record.id] = record
            found.append((insight, sorted(members.values(), key=lambda r: r.id)))
        return found

    def _plan_group(
        self,
        group: builtins.list[MemoryRecord],
        now: datetime,
        *,
        dry_run: bool,
        replaces: MemoryRecord | None = None,
    ) -> _Group:
        target: tuple[MemoryRecord, float] | None = None
        if self._embedder is not None and replaces is None:
            centre = self.vectors.centroid([r.id for r in group])
            if centre is not None:
                flt = MemoryFilter(as_of=now, user=group[0].user, type="insight")
                for hit in self.vectors.search(centre, flt, 1, min_similarity=BOOST_SIMILARITY):
                    if hit.similarity > BOOST_SIMILARITY and hit.record.layer == "local":
                        target = (hit.record, hit.similarity)
        if target is not None:
            return _Group(tuple(group), target)
        summary = summarize(
            group, self._summarizer(), max_bytes=self._config.max_content_bytes, dry_run=dry_run
        )
        vector = None if dry_run else self._embed_one(summary.content)
        return _Group(tuple(group), None, summary, vector, replaces)

    def _still_true(self, plan: _Plan, before: RowChanges) -> bool:
        """Whether nothing the plan relies on was written since ``before``: no member or
        boosted insight changed (access counts aside), and no memory now derives from a
        member. (Observations written meanwhile wait for the next run.)"""
        changes = self._store.row_changes(before.last_seq, before.last_change)
        if changes is None or changes.deleted:
            return False
        planned = {r.id: r for g in plan.groups for r in g.records}
        planned |= {g.target[0].id: g.target[0] for g in plan.groups if g.target is not None}
        planned |= {g.replaces.id: g.replaces for g in plan.groups if g.replaces is not None}
        members = {r.id for g in plan.groups for r in g.records}
        for _, record in changes.rows:
            seen = planned.get(record.id)
            if seen is not None and changed_since(record, seen):
                return False
            if seen is None and members.intersection(record.derived_from):
                return False
        return True

    def _dry_group(self, group: _Group) -> GroupPlan:
        from salience.models.reports import GroupPlan

        members = tuple(r.id for r in group.records)
        if group.target is not None:
            insight, similarity = group.target
            importance = min(1.0, insight.importance + BOOST_PER_MEMBER * len(members))
            return GroupPlan(members, "boost", insight.id, insight.content, importance, similarity)
        assert group.summary is not None
        summary = group.summary
        importance = insight_importance(list(group.records))
        action, replaces = _action(group)
        return GroupPlan(
            members,
            action,
            None,
            summary.content,
            importance,
            None,
            summary.method,
            summary.note,
            replaces,
        )

    def _write_group(self, group: _Group, now: datetime) -> GroupPlan:
        """Write one group's plan (inside the consolidation's transaction)."""
        from salience.models.reports import GroupPlan

        members = tuple(r.id for r in group.records)
        if group.target is not None:
            insight, similarity = group.target
            importance = min(1.0, insight.importance + BOOST_PER_MEMBER * len(members))
            links = insight.derived_from + tuple(
                m for m in members if m not in insight.derived_from
            )
            boosted = replace(insight, importance=importance, derived_from=links)
            self._authority.write(decide("consolidate", insight, boosted))
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
        summary = group.summary
        assert summary is not None
        records = list(group.records)
        source = representative(records)
        importance = insight_importance(records)
        values = {
            "id": new_ulid(now),
            "type": "insight",
            "user": source.user,
            "project": source.project,
            "source": "consolidation",
            "importance": importance,
            "confidence": INSIGHT_CONFIDENCE,
            "tags": list(union_tags(records)),
            "derived_from": list(members),
            "entities": list(
                source.entities if summary.method == EXTRACTIVE else _entities(summary.content)
            ),
            "created_at": now,
            "updated_at": now,
        }
        action, replaces = _action(group)
        if group.replaces is not None:
            values["parent_id"] = group.replaces.id
        insight = build_record(
            summary.content, max_bytes=self._config.max_content_bytes, values=values
        )
        if group.replaces is not None:  # the stale insight becomes the new one's history
            old = group.replaces
            self._authority.write(decide("consolidate", old, replace(old, valid_until=now)))
            self._audit("supersede", old.id, "consolidation", old.user, by=insight.id)
            self._stale_after(old, "superseded")  # (what was built on it, confirmed or not)
        self._authority.write(decide("consolidate", None, insight))
        self._put_vector(insight.id, group.vector)
        detail: dict[str, Any] = {"plan": action, "members": list(members)}
        if replaces is not None:
            detail["replaces"] = replaces
        detail["summary"] = summary.method
        llm = self._summarizer()
        if summary.method == LLM and llm is not None:
            detail["llm"] = llm.identity
        if summary.note:
            detail["note"] = summary.note
        self._audit("consolidate", insight.id, "consolidation", insight.user, **detail)
        return GroupPlan(
            members,
            action,
            insight.id,
            insight.content,
            importance,
            None,
            summary.method,
            summary.note,
            replaces,
        )

    def _summarizer(self) -> Summarizer | None:
        """The configured LLM for consolidation summaries (None: extractive only)."""
        if self._llm == "config":
            from salience.lifecycle.llm import load_llm

            with self._state_lock:
                if self._llm == "config":
                    self._llm = load_llm(self._config)
        return self._llm


def _action(group: _Group) -> tuple[str, str | None]:
    """A new insight's action, ``create`` or ``rederive`` (with the stale one it replaces)."""
    if group.replaces is None:
        return "create", None
    return "rederive", group.replaces.id


def _entities(text: str) -> tuple[str, ...]:
    """The entities of a summary (the extractor's patterns are compiled on first use)."""
    from salience.write.entities import extract_entities

    return extract_entities(text)
