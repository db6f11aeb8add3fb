"""Columns that grow at their end without copying what they hold.

A write adds a row or two to a store's columns (:mod:`salience.briefing.snapshot`). Joining
them to every column made new arrays each time: at 100,000 memories the 29 arrays (the ids
alone 10 MB) took 4.5 ms to copy, paid by the first recall or briefing after each write.
:class:`Room` keeps each column in an array with room past its end: new rows are written
there and the columns become longer views of the same arrays; only when the room is full
(or the columns were replaced by other arrays: a deletion, a copy before a change) is
everything copied, into arrays a quarter larger than needed.

Columns handed out before (views of the first ``n`` rows, or taken from them) never see a
row written past their end, so they need no copy. A row changed in place is another matter:
while columns are lent out (a briefing's view reads them lazily), :meth:`Room.changed` copies
the columns the change alters before writing them, and only those (a recall's touch alters
two of the 29; copying them all after a briefing took 6.7 ms at 100,000 memories). The
others stay shared with what was lent, and are copied in turn if a later change alters them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from salience.briefing.columns import ARRAY_FIELDS, Columns
from salience.lazy import lazy_module

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt
else:
    np = lazy_module("numpy")

SPARE = 4
"""A new room holds a quarter more rows than needed (``1 / SPARE`` of them)..."""
LEAST_SPARE = 64
"""... and at least this many more."""


class Room:
    """The arrays one snapshot's columns are views of (see the module's text)."""

    def __init__(self) -> None:
        self._arrays: dict[str, npt.NDArray[np.generic]] = {}
        self._size = 0  # how many rows of the arrays are the columns'
        self._shared: set[str] = set()  # the columns whose arrays lent columns may read

    def lent(self) -> None:
        """The columns as they are now may be read by columns handed out: a change to a row
        copies what it alters first."""
        self._shared = set(ARRAY_FIELDS)

    def fresh(self) -> None:
        """The columns are new arrays (taken, not lent): nothing of them is shared."""
        self._shared = set()

    def changed(self, columns: Columns, rows: npt.NDArray[np.intp], other: Columns) -> Columns:
        """``columns`` with ``rows`` overwritten by ``other``'s rows, in order (as
        ``Columns.assign``), a column lent out copied before it is altered."""
        if other.vocab is not columns.vocab:
            raise ValueError("columns coded against different vocabularies cannot be joined")
        arrays: dict[str, Any] = {}
        for name in ARRAY_FIELDS:
            target, values = getattr(columns, name), getattr(other, name)
            if name in self._shared and not _alike(target[rows], values):
                target = self._copy(name, target)
                self._shared.discard(name)
            if target.dtype != values.dtype and values.dtype.itemsize > target.dtype.itemsize:
                target = target.astype(values.dtype)  # (a longer id than any before)
            target[rows] = values
            arrays[name] = target
        several = dict(columns.several)
        for memory_id in arrays["ids"][rows].tolist():
            several.pop(memory_id, None)
        several.update(other.several)
        return Columns(vocab=columns.vocab, several=several, **arrays)

    def _copy(self, name: str, target: npt.NDArray[np.generic]) -> npt.NDArray[np.generic]:
        """A copy of a column: of the room's whole array when the column is a view of it (the
        room keeps the copy, and its room past the end)."""
        if name not in self._arrays or target.base is not self._arrays[name]:
            return target.copy()
        self._arrays[name] = copied = self._arrays[name].copy()
        return copied[: len(target)]

    def appended(self, columns: Columns, more: Columns) -> Columns:
        """``columns`` then ``more``'s rows (coded against the same vocabularies), as
        ``columns.extended(more)`` gives them, written past the end of the room's arrays
        when ``columns`` are the views it gave and there is room."""
        if more.vocab is not columns.vocab:
            raise ValueError("columns coded against different vocabularies cannot be joined")
        n, total = len(columns), len(columns) + len(more)
        if not self._holds(columns, total) or more.ids.itemsize > self._arrays["ids"].itemsize:
            self._arrays = {
                name: _grown(getattr(columns, name), getattr(more, name), total)
                for name in ARRAY_FIELDS
            }
            self._shared = set()  # (new arrays: nothing lent reads them)
        for name in ARRAY_FIELDS:
            self._arrays[name][n:total] = getattr(more, name)
        self._size = total
        views: dict[str, Any] = {name: array[:total] for name, array in self._arrays.items()}
        return Columns(vocab=columns.vocab, several={**columns.several, **more.several}, **views)

    def _holds(self, columns: Columns, total: int) -> bool:
        """Whether ``columns`` are this room's views of all it holds, with room for
        ``total`` rows."""
        if not self._arrays or len(columns) != self._size or total > len(self._arrays["ids"]):
            return False
        return all(getattr(columns, name).base is self._arrays[name] for name in ARRAY_FIELDS)


def _alike(held: npt.NDArray[np.generic], values: npt.NDArray[np.generic]) -> bool:
    """Whether writing ``values`` over ``held`` would change nothing (bit for bit: -0.0 is
    not 0.0 here, a NaN is itself)."""
    if held.dtype != values.dtype:
        return held.dtype.kind == values.dtype.kind == "U" and bool(np.array_equal(held, values))
    return held.tobytes() == values.tobytes()


def _grown(
    held: npt.NDArray[np.generic], more: npt.NDArray[np.generic], total: int
) -> npt.NDArray[np.generic]:
    """A new array of room for ``total`` rows and more, with ``held`` at its start (of a
    dtype that holds both: the longest id's width)."""
    capacity = total + max(total // SPARE, LEAST_SPARE)
    dtype = np.promote_types(held.dtype, more.dtype)
    grown = np.empty(capacity, dtype=dtype)
    grown[: len(held)] = held
    return grown
