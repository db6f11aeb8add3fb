"""Which writes quarantine holds, and how a held memory looks: disabled, tagged
``quarantine`` and ``quarantine:<family>`` (the verbs: :mod:`salience.engine.quarantine`)."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from salience.models import MemoryRecord

if TYPE_CHECKING:  # (the patterns compile when a text is first checked: writes only)
    from salience.write.gates.instructions import Instruction

TAG = "quarantine"
"""The tag of a held memory (beside ``quarantine:<family>``, which says why)."""


def held_by(source: str, *texts: str | None) -> Instruction | None:
    """Why a write from ``source`` with these texts is held (None: it is not); never for the
    user's own."""
    if source == "user":
        return None
    from salience.write.gates.instructions import find_instruction

    for text in texts:
        found = find_instruction(text) if text else None
        if found is not None:
            return found
    return None


def hold(record: MemoryRecord, why: Instruction) -> MemoryRecord:
    """``record`` as quarantine keeps it: disabled, tagged with the family that held it."""
    added = tuple(t for t in (TAG, f"{TAG}:{why.family}") if t not in record.tags)
    return replace(record, enabled=False, tags=(*record.tags, *added))


def released(record: MemoryRecord) -> MemoryRecord:
    """``record`` let out of quarantine: enabled, its quarantine tags gone."""
    tags = tuple(t for t in record.tags if t != TAG and not t.startswith(f"{TAG}:"))
    return replace(record, enabled=True, tags=tags)


def held_note(why: Instruction) -> str:
    """What the write's result says about a held memory."""
    return (
        f"held in quarantine: it {why.reason}; no briefing carries it until a person approves "
        "it (salience quarantine approve ID)"
    )


def is_held(record: MemoryRecord) -> bool:
    """Whether ``record`` waits in quarantine."""
    return not record.enabled and TAG in record.tags


def family(record: MemoryRecord) -> str:
    """Why a held memory was held (its ``quarantine:<family>`` tag)."""
    return next((t.split(":", 1)[1] for t in record.tags if t.startswith(f"{TAG}:")), "")
