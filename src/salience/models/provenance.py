"""Provenance: where a memory came from, and the highest source a write may claim here.

A channel's ceiling is the highest source a write through it may claim (the library and the
CLI: a person, ``user``; an MCP tool call: ``agent``; an HTTP key: what it was made with; an
unsigned import or pack: ``import``, ``pack``). The write authority
(:mod:`salience.write.authority`) decides every change from it and from the memory's own
source.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

SOURCES = ("user", "agent", "tool", "consolidation", "import", "pack", "remote", "system")
"""Where a memory came from (how far each is trusted: :data:`TRUST`)."""

TRUST = {
    "user": 3,
    "agent": 2,
    "consolidation": 2,
    "system": 2,
    "tool": 1,
    "import": 1,
    "pack": 1,
    "remote": 1,
}
"""Each source's standing: higher is more trusted."""

PERSON = "user"
"""The ceiling of a person: the library, the CLI, a key made ``--source user``."""

CEILING: ContextVar[str] = ContextVar("salience_source_ceiling", default=PERSON)
"""The highest source a write in this context may claim."""


@contextmanager
def channel(ceiling: str) -> Iterator[None]:
    """Writes in this block claim at most ``ceiling`` (or the lower ceiling already set)."""
    current = CEILING.get()
    token = CEILING.set(ceiling if TRUST[ceiling] < TRUST[current] else current)
    try:
        yield
    finally:
        CEILING.reset(token)


def standing(source: str) -> tuple[str, str | None]:
    """The source a write claiming ``source`` is stored with here, and a note if lowered."""
    ceiling = CEILING.get()
    if TRUST.get(source, 0) > TRUST[ceiling]:
        return ceiling, (
            f"source {source!r} is above what this channel may claim: stored as {ceiling!r}"
        )
    return source, None


def is_person() -> bool:
    """Whether the calling context is a person's (its ceiling is the user's own)."""
    return CEILING.get() == PERSON
