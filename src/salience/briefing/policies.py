"""Briefings: what is injected into a model's context at session start, and why.

A briefing is text plus a manifest: every candidate considered, kept (with its score and
tokens) or dropped (with the reason). Policies (one per profile) live with their profiles;
this module holds what they share. Pure: no I/O, ``now`` comes in the request.

Policies work on :class:`Candidates`: every candidate as columns (:mod:`salience.briefing.columns`),
scored a whole column at a time, with whole records fetched only for the memories shown. The
manifest keeps its dropped entries as row numbers and builds them when read.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from salience.briefing.columns import Columns, one_line
from salience.briefing.manifest import (
    AS_GIVEN,
    BY_SCORE,
    NEWEST,
    Manifest,
    ManifestBuilder,
    best_dropped,
)
from salience.briefing.ranking import by_key_then_id
from salience.lazy import lazy_module
from salience.models import ManifestEntry, MemoryRecord
from salience.models.briefings import Briefing, BriefingSection, estimate_tokens

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    Rows = npt.NDArray[np.intp]
    from salience.briefing.columns import Flags, Floats
else:
    np = lazy_module("numpy")


__all__ = [  # re-exported: policies and sessions render memories with it, and use these
    "AS_GIVEN",
    "BY_SCORE",
    "NEWEST",
    "Manifest",
    "ManifestBuilder",
    "ManifestEntry",
    "best_dropped",
    "one_line",
]


# Why a candidate was not injected.
SUPERSEDED = "superseded"
DISABLED = "disabled"
STALE = "stale"
LIMIT = "limit"
TYPE_BUDGET = "type budget"
TOKEN_BUDGET = "token budget"
NOT_IN_SCOPE = "not in scope"
MUTED = "muted"


@dataclass(frozen=True)
class BriefingRequest:
    """Who the briefing is for, and when."""

    now: datetime
    user: str = "default"
    project: str | None = None
    session_id: str | None = None
    budget: int | None = None


def briefing_dict(briefing: Briefing, *, as_of: str, manifest: bool = True) -> dict[str, Any]:
    """``briefing`` as plain data (text, sections, manifest unless ``manifest`` is false), its
    time written as ``as_of``."""
    return {
        "profile": briefing.profile,
        "as_of": as_of,
        "text": briefing.text,
        "tokens": briefing.tokens,
        "overflow": briefing.overflow,
        "sections": [
            {"title": s.title, "lines": list(s.lines), "ids": list(s.ids)}
            for s in briefing.sections
        ],
        "manifest": [
            {
                "id": e.id,
                "type": e.type,
                "kept": e.kept,
                "score": e.score,
                "tokens": e.tokens,
                "section": e.section,
                "reason": e.reason,
            }
            for e in (briefing.manifest if manifest else ())
        ],
    }


class Candidates:
    """What a policy chooses from: every candidate as columns, records fetched when shown.

    ``fetch`` turns row numbers into whole records (from the store, or from the records the
    columns were built from); each row is fetched at most once.
    """

    def __init__(
        self, columns: Columns, fetch: Callable[[list[int]], Sequence[MemoryRecord]]
    ) -> None:
        self.columns = columns
        self._fetch = fetch
        self._fetched: dict[int, MemoryRecord] = {}

    @classmethod
    def of(cls, candidates: Sequence[MemoryRecord] | Candidates) -> Candidates:
        """``candidates`` as they are, or records turned into columns."""
        if isinstance(candidates, Candidates):
            return candidates
        records = list(candidates)
        return cls(Columns.from_records(records), lambda rows: [records[i] for i in rows])

    def __len__(self) -> int:
        return len(self.columns)

    def records(self, rows: Sequence[int] | Rows) -> list[MemoryRecord]:
        """The whole records of ``rows``, in order."""
        wanted = [int(row) for row in rows]
        missing = sorted({row for row in wanted if row not in self._fetched})
        if missing:
            self._fetched.update(zip(missing, self._fetch(missing), strict=True))
        return [self._fetched[row] for row in wanted]


def split_live(candidates: Candidates, now: datetime, manifest: ManifestBuilder) -> Flags:
    """Which candidates are current, enabled and not stale; the others go to the manifest as
    superseded, disabled or stale (in candidate order, without a score)."""
    columns = candidates.columns
    current = columns.current(now)
    live: Flags = current & columns.enabled & ~columns.stale
    dead = np.flatnonzero(~live)
    reasons = np.where(current[dead], np.where(columns.enabled[dead], STALE, DISABLED), SUPERSEDED)
    manifest.drop(dead, reasons, scored=False)
    return live


def ranked(candidates: Candidates, rows: Rows, scores: Floats) -> Rows:
    """``rows`` by score, highest first; ties broken by id ascending (ULID: oldest first)."""
    ordered: Rows = rows[by_key_then_id(-scores[rows], candidates.columns.ids, rows)]
    return ordered


def best(candidates: Candidates, rows: Rows, scores: Floats, limit: int) -> tuple[Rows, Rows]:
    """The first ``limit`` of :func:`ranked` ``rows``, and the others (unordered)."""
    if len(rows) <= limit:
        return ranked(candidates, rows, scores), rows[:0]
    values = scores[rows]
    floor = np.partition(values, len(values) - limit)[len(values) - limit]
    contenders = rows[values >= floor]  # every row tied with the limit-th is a contender
    chosen = ranked(candidates, contenders, scores)[:limit]
    rest = np.setdiff1d(rows, chosen, assume_unique=True)
    return chosen, rest


def render(sections: Sequence[BriefingSection], header: str | None = None) -> str:
    """Markdown-ish text: an optional header line, then ``## title`` and its lines per section."""
    parts = [header] if header else []
    for section in sections:
        if section.lines:
            parts.append(f"## {section.title}\n" + "\n".join(section.lines))
    return "\n\n".join(parts)


def listed_section(
    title: str,
    candidates: Candidates,
    chosen: Rows,
    rest: Rows,
    manifest: ManifestBuilder,
    line: Callable[[MemoryRecord], str],
    order: str = BY_SCORE,
) -> BriefingSection:
    """``chosen`` as one section; ``rest`` dropped for the limit (listed in ``order``)."""
    records = candidates.records(chosen)
    lines = tuple(line(r) for r in records)
    for row, record, text in zip(chosen.tolist(), records, lines, strict=True):
        manifest.keep(row, record, estimate_tokens(text), title)
    manifest.drop(rest, LIMIT, order=order)
    return BriefingSection(title, lines, tuple(r.id for r in records))
