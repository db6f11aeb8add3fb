"""Lifecycle verbs of :class:`~salience.engine.memory.Memory`: feedback, decay maintenance and
consolidation (rules in :mod:`salience.lifecycle.feedback`, :mod:`salience.lifecycle.maintenance`,
:mod:`salience.lifecycle.consolidation`)."""

from __future__ import annotations

import builtins
from typing import TYPE_CHECKING

from salience.errors import (
    InvalidInputError,
)
from salience.lifecycle.feedback import apply_feedback
from salience.models import (
    MemoryRecord,
    Outcome,
    UserScope,
    WriteResult,
)
from salience.write.authority import decide

if TYPE_CHECKING:
    pass

from salience.engine.consolidating import Consolidating
from salience.engine.maintaining import Maintaining
from salience.engine.record import Recording


class Lifecycle(Consolidating, Maintaining, Recording):
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
            self._authority.write(decide("feedback", old, new))
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
        self._link(memory_id, old.user, "echo" if used else "fizzle")
        kind = "echo (used)" if used else "fizzle (not used)"
        reason = (
            f"{kind}: importance {old.importance:.2f} -> {new.importance:.2f}, "
            f"confidence {old.confidence:.2f} -> {new.confidence:.2f}"
        )
        return WriteResult(Outcome.UPDATED, memory_id, reason=reason, record=new)

    def derived_from_this(
        self, memory_id: str, *, user: UserScope = None
    ) -> builtins.list[MemoryRecord]:
        """The user's memories (insights) that list ``memory_id`` in their ``derived_from``:
        the link back."""
        owner = self.get(memory_id, user=user).user
        return [
            r for r in self._store.iter_all() if memory_id in r.derived_from and r.user == owner
        ]
