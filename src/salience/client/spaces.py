"""The client's verbs for a team's spaces (what :class:`~salience.engine.memory.Memory`
answers locally, asked of a server as the key's user, within what the key reaches)."""

from __future__ import annotations

import builtins
from typing import Any
from urllib.parse import quote

from salience.client.transport import Transport
from salience.models import Grant, Space
from salience.wire.spaces import grant_of, space_of


def _path(name: str) -> str:
    return quote(name, safe="")


class Spaces(Transport):
    """Spaces and their members over HTTP."""

    def spaces(self) -> builtins.list[Space]:
        """The spaces the key's user has a right on, each with that right."""
        return [space_of(x) for x in self._json("GET", "/v1/spaces")]

    def create_space(self, name: str, *, keep_contributions: bool = False) -> Space:
        """Make a space; the key's user is its first admin."""
        body = {"name": name, "keep_contributions": keep_contributions}
        return space_of(self._json("POST", "/v1/spaces", json=body))

    def set_space(self, name: str, *, keep_contributions: bool) -> Space:
        """Whether an erased member's contributions stay (an admin's)."""
        body = {"keep_contributions": keep_contributions}
        return space_of(self._json("PATCH", f"/v1/spaces/{_path(name)}", json=body))

    def delete_space(self, name: str) -> dict[str, Any]:
        """Delete the space and every memory in it (an admin's); the receipt."""
        receipt: dict[str, Any] = self._json("DELETE", f"/v1/spaces/{_path(name)}")
        return receipt

    def space_members(self, name: str) -> builtins.list[Grant]:
        """Who has which right on the space."""
        return [grant_of(x) for x in self._json("GET", f"/v1/spaces/{_path(name)}/members")]

    def grant(self, name: str, member: str, right: str) -> Grant:
        """Give ``member`` ``right`` on the space (an admin's)."""
        path = f"/v1/spaces/{_path(name)}/members/{_path(member)}"
        return grant_of(self._json("PUT", path, json={"right": right}))

    def revoke(self, name: str, member: str) -> bool:
        """Take ``member``'s right on the space away (an admin's); False if it had none."""
        path = f"/v1/spaces/{_path(name)}/members/{_path(member)}"
        return bool(self._json("DELETE", path)["revoked"])
