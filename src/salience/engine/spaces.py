"""Spaces of :class:`~salience.engine.memory.Memory`: made, listed, granted, revoked, deleted
(the rules: :mod:`salience.models.spaces`; the checks every other verb makes:
:mod:`~salience.engine.access`).

Whoever makes a space is its first admin. An admin grants and revokes, decides whether an
erased member's contributions stay (their author's name erased) or go with them, and deletes
the space with every memory in it (a person's decision, as a user's erasure is). A space
always keeps one admin: the last one cannot be revoked or lowered.
"""

from __future__ import annotations

import builtins
from typing import Any

from salience.engine.scrubbing import Scrubbing
from salience.errors import ConflictError, InvalidInputError
from salience.models import AllUsers, Grant, Space, UserScope
from salience.models.spaces import (
    ADMIN,
    READ,
    check_right,
    check_space_name,
    current_reach,
    right_at_least,
    space_owner,
)
from salience.stores.base import MemoryFilter
from salience.write.authority import require


class Spaces(Scrubbing):
    """create_space, spaces, space_members, grant, revoke, set_space, delete_space."""

    def create_space(
        self, name: str, *, user: UserScope = None, keep_contributions: bool = False
    ) -> Space:
        """Make a space; ``user`` (the caller) is its first admin. A name in use is a
        :class:`ConflictError`."""
        owner = self._one_user(user, "create_space")
        space = Space(_name(name), self.now(), owner, bool(keep_contributions), ADMIN)
        with self._store.transaction():
            if not self._store.add_space(space):
                raise ConflictError(f"space {space.name!r} exists")
            self._store.set_grant(Grant(space.name, owner, ADMIN, space.created_at, owner))
            self._audit("space_create", None, "caller", space_owner(space.name), by=owner)
        return space

    def spaces(self, *, user: UserScope = None) -> builtins.list[Space]:
        """The spaces ``user`` has a right on, each with that right (as this request's key
        reaches them); every space with :data:`~salience.models.ALL_USERS` or a store
        admin's key."""
        everyone = isinstance(user, AllUsers) or current_reach().admin
        scope = None if isinstance(user, AllUsers) else self._one_user(user, "spaces")
        found = []
        for space in self._store.spaces():
            right = ADMIN if everyone else self._right_on(scope or "", space.name)
            if right_at_least(right, READ):
                found.append(
                    Space(
                        space.name,
                        space.created_at,
                        space.created_by,
                        space.keep_contributions,
                        right,
                    )
                )
        return found

    def space_members(self, name: str, *, user: UserScope = None) -> builtins.list[Grant]:
        """Who has which right on the space (its readers may see)."""
        self._space_owner(self._one_user(user, "space_members"), _name(name), READ)
        return self._store.grants(space=name)

    def grant(self, name: str, member: str, right: str, *, user: UserScope = None) -> Grant:
        """Give ``member`` ``right`` (read, write, admin) on the space, replacing the right it
        had (an admin's)."""
        caller = self._one_user(user, "grant")
        name = _name(name)
        try:
            right = check_right(right)
        except ValueError as exc:
            raise InvalidInputError(str(exc), field="right") from None
        member = self._one_user(member, "grant")
        self._space_owner(caller, name, ADMIN)
        granted = Grant(name, member, right, self.now(), caller)
        with self._store.transaction():
            if right != ADMIN:
                self._keep_an_admin(name, member)
            self._store.set_grant(granted)
            self._audit("grant", None, "caller", space_owner(name), member=member, right=right)
        return granted

    def revoke(self, name: str, member: str, *, user: UserScope = None) -> bool:
        """Take ``member``'s right on the space away (an admin's); False if it had none. It
        holds from the next request on, in every process."""
        caller = self._one_user(user, "revoke")
        name = _name(name)
        member = self._one_user(member, "revoke")
        self._space_owner(caller, name, ADMIN)
        with self._store.transaction():
            self._keep_an_admin(name, member)
            gone = self._store.drop_grant(name, member)
            if gone:
                self._audit("revoke", None, "caller", space_owner(name), member=member)
        return gone

    def set_space(self, name: str, *, keep_contributions: bool, user: UserScope = None) -> Space:
        """Whether an erased member's contributions stay, their author's name erased
        (``keep_contributions``), or are erased with them (an admin's)."""
        name = _name(name)
        self._space_owner(self._one_user(user, "set_space"), name, ADMIN)
        with self._store.transaction():
            self._store.set_keep_contributions(name, bool(keep_contributions))
            self._audit(
                "space_set", None, "caller", space_owner(name), keep=bool(keep_contributions)
            )
        space = self._store.space(name)
        assert space is not None
        return space

    def delete_space(self, name: str, *, user: UserScope = None) -> dict[str, Any]:
        """Delete the space, its grants and every memory in it, scrubbed from the store's
        files as a user's erasure is (a person's decision, and an admin's). The receipt."""
        name = _name(name)
        owner = self._space_owner(self._one_user(user, "delete_space"), name, ADMIN)
        require("erase", None)
        self._records.flush()
        every = MemoryFilter(
            as_of=self.now(), user=owner, include_superseded=True, include_forgotten=True
        )
        with self._store.transaction():
            self._mark_erased([r.id for r in self._store.iter_all(every)])
            removed = self._authority.erase_user(owner)
            self._store.drop_space(name)
        scrubbed = self._scrubbed()
        with self._store.transaction():
            self._audit("space_delete", None, "caller", owner, **removed, **scrubbed)
        return {"space": name, **removed, **scrubbed}

    def _keep_an_admin(self, name: str, member: str) -> None:
        """Refuse a change that would leave the space without an admin."""
        admins = [g.user for g in self._store.grants(space=name) if g.right == ADMIN]
        if admins == [member]:
            raise ConflictError(
                f"{member!r} is the last admin of space {name!r}: grant admin to another first"
            )


def _name(name: object) -> str:
    try:
        return check_space_name(name)
    except ValueError as exc:
        raise InvalidInputError(str(exc), field="space") from None
