"""Provenance decides standing: where a memory came from, what a channel may claim, and what
only the user's own memories may do.

Sources rank by trust: the user's own word (``user``) above what an agent or salience itself
derived (``agent``, ``consolidation``, ``system``) above what came from outside (``tool``
output, an ``import``, a ``pack``, a ``remote`` store). A channel has a ceiling: a write
through it that claims a source above the ceiling is stored at the ceiling, and its result
says so. The library and the CLI (a person at the machine) may claim ``user``; an MCP tool
call (an agent) at most ``agent``; an HTTP key what it was made with
(``salience keys create --source``). The ceiling of the calling context is
:data:`CEILING`; :func:`channel` lowers it for a block (it never raises it).

Only the user's own memories may pin: a non-zero ``priority`` overrides the computed rank
(aide's pins, salience's pinned section), so on any other source it is set to 0 and the
result says so.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import replace

from salience.models import MemoryRecord

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

CEILING: ContextVar[str] = ContextVar("salience_source_ceiling", default="user")
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


def pin_note(source: str) -> str:
    """What a write's result says when its priority was dropped."""
    return (
        f"priority pins the user's own memories only: this {source!r} memory is ranked by "
        "its score (priority 0)"
    )


def stood(
    record: MemoryRecord, words: str | None, *, claimed: bool
) -> tuple[MemoryRecord, tuple[str, ...]]:
    """``record`` as this channel may write it, and the notes that say what changed: its
    source lowered to the ceiling if it ``claimed`` one above it; its priority dropped
    unless it is the user's own; held in quarantine if ``words`` (new text, as written)
    read as an order to the agent from a source below the user."""
    from salience.write import quarantine  # (its patterns compile on first use: writes only)

    notes: list[str] = []
    if claimed:
        source, lowered = standing(record.source)
        if lowered is not None:
            record = replace(record, source=source)
            notes.append(lowered)
    if record.source != "user" and record.priority != 0.0:
        record = replace(record, priority=0.0)
        notes.append(pin_note(record.source))
    held = quarantine.held_by(record.source, words) if words is not None else None
    if held is None and words is not None and record.title:
        held = quarantine.held_by(record.source, record.title)
    if held is not None:
        record = quarantine.hold(record, held)
        notes.append(quarantine.held_note(held))
    return record, tuple(notes)
