"""Maintenance: importance decay, retention and orphaned index rows.

The plan is made outside the write lock (it reads every memory). It is then written a chunk
at a time, each chunk in a transaction of its own that holds the lock for a few ms: a run is
idempotent and promises no all-or-nothing, so another write never waits for a whole run. A
memory written since the plan was made (access counts aside) is left for the next run, and
an observation something came to derive from meanwhile is not forgotten.
"""

from __future__ import annotations

import builtins
from dataclasses import dataclass, replace
from datetime import datetime
from typing import TYPE_CHECKING

from salience.engine.core import EngineCore, changed_since
from salience.errors import InvalidInputError
from salience.lifecycle.maintenance import OBSERVATION, decayed_importance, retention_due
from salience.models import MemoryRecord
from salience.sharing.jsonl import CLOCK_SKEW
from salience.stores.base import NOW_ON, MemoryFilter, RowChanges
from salience.write.authority import decide
from salience.write.records import with_changes

if TYPE_CHECKING:  # (reports are imported by the verbs that make them)
    from salience.models.reports import ImportanceChange, MaintenanceReport

DECAY_STEP = 5e-5
"""The smallest change of importance maintenance writes: half the last digit it prints."""
CHUNK = 200
"""Changes written per transaction (about 40-60 ms of the write lock here)."""


@dataclass(frozen=True)
class _Change:
    """One planned change: forget ``record`` (retention), or set its importance to ``value``
    (``base``: the importance decay starts from, set at ``set_at``; None if already stored)."""

    record: MemoryRecord
    value: float | None = None
    base: tuple[float, datetime] | None = None


class Maintaining(EngineCore):
    """The maintain verb."""

    def maintain(
        self, *, dry_run: bool = False, as_of: datetime | None = None
    ) -> MaintenanceReport:
        """Decay importance (FadeMem, idempotent), apply retention if configured, and clean
        orphaned index rows. ``dry_run`` reports the same plan and changes nothing.

        A change of importance under :data:`DECAY_STEP` is not written (it would not show;
        the next run computes from the same base anyway). An ``as_of`` in the future may
        only be previewed: it would decay importances ahead of time."""
        from salience.models.reports import MaintenanceReport

        now = self._at(as_of)
        if not dry_run and now > self.now() + CLOCK_SKEW:
            raise InvalidInputError(
                "maintenance as of a future time would decay importances ahead of time; "
                "preview it with dry_run (--dry-run)",
                field="as_of",
            )
        before = self._store.row_changes(NOW_ON, NOW_ON)
        plan = self._maintenance_plan(now)
        if dry_run:
            return MaintenanceReport(
                True,
                tuple(_decay(c) for c in plan if c.value is not None),
                tuple(c.record.id for c in plan if c.value is None),
                self._store.orphans(delete=False),
            )
        done: builtins.list[_Change] = []
        for start in range(0, len(plan), CHUNK):
            with self._store.transaction():
                done += self._maintain_chunk(plan[start : start + CHUNK], before, now)
        with self._store.transaction():
            orphans = self._store.orphans(delete=True)
            if orphans:
                self._audit("orphans", None, "maintenance", None, removed=orphans)
        return MaintenanceReport(
            False,
            tuple(_decay(c) for c in done if c.value is not None),
            tuple(c.record.id for c in done if c.value is None),
            orphans,
        )

    def _maintenance_plan(self, now: datetime) -> builtins.list[_Change]:
        """Every change maintenance would make now (reads only)."""
        days = self._config.retention_days
        records = self._store.list(MemoryFilter(as_of=now), None)
        bases = self._store.importance_bases()
        consolidated = {source for r in self._store.iter_all() for source in r.derived_from}
        plan: builtins.list[_Change] = []
        for record in records:
            if record.layer != "local":
                continue
            if (
                record.type == OBSERVATION
                and record.id not in consolidated
                and retention_due(record.created_at, now, days)
            ):
                plan.append(_Change(record))
                continue
            stored = bases.get(record.id)
            base, set_at = stored or (record.importance, record.created_at)
            value = decayed_importance(base, set_at, record.type, record.confidence, now)
            if abs(value - record.importance) >= DECAY_STEP:
                plan.append(_Change(record, value, None if stored else (base, set_at)))
        return plan

    def _maintain_chunk(
        self, chunk: builtins.list[_Change], before: RowChanges | None, now: datetime
    ) -> builtins.list[_Change]:
        """Write the changes of ``chunk`` whose memory is as planned (inside a transaction)."""
        every = MemoryFilter(as_of=now, include_superseded=True, include_forgotten=True)
        current = {r.id: r for r in self._store.get_many([c.record.id for c in chunk], every)}
        derived: set[str] = set()
        if any(c.value is None for c in chunk):
            changes = None if before is None else self._store.row_changes(*_counters(before))
            if changes is None:
                derived = {s for r in self._store.iter_all() for s in r.derived_from}
            else:
                derived = {s for _, r in changes.rows for s in r.derived_from}
        done = []
        for change in chunk:
            record = change.record
            found = current.get(record.id)
            if found is None or changed_since(found, record):
                continue  # written meanwhile: the next run looks at it again
            if change.value is None:
                if record.id in derived:
                    continue
                days = self._config.retention_days
                reason = f"retention: observation older than {days} days, never consolidated"
                gone = with_changes(found, {"forget_reason": reason})
                self._authority.write(decide("retention", found, replace(gone, valid_until=now)))
                self._audit("retention", record.id, "maintenance", record.user, reason=reason)
            else:
                if change.base is not None:
                    self._store.set_importance_base(record.id, *change.base)
                decayed = replace(found, importance=change.value)
                self._authority.write(decide("decay", found, decayed))
                self._audit(
                    "decay",
                    record.id,
                    "maintenance",
                    record.user,
                    importance=[record.importance, change.value],
                )
            done.append(change)
        return done


def _decay(change: _Change) -> ImportanceChange:
    from salience.models.reports import ImportanceChange

    assert change.value is not None
    return ImportanceChange(change.record.id, change.record.importance, change.value)


def _counters(changes: RowChanges) -> tuple[int, int]:
    return changes.last_seq, changes.last_change
