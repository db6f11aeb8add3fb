"""A briefing's manifest: every candidate's entry, kept or dropped and why.

Dropped entries are kept as row numbers of the candidates' columns and built when read: a
briefing of 100,000 candidates shows a few dozen, and building the other entries took 0.24 s.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, overload

from salience.briefing.columns import Columns
from salience.lazy import lazy_module
from salience.models import MemoryRecord
from salience.models.briefings import ManifestEntry

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    from salience.briefing.columns import Flags, Floats
    from salience.briefing.policies import Candidates

    Rows = npt.NDArray[np.intp]
else:
    np = lazy_module("numpy")


# How the rows of a dropped group are ordered when the manifest is read.
AS_GIVEN = "as given"
BY_SCORE = "by score"  # highest first, ties by id
NEWEST = "newest"  # by creation time then id, newest first


@dataclass(frozen=True)
class _Dropped:
    rows: Rows
    reasons: str | npt.NDArray[np.str_]
    scores: Floats | None
    order: str


class Manifest(Sequence[ManifestEntry]):
    """Every candidate's entry: kept ones first (in the order kept), then dropped ones in the
    order they were decided. Dropped entries are built when first read."""

    def __init__(
        self, columns: Columns, kept: list[ManifestEntry], dropped: list[_Dropped]
    ) -> None:
        self._columns = columns
        self._kept = kept
        self._dropped = dropped
        self._length = len(kept) + sum(len(d.rows) for d in dropped)
        self._entries: tuple[ManifestEntry, ...] | None = None

    def __len__(self) -> int:
        return self._length

    @property
    def kept(self) -> list[ManifestEntry]:
        """The kept entries (cheap: no dropped entry is built)."""
        return list(self._kept)

    def reasons(self) -> dict[str, int]:
        """How many candidates were dropped for each reason (cheap)."""
        counts: dict[str, int] = {}
        for group in self._dropped:
            if isinstance(group.reasons, str):
                counts[group.reasons] = counts.get(group.reasons, 0) + len(group.rows)
            else:
                names, numbers = np.unique(group.reasons, return_counts=True)
                for name, number in zip(names.tolist(), numbers.tolist(), strict=True):
                    counts[name] = counts.get(name, 0) + number
        return counts

    def best_dropped(self, n: int) -> list[ManifestEntry]:
        """The ``n`` scored dropped entries with the highest scores, ties by id (see
        :func:`best_dropped`): the best of each group found on its columns, then built."""
        columns = self._columns
        found: list[ManifestEntry] = []
        for group in self._dropped:
            if group.scores is None or n <= 0 or not len(group.rows):
                continue
            scores = group.scores[group.rows]
            k = min(n, len(scores))
            floor = np.partition(scores, len(scores) - k)[len(scores) - k]
            at = np.flatnonzero(scores >= floor)  # (every row tied with the k-th)
            at = at[np.lexsort((columns.ids[group.rows[at]], -scores[at]))[:n]]
            reasons = group.reasons if isinstance(group.reasons, str) else group.reasons[at]
            found += self._build(_Dropped(group.rows[at], reasons, group.scores, AS_GIVEN))
        return heapq.nsmallest(n, found, key=lambda e: (-(e.score or 0.0), e.id))

    def _all(self) -> tuple[ManifestEntry, ...]:
        if self._entries is None:
            entries = list(self._kept)
            for group in self._dropped:
                entries += self._build(group)
            self._entries = tuple(entries)
        return self._entries

    def _build(self, group: _Dropped) -> list[ManifestEntry]:
        columns = self._columns
        rows = group.rows
        if group.order == BY_SCORE and group.scores is not None:
            rows = rows[np.lexsort((columns.ids[rows], -group.scores[rows]))]
        elif group.order == NEWEST:
            rows = rows[np.lexsort((columns.ids[rows], columns.created[rows]))[::-1]]
        ids = columns.ids[rows].tolist()
        types = columns.type_names(rows)
        scores = group.scores[rows].tolist() if group.scores is not None else [None] * len(ids)
        reasons = (
            [group.reasons] * len(ids)
            if isinstance(group.reasons, str)
            else group.reasons[np.searchsorted(group.rows, rows)].tolist()
            if group.order != AS_GIVEN
            else group.reasons.tolist()
        )
        return [
            ManifestEntry(i, t, False, s, reason=r)
            for i, t, s, r in zip(ids, types, scores, reasons, strict=True)
        ]

    @overload
    def __getitem__(self, index: int) -> ManifestEntry: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[ManifestEntry]: ...

    def __getitem__(self, index: int | slice) -> ManifestEntry | Sequence[ManifestEntry]:
        return self._all()[index]

    def __iter__(self) -> Iterator[ManifestEntry]:
        return iter(self._all())

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Manifest | tuple | list):
            return self._all() == tuple(other)
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self._all())

    def __repr__(self) -> str:
        return f"Manifest({len(self._kept)} kept, {len(self) - len(self._kept)} dropped)"


class ManifestBuilder:
    """Collects the manifest; each candidate gets exactly one entry (the first decision wins)."""

    def __init__(self, candidates: Candidates, scores: Floats) -> None:
        self._columns = candidates.columns
        self._scores = scores
        self._decided: Flags = np.zeros(len(candidates), dtype=np.bool_)
        self._kept: list[ManifestEntry] = []
        self._dropped: list[_Dropped] = []

    def decided(self, row: int) -> bool:
        """Whether this candidate already has an entry."""
        return bool(self._decided[row])

    def keep(self, row: int, record: MemoryRecord, tokens: int, section: str) -> None:
        """Record that ``record`` (the candidate at ``row``) is shown in ``section``."""
        if not self._decided[row]:
            self._decided[row] = True
            score = float(self._scores[row])
            self._kept.append(ManifestEntry(record.id, record.type, True, score, tokens, section))

    def drop(
        self,
        rows: Rows | Sequence[int],
        reasons: str | npt.NDArray[np.str_],
        *,
        scored: bool = True,
        order: str = AS_GIVEN,
    ) -> None:
        """Record that ``rows`` are not shown, and why (one reason, or one per row)."""
        rows = np.asarray(rows, dtype=np.intp)
        fresh = ~self._decided[rows]
        if not fresh.all():
            if not isinstance(reasons, str):
                reasons = reasons[fresh]
            rows = rows[fresh]
        if not len(rows):
            return
        if order != AS_GIVEN:  # kept sorted, to find each row's reason when read
            sort = np.argsort(rows, kind="stable")
            rows = rows[sort]
            if not isinstance(reasons, str):
                reasons = reasons[sort]
        self._decided[rows] = True
        self._dropped.append(_Dropped(rows, reasons, self._scores if scored else None, order))

    def undecided(self, mask: Flags) -> Rows:
        """Rows of ``mask`` that have no entry yet, in row order."""
        rows: Rows = np.flatnonzero(mask & ~self._decided)
        return rows

    def build(self) -> Manifest:
        """Kept entries first (in the order kept), then dropped ones (in the order decided)."""
        return Manifest(self._columns, self._kept, self._dropped)


def best_dropped(manifest: Sequence[ManifestEntry], n: int) -> list[ManifestEntry]:
    """The ``n`` dropped entries with the highest scores (ties: lower id first; unscored ones
    left out), without building the others when ``manifest`` is a :class:`Manifest`."""
    if isinstance(manifest, Manifest):
        return manifest.best_dropped(n)
    dropped = (e for e in manifest if not e.kept and e.score is not None)
    return heapq.nsmallest(n, dropped, key=lambda e: (-(e.score or 0.0), e.id))
