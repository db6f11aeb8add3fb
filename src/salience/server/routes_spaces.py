"""``/v1/spaces``: a team's shared spaces and their members (the rules:
:mod:`salience.models.spaces`). Every route acts for the caller's user, with what its key
reaches: a key narrowed to some spaces sees and changes only those, within its rights. A space
the caller cannot read does not exist for it (404); one it reads but may not change is 403."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Path
from pydantic import Field

from salience.server.replies import READ_ERRORS, WRITE_ERRORS, AsUser, CallerDep, EngineDep
from salience.server.schemas import Request as Body
from salience.server.schemas import ShortText, SpaceName
from salience.wire.spaces import (
    GrantOut,
    Right,
    SpaceErasedOut,
    SpaceOut,
    grant_out,
    space_out,
)

router = APIRouter(prefix="/v1/spaces", tags=["spaces"])
NamePath = Annotated[str, Path(min_length=1, max_length=63, description="The space's name.")]
MemberPath = Annotated[str, Path(min_length=1, max_length=512, description="A user's name.")]


class SpaceIn(Body):
    name: SpaceName
    keep_contributions: bool = Field(
        False,
        description="Keep an erased member's contributions (their name erased) instead of "
        "erasing them with the member.",
    )


class SpaceSetIn(Body):
    keep_contributions: bool


class GrantIn(Body):
    right: Right


class RevokedOut(Body):
    space: ShortText
    user: ShortText
    revoked: bool = Field(description="False: the user had no right on it.")


@router.get("", response_model=list[SpaceOut], responses=READ_ERRORS)
def spaces(caller: CallerDep, engine: EngineDep, as_user: AsUser = None) -> list[dict[str, Any]]:
    """The spaces the caller has a right on, each with that right."""
    user = caller.acting(as_user)
    return [space_out(x) for x in engine.memory.spaces(user=user)]


@router.post("", response_model=SpaceOut, status_code=201, responses=WRITE_ERRORS)
def create_space(
    body: SpaceIn, caller: CallerDep, engine: EngineDep, as_user: AsUser = None
) -> dict[str, Any]:
    """Make a space; the caller is its first admin (a name in use: 409)."""
    caller.may_write()
    user = caller.acting(as_user)
    made = engine.memory.create_space(
        body.name, user=user, keep_contributions=body.keep_contributions
    )
    return space_out(made)


@router.patch("/{name}", response_model=SpaceOut, responses=WRITE_ERRORS)
def set_space(
    name: NamePath, body: SpaceSetIn, caller: CallerDep, engine: EngineDep, as_user: AsUser = None
) -> dict[str, Any]:
    """Whether an erased member's contributions stay (an admin's)."""
    caller.may_write()
    user = caller.acting(as_user)
    changed = engine.memory.set_space(name, keep_contributions=body.keep_contributions, user=user)
    return space_out(changed)


@router.delete("/{name}", response_model=SpaceErasedOut, responses=WRITE_ERRORS)
def delete_space(
    name: NamePath, caller: CallerDep, engine: EngineDep, as_user: AsUser = None
) -> dict[str, Any]:
    """Delete the space and every memory in it, scrubbed from the store (an admin's, and a
    person's: an agent's key is refused). The receipt counts what went."""
    caller.may_write()
    receipt: dict[str, Any] = engine.memory.delete_space(name, user=caller.acting(as_user))
    return receipt


@router.get("/{name}/members", response_model=list[GrantOut], responses=READ_ERRORS)
def members(
    name: NamePath, caller: CallerDep, engine: EngineDep, as_user: AsUser = None
) -> list[dict[str, Any]]:
    """Who has which right on the space (its readers may see)."""
    user = caller.acting(as_user)
    return [grant_out(g) for g in engine.memory.space_members(name, user=user)]


@router.put("/{name}/members/{member}", response_model=GrantOut, responses=WRITE_ERRORS)
def grant(
    name: NamePath,
    member: MemberPath,
    body: GrantIn,
    caller: CallerDep,
    engine: EngineDep,
    as_user: AsUser = None,
) -> dict[str, Any]:
    """Give a user a right on the space, replacing the one it had (an admin's)."""
    caller.may_write()
    user = caller.acting(as_user)
    return grant_out(engine.memory.grant(name, member, body.right, user=user))


@router.delete("/{name}/members/{member}", response_model=RevokedOut, responses=WRITE_ERRORS)
def revoke(
    name: NamePath, member: MemberPath, caller: CallerDep, engine: EngineDep, as_user: AsUser = None
) -> dict[str, Any]:
    """Take a user's right on the space away (an admin's); it holds from the next request."""
    caller.may_write()
    gone = engine.memory.revoke(name, member, user=caller.acting(as_user))
    return {"space": name, "user": member, "revoked": gone}
