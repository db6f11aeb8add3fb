"""Spaces and grants on the wire: the shapes ``/v1/spaces`` answers, how a value becomes one
and how a client reads one back (:class:`~salience.models.Space`,
:class:`~salience.models.Grant`)."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, Field

from salience.clock import format_time
from salience.models import Grant, Space

Right = Literal["read", "write", "admin"]


class SpaceOut(BaseModel):
    name: str
    created_at: str
    created_by: str
    keep_contributions: bool = Field(
        description="Whether an erased member's contributions stay (their name erased)."
    )
    right: Right | None = Field(description="The caller's right on it.")


class GrantOut(BaseModel):
    space: str
    user: str
    right: Right
    granted_at: str
    granted_by: str


class SpaceErasedOut(BaseModel):
    space: str
    memories: int = Field(description="Memories erased with it.")
    model_config = {"extra": "allow"}


def space_out(space: Space) -> dict[str, Any]:
    """A space as :class:`SpaceOut` data."""
    return {
        "name": space.name,
        "created_at": format_time(space.created_at),
        "created_by": space.created_by,
        "keep_contributions": space.keep_contributions,
        "right": space.right,
    }


def grant_out(grant: Grant) -> dict[str, Any]:
    """A grant as :class:`GrantOut` data."""
    return {
        "space": grant.space,
        "user": grant.user,
        "right": grant.right,
        "granted_at": format_time(grant.granted_at),
        "granted_by": grant.granted_by,
    }


def space_of(data: dict[str, Any]) -> Space:
    """A :class:`SpaceOut` answer read back."""
    return Space(
        data["name"],
        datetime.fromisoformat(data["created_at"]),
        data["created_by"],
        bool(data["keep_contributions"]),
        data.get("right"),
    )


def grant_of(data: dict[str, Any]) -> Grant:
    """A :class:`GrantOut` answer read back."""
    return Grant(
        data["space"],
        data["user"],
        data["right"],
        datetime.fromisoformat(data["granted_at"]),
        data["granted_by"],
    )
