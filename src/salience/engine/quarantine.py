"""Quarantine: a memory from a source below the user whose text reads as an order to the
agent (see :mod:`salience.write.gates.instructions`) is stored disabled and tagged
``quarantine`` and ``quarantine:<family>``, so no briefing carries it, until a person
approves it (enabled, the tags gone) or rejects it (forgotten). Each step is in the audit
log, never the text. The user's own memories (``source="user"``) are never held: "always
run the tests before deploying" is a procedure when the user says it."""

from __future__ import annotations

import builtins
from dataclasses import replace

from salience.engine.forgetting import Forgetting
from salience.errors import ConflictError
from salience.models import MemoryRecord, Outcome, UserScope, WriteResult
from salience.stores.base import MemoryFilter
from salience.write.authority import decide, may
from salience.write.quarantine import TAG, family, is_held, released

REJECTED = "rejected from quarantine"


class Quarantine(Forgetting):
    """quarantined, approve, reject."""

    def quarantined(self, *, user: UserScope = None) -> builtins.list[MemoryRecord]:
        """The user's memories waiting in quarantine (everyone's with ALL_USERS), newest
        first."""
        scope = self._scope(user)  # (and the spaces it is an admin of)
        flt = MemoryFilter(
            as_of=self.now(), user=scope, spaces=self._administered(scope), tags=(TAG,)
        )
        return [r for r in self._store.list(flt, None) if is_held(r)]

    def approve(self, memory_id: str, *, user: UserScope = None) -> WriteResult:
        """Let a held memory into briefings: enabled, its quarantine tag removed (audited)."""
        scope = self._scope(user)
        with self._store.transaction():
            record = self._held(memory_id, scope)
            approved = replace(released(record), updated_at=self.now())
            self._authority.write(decide("approve", record, approved))
            self._audit("approve", record.id, "user", record.user, quarantine=family(record))
        return WriteResult(Outcome.UPDATED, record.id, record=approved)

    def reject(self, memory_id: str, *, user: UserScope = None) -> WriteResult:
        """Forget a held memory: out of every recall, readable in its history (audited)."""
        scope = self._scope(user)
        record = self._held(memory_id, scope)
        if not may("reject", record):  # (before the reason is checked: a person's decision)
            decide("reject", record, None)
        return self._forget(record.id, REJECTED, scope, "reject")

    def _held(self, memory_id: str, scope: str | None) -> MemoryRecord:
        record = self._local(memory_id, "approve", scope)
        if not is_held(record) or record.forget_reason is not None:
            raise ConflictError(f"memory {memory_id} is not in quarantine", memory_id=memory_id)
        return record
