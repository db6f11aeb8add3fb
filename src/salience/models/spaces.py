"""Spaces: named memory areas of a store that a team shares, each with its grants.

A memory belongs to one user (their own) or to one space. A space's memories are stored as
the memories of its *owner name*, ``space:<name>``, which no user may be called, so every
rule that holds per user (duplicates, topics, updates, export) holds per space. Who wrote
a space's memory is its ``author`` (a user), with the ``agent`` that wrote it.

A user sees and changes a space only through a grant: ``read`` (recall, briefing, list,
history), ``write`` (and remember, update, supersede, forget, feedback, under the write
authority), ``admin`` (and grants, quarantine and stale decisions, purges, export). A key
may be narrowed to fewer spaces and rights than its user has, never widened: what a request
may reach is :data:`REACH`, set by the face for the request.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass

SPACE_PREFIX = "space:"
"""The owner name of a space's memories: ``space:<name>``. No user may be named so."""

READ, WRITE, ADMIN = "read", "write", "admin"
RIGHTS = (READ, WRITE, ADMIN)
"""A grant's rights, each including the ones before it."""

_NAME = re.compile(r"[a-z0-9][a-z0-9._-]{0,62}\Z")


def check_space_name(name: object) -> str:
    """``name`` if it is a space's name (1-63 of lowercase letters, digits, ``.``, ``_``,
    ``-``, starting with a letter or digit), else :class:`ValueError` saying why."""
    if not isinstance(name, str) or not _NAME.match(name):
        raise ValueError(
            f"{name!r} is not a space name: 1-63 lowercase letters, digits, '.', '_' or '-',"
            " starting with a letter or digit"
        )
    return name


_AGENT = re.compile(r"[A-Za-z0-9][A-Za-z0-9 ._:@/+-]{0,63}\Z")


def check_agent(name: object) -> str:
    """``name`` if it names an agent (1-64 letters, digits, spaces or ``._:@/+-``, starting
    with a letter or digit: ``ci-bot``, ``claude-code``), else :class:`InvalidInputError`."""
    from salience.errors import InvalidInputError

    if not isinstance(name, str) or not _AGENT.match(name):
        raise InvalidInputError(
            f"{str(name)[:80]!r} is not an agent name: 1-64 letters, digits, spaces or "
            "'._:@/+-', starting with a letter or digit",
            field="agent",
        )
    return name


def space_owner(name: str) -> str:
    """The owner name under which a space's memories are stored."""
    return SPACE_PREFIX + name


def space_of(owner: str | None) -> str | None:
    """The space a memory's owner name stands for, or None for a user's own memory."""
    if owner is not None and owner.startswith(SPACE_PREFIX):
        return owner[len(SPACE_PREFIX) :]
    return None


def right_at_least(right: str | None, needed: str) -> bool:
    """Whether ``right`` includes ``needed`` (read < write < admin)."""
    return right is not None and RIGHTS.index(right) >= RIGHTS.index(needed)


def lower_right(a: str | None, b: str | None) -> str | None:
    """The lesser of two rights (None: no right)."""
    if a is None or b is None:
        return None
    return a if RIGHTS.index(a) <= RIGHTS.index(b) else b


def check_right(right: object) -> str:
    """``right`` if it is one of :data:`RIGHTS`, else :class:`ValueError`."""
    if right not in RIGHTS:
        raise ValueError(f"{right!r} is not a right: one of {', '.join(RIGHTS)}")
    assert isinstance(right, str)
    return right


def parse_narrowing(items: Iterator[str] | tuple[str, ...] | list[str]) -> dict[str, str]:
    """``payments:read`` items (a key's narrowing) as space -> right; ValueError if one is
    not ``<space>:<right>`` or names a space twice."""
    out: dict[str, str] = {}
    for item in items:
        name, sep, right = str(item).rpartition(":")
        if not sep:
            raise ValueError(f"{item!r} is not <space>:<right> (for example payments:read)")
        name = check_space_name(name)
        if name in out:
            raise ValueError(f"space {name!r} is named twice")
        out[name] = check_right(right)
    return out


@dataclass(frozen=True)
class Reach:
    """What the request at hand may reach beyond its user's own memories: ``spaces`` narrows
    its user's grants (space -> highest right; None: the grants as they are), ``agent``
    names the agent that writes (recorded on every write), ``admin`` is a store admin's key
    (admin of every space). The library and the CLI act with the default: no narrowing."""

    spaces: Mapping[str, str] | None = None
    agent: str | None = None
    admin: bool = False


NO_REACH = Reach()
"""What the library and the CLI reach: every space by its grants, no narrowing."""

REACH: ContextVar[Reach | None] = ContextVar("salience_reach", default=None)
"""What the current request's key reaches (see :class:`Reach`); None: :data:`NO_REACH`."""


def current_reach() -> Reach:
    """What the request at hand reaches (:data:`NO_REACH` outside a face's request)."""
    return REACH.get() or NO_REACH


@contextmanager
def reaching(reach: Reach) -> Iterator[None]:
    """Run the block with ``reach`` in force (a face's request or tool call)."""
    token = REACH.set(reach)
    try:
        yield
    finally:
        REACH.reset(token)
