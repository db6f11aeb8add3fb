"""What the record-at-a-time policies shared (the old salience.briefing helpers)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime

from salience.briefing.policies import DISABLED, LIMIT, SUPERSEDED
from salience.models import BriefingSection, ManifestEntry, MemoryRecord, estimate_tokens
from salience.profiles.scoring.signals import layer_weight


@dataclass
class ManifestBuilder:
    """Collects manifest entries; each candidate gets exactly one (the first decision wins)."""

    entries: dict[str, ManifestEntry] = field(default_factory=dict)

    def keep(self, record: MemoryRecord, score: float | None, tokens: int, section: str) -> None:
        """Record that ``record`` is shown in ``section``."""
        self.entries.setdefault(
            record.id, ManifestEntry(record.id, record.type, True, score, tokens, section)
        )

    def drop(self, record: MemoryRecord, reason: str, score: float | None = None) -> None:
        """Record that ``record`` is not shown, and why."""
        self.entries.setdefault(
            record.id, ManifestEntry(record.id, record.type, False, score, reason=reason)
        )

    def drop_all(
        self, records: Iterable[MemoryRecord], reason: str, scores: dict[str, float] | None = None
    ) -> None:
        """Drop several records for the same reason."""
        for record in records:
            self.drop(record, reason, scores.get(record.id) if scores else None)

    def decided(self, memory_id: str) -> bool:
        """Whether this candidate already has an entry."""
        return memory_id in self.entries

    def build(self) -> tuple[ManifestEntry, ...]:
        """Kept entries first (in the order kept), then dropped ones."""
        values = list(self.entries.values())
        return tuple([e for e in values if e.kept] + [e for e in values if not e.kept])


def split_live(
    candidates: Sequence[MemoryRecord], now: datetime, manifest: ManifestBuilder
) -> list[MemoryRecord]:
    """Current, enabled candidates; the others go to the manifest as superseded or disabled."""
    live = []
    for record in candidates:
        if not record.is_current(now):
            manifest.drop(record, SUPERSEDED)
        elif not record.enabled:
            manifest.drop(record, DISABLED)
        else:
            live.append(record)
    return live


def by_score(records: Iterable[MemoryRecord], scores: Mapping[str, float]) -> list[MemoryRecord]:
    """Highest score first; ties broken by id ascending (ULID: oldest first)."""
    return sorted(records, key=lambda r: (-scores[r.id], r.id))


def scored_live(
    candidates: Sequence[MemoryRecord],
    now: datetime,
    manifest: ManifestBuilder,
    score: Callable[[MemoryRecord], float],
) -> tuple[list[MemoryRecord], dict[str, float]]:
    """:func:`split_live`, then each live memory's score by id (x 0.8 from a mounted layer)."""
    live = split_live(candidates, now, manifest)
    return live, {r.id: score(r) * layer_weight(r.layer) for r in live}


def listed_section(
    title: str,
    ranked: Sequence[MemoryRecord],
    limit: int,
    scores: dict[str, float],
    manifest: ManifestBuilder,
    line: Callable[[MemoryRecord], str],
) -> BriefingSection:
    """The first ``limit`` of ``ranked`` as one section; the rest dropped for the limit."""
    chosen = list(ranked[:limit])
    lines = tuple(line(r) for r in chosen)
    for record, text in zip(chosen, lines, strict=True):
        manifest.keep(record, scores[record.id], estimate_tokens(text), title)
    manifest.drop_all(ranked[limit:], LIMIT, scores)
    return BriefingSection(title, lines, tuple(r.id for r in chosen))
