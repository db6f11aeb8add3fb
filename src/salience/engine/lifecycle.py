"""Lifecycle verbs of :class:`~salience.engine.memory.Memory`: feedback, decay maintenance and
consolidation (rules in :mod:`salience.lifecycle.feedback`, :mod:`salience.lifecycle.maintenance`,
:mod:`salience.lifecycle.consolidation`)."""

from __future__ import annotations

import builtins
from dataclasses import replace
from datetime import datetime
from typing import TYPE_CHECKING

from salience.errors import (
    InvalidInputError,
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
from salience.write.records import (
    with_changes,
)

if TYPE_CHECKING:
    pass

from salience.engine.consolidating import Consolidating

DECAY_STEP = 5e-5
"""The smallest change of importance maintenance writes: half the last digit it prints."""


class Lifecycle(Consolidating):
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

    def derived_from_this(
        self, memory_id: str, *, user: UserScope = None
    ) -> builtins.list[MemoryRecord]:
        """The user's memories (insights) that list ``memory_id`` in their ``derived_from``:
        the link back."""
        owner = self.get(memory_id, user=user).user
        return [
            r for r in self._store.iter_all() if memory_id in r.derived_from and r.user == owner
        ]
