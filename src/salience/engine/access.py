"""Who may see and change a space's memories (:mod:`salience.models.spaces`): the checks every
verb of :class:`~salience.engine.memory.Memory` makes through its core, from the grants in the
store and what the request's key reaches (:data:`~salience.models.spaces.REACH`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from salience.errors import ForbiddenError, InvalidInputError, NotFoundError
from salience.models import MemoryRecord
from salience.models.spaces import (
    ADMIN,
    READ,
    WRITE,
    check_agent,
    check_space_name,
    current_reach,
    lower_right,
    right_at_least,
    space_owner,
)

if TYPE_CHECKING:
    from salience.stores.base import Store

_ADMIN_VERBS = frozenset({"purge", "approve", "reject", "confirm"})
"""Verbs on a space's memory that need the admin right (the rest of the changes: write)."""


class Access:
    """The space checks of a :class:`~salience.engine.core.EngineCore`."""

    _store: Store

    def _right_on(self, user: str, space: str) -> str | None:
        """``user``'s right on ``space`` for this request: their grant (a store admin's key:
        admin of every space), never above what the request's key was narrowed to."""
        reach = current_reach()
        right: str | None
        if reach.admin:
            right = ADMIN if self._store.space(space) is not None else None
        else:
            grants = self._store.grants(space=space, user=user)
            right = grants[0].right if grants else None
        if reach.spaces is not None:
            right = lower_right(right, reach.spaces.get(space))
        return right

    def _space_owner(self, user: str, space: str, need: str) -> str:
        """The owner name of ``space``'s memories if ``user`` holds ``need`` on it; a space
        it cannot read does not exist for it (not found), one it reads but needs more on is
        forbidden."""
        try:
            name = check_space_name(space)
        except ValueError as exc:
            raise InvalidInputError(str(exc), field="space") from None
        right = self._right_on(user, name)
        if not right_at_least(right, READ):
            raise NotFoundError(name, f"no space named {name!r} (or none you may read)")
        if not right_at_least(right, need):
            raise ForbiddenError(
                f"this needs the {need} right on space {name!r}; {user!r} has {right}",
                field="space",
            )
        return space_owner(name)

    def _readable(self, user: str | None) -> tuple[str, ...]:
        """The owner names of the spaces ``user`` may read in this request (by its grants,
        narrowed by its key), which recall and briefings see beside its own memories."""
        return self._reaching(user, READ)

    def _owned(
        self, record: MemoryRecord, scope: str | None, memory_id: str, verb: str = "read"
    ) -> MemoryRecord:
        """The record if ``scope`` may ``verb`` it: its own (any user's for None), or of a
        space it holds the verb's right on (read; admin to purge or decide quarantine and
        staleness; write otherwise). Another user's memory, or a space's it cannot read, does
        not exist for it."""
        if scope is None or record.user == scope:
            return record
        space = record.space
        if space is None:
            raise NotFoundError(memory_id)
        need = READ if verb == "read" else ADMIN if verb in _ADMIN_VERBS else WRITE
        right = self._right_on(scope, space)
        if not right_at_least(right, READ):
            raise NotFoundError(memory_id)
        if not right_at_least(right, need):
            raise ForbiddenError(
                f"cannot {verb} memory {memory_id}: that needs the {need} right on space "
                f"{space!r}, and {scope!r} has {right}",
                memory_id=memory_id,
            )
        return record

    def _acting_on(self, scope: str | None, space: str | None, need: str) -> str | None:
        """The owner a verb acts on: ``space``'s (``scope`` holding ``need`` on it; any with
        ``ALL_USERS``, if it exists), else ``scope`` itself."""
        if space is None:
            return scope
        if scope is not None:
            return self._space_owner(scope, space, need)
        try:
            name = check_space_name(space)
        except ValueError as exc:
            raise InvalidInputError(str(exc), field="space") from None
        if self._store.space(name) is None:
            raise NotFoundError(name, f"no space named {name!r} (or none you may read)")
        return space_owner(name)

    def _administered(self, user: str | None) -> tuple[str, ...]:
        """The owner names of the spaces ``user`` is an admin of in this request: where
        their quarantine and stale marks go."""
        return self._reaching(user, ADMIN)

    def _reaching(self, user: str | None, need: str) -> tuple[str, ...]:
        """The owner names of the spaces on which ``user`` holds ``need`` in this request."""
        if user is None:
            return ()
        reach = current_reach()
        owners = []
        for grant in self._store.grants(user=user):
            right: str | None = grant.right
            if reach.spaces is not None:
                right = lower_right(right, reach.spaces.get(grant.space))
            if right_at_least(right, need):
                owners.append(space_owner(grant.space))
        return tuple(owners)

    @staticmethod
    def _agent(given: object) -> str | None:
        """The agent a write names: the request's (its key or MCP session named it: a caller
        cannot claim another), else the one given, checked."""
        named = current_reach().agent
        if named is not None:
            return named
        if given is None:
            return None
        return check_agent(given)
