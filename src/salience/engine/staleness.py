"""Staleness follows dependencies (:mod:`~salience.engine.dependents`): a memory built on
another (a consolidation's insight, its session's summary, a memory citing its id) goes
stale when its source is superseded, rewritten, forgotten or purged, transitively (marked by
the write that changed the source: ``EngineCore._stale_after``). A stale memory leaves
briefings (the manifest says ``stale``) and comes after current ones in recall; it is tagged
``stale`` and ``stale:<how>`` and the audit log says which source changed, how and when.
``consolidate`` re-derives a stale insight from its members' current versions; a person
confirms the rest (still true: the mark goes, audited) or forgets them."""

from __future__ import annotations

import builtins
from dataclasses import replace

from salience.engine.core import STALE_TAG
from salience.engine.forgetting import Forgetting
from salience.errors import ConflictError
from salience.models import MemoryRecord, Outcome, UserScope, WriteResult
from salience.stores.base import MemoryFilter
from salience.write.authority import decide


class Staleness(Forgetting):
    """stale, confirm."""

    def stale(self, *, user: UserScope = None) -> builtins.list[MemoryRecord]:
        """The user's current memories marked stale (everyone's with ALL_USERS), newest
        first."""
        scope = self._scope(user)  # (and the spaces it is an admin of)
        flt = MemoryFilter(
            as_of=self.now(), user=scope, spaces=self._administered(scope), tags=(STALE_TAG,)
        )
        return self._store.list(flt, None)

    def confirm(self, memory_id: str, *, user: UserScope = None) -> WriteResult:
        """A stale memory is still true: the mark goes (audited), it is briefed again."""
        scope = self._scope(user)
        with self._store.transaction():
            record = self._current(memory_id, "confirm", scope)
            if STALE_TAG not in record.tags:
                raise ConflictError(f"memory {memory_id} is not stale", memory_id=memory_id)
            tags = tuple(t for t in record.tags if t != STALE_TAG and not _how(t))
            confirmed = replace(record, tags=tags, updated_at=self.now())
            self._authority.write(decide("confirm", record, confirmed))
            self._audit("confirm", record.id, "user", record.user)
        return WriteResult(Outcome.UPDATED, record.id, record=confirmed)


def _how(tag: str) -> bool:
    return tag.startswith(f"{STALE_TAG}:")
