"""What a write returns: its outcome (:class:`WriteResult`), an import's counts, and the
update links a new memory was found to make (issue #61).

Built when a write first needs them (:mod:`salience.models` imports this module on first use):
a cold ``salience briefing`` does not.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

from salience.models import Outcome

if TYPE_CHECKING:
    from salience.models import MemoryRecord


@dataclass(frozen=True)
class UpdateLink:
    """A newer memory found to change what an older one says (``why``: the shared subject,
    the values that differ, the words of change), ``open`` until a person confirms it (a
    supersession) or dismisses it; ``confirmed`` at once by the ``supersede`` policy."""

    new_id: str
    old_id: str
    user: str
    confidence: float
    why: str
    state: str
    found_at: datetime
    decided_at: datetime | None = None


@dataclass(frozen=True)
class WriteResult:
    """The outcome of one write, with the id concerned; ``reason`` and ``gate`` when rejected;
    ``updates``: the older memories a new one was found to change."""

    outcome: Outcome
    id: str | None
    reason: str | None = None
    gate: str | None = None
    record: MemoryRecord | None = None
    notes: tuple[str, ...] = ()  # what the pipeline did on the way (redacted, gate bypassed)
    updates: tuple[UpdateLink, ...] = ()

    @property
    def ok(self) -> bool:
        """Whether the write was accepted (anything but ``rejected``)."""
        return self.outcome is not Outcome.REJECTED


@dataclass(frozen=True)
class ImportResult:
    """What an import did: how many records were created, replaced, or already identical,
    and how many of them were given ids of the importer's own (``renamed``: their ids could
    not be theirs; see :meth:`salience.Memory.import_`)."""

    created: int = 0
    updated: int = 0
    unchanged: int = 0
    renamed: int = 0

    @property
    def total(self) -> int:
        """Records read from the input."""
        return self.created + self.updated + self.unchanged
