"""Briefings: what is injected into a model's context at session start, and why.

A briefing is text plus a manifest: every candidate considered, kept (with its score and
tokens) or dropped (with the reason). Policies (one per profile) live with their profiles;
this module holds what they share. Pure: no I/O, ``now`` comes in the request.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime

from salience.models import MemoryRecord
from salience.scoring.signals import layer_weight

# Why a candidate was not injected.
SUPERSEDED = "superseded"
DISABLED = "disabled"
LIMIT = "limit"
TYPE_BUDGET = "type budget"
TOKEN_BUDGET = "token budget"
NOT_IN_SCOPE = "not in scope"
MUTED = "muted"


def estimate_tokens(text: str) -> int:
    """``ceil(chars / 4)``: the token estimate every profile uses (1 char -> 1, 120 -> 30)."""
    return (len(text) + 3) // 4


def one_line(record: MemoryRecord) -> str:
    """A memory as one line: its title if it has one, else its content with spacing folded."""
    return record.title or " ".join(record.content.split())


@dataclass(frozen=True)
class BriefingRequest:
    """Who the briefing is for, and when."""

    now: datetime
    user: str = "default"
    project: str | None = None
    session_id: str | None = None
    budget: int | None = None


@dataclass(frozen=True)
class ManifestEntry:
    """One candidate's fate: kept (score, tokens, section) or dropped (reason)."""

    id: str
    type: str
    kept: bool
    score: float | None = None
    tokens: int = 0
    section: str | None = None
    reason: str | None = None


@dataclass(frozen=True)
class BriefingSection:
    """A titled part of a briefing and the memories it shows, in order."""

    title: str
    lines: tuple[str, ...]
    ids: tuple[str, ...]


@dataclass(frozen=True)
class Briefing:
    """The text to inject, its parts, and the manifest explaining it."""

    profile: str
    text: str
    sections: tuple[BriefingSection, ...]
    manifest: tuple[ManifestEntry, ...]
    as_of: datetime
    overflow: bool = False
    header: str | None = None

    @property
    def tokens(self) -> int:
        """The token estimate of the whole text."""
        return estimate_tokens(self.text) if self.text else 0

    @property
    def kept_ids(self) -> list[str]:
        """Ids of the memories shown, in order of appearance."""
        return [i for s in self.sections for i in s.ids]


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


def render(sections: Sequence[BriefingSection], header: str | None = None) -> str:
    """Markdown-ish text: an optional header line, then ``## title`` and its lines per section."""
    parts = [header] if header else []
    for section in sections:
        if section.lines:
            parts.append(f"## {section.title}\n" + "\n".join(section.lines))
    return "\n\n".join(parts)


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
