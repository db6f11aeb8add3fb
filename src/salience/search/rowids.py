"""Which memory each vector row holds, and which row holds a memory, without building a
million Python strings: rows mapped from disk keep their ids as a fixed-width array and a
sorted order (:mod:`salience.search.saved`); rows added since are a list and a dict.

At 1M rows, decoding every id took 0.12 s and a dict of them 0.5 s, more than the rest of a
new process's first recall; a binary search finds the few rows a search asks for in
microseconds.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from itertools import repeat
from operator import itemgetter
from typing import TYPE_CHECKING, TypeVar, overload

from salience.lazy import lazy_module

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt
else:
    np = lazy_module("numpy")


class SavedIds:
    """The ids of rows ``0..n-1`` as saved: fixed-width bytes, and their sorted order."""

    def __init__(self, fixed: npt.NDArray[np.bytes_], order: npt.NDArray[np.int64]) -> None:
        self.fixed = fixed
        self._order = order

    def __len__(self) -> int:
        return len(self.fixed)

    def find(self, ids: Sequence[str]) -> list[int | None]:
        """The row of each id (None: not among these rows)."""
        return [None if r < 0 else r for r in self.rows_of(ids).tolist()]

    def rows_of(self, ids: Sequence[str]) -> npt.NDArray[np.intp]:
        """The row of each id (-1: not among these rows)."""
        if not ids or not len(self.fixed):
            return np.full(len(ids), -1, dtype=np.intp)
        encoded = [i.encode("utf-8") for i in ids]
        wanted = np.array(encoded, dtype=self.fixed.dtype)
        at = np.searchsorted(self.fixed, wanted, sorter=self._order)
        rows = self._order[np.minimum(at, len(self.fixed) - 1)].astype(np.intp)
        found = self.fixed[rows] == wanted
        # An id longer than the width was cut by the conversion, and NumPy's bytes drop
        # trailing NULs: neither is a saved id.
        width = self.fixed.itemsize
        if max(map(len, encoded)) > width or any(b"\0" in e for e in encoded):
            found &= np.array([len(e) <= width and b"\0" not in e for e in encoded])
        return np.where(found, rows, -1)


class RowIds(Sequence[str]):
    """Row number -> memory id: the saved rows (if any), then a list of rows added since.
    Only ever appended to (a row keeps its memory until every row is read again)."""

    def __init__(self, saved: SavedIds | None = None) -> None:
        self.saved = saved
        self._base = 0 if saved is None else len(saved)
        self._tail: list[str] = []
        self._more: Sequence[str] = ()  # (ids after the tail: see joined)

    def joined(self, more: Sequence[str]) -> RowIds:
        """These ids, then ``more`` (rows after the last): a view that copies neither, for as
        long as these are not appended to."""
        view = RowIds(self.saved)
        view._tail, view._more = self._tail, more
        return view

    def __len__(self) -> int:
        return self._base + len(self._tail) + len(self._more)

    @overload
    def __getitem__(self, index: int) -> str: ...

    @overload
    def __getitem__(self, index: slice) -> list[str]: ...

    def __getitem__(self, index: int | slice) -> str | list[str]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        if index < 0:
            index += len(self)
        if index < self._base:
            assert self.saved is not None
            return bytes(self.saved.fixed[index]).decode("utf-8")
        index -= self._base
        tail = self._tail
        return tail[index] if index < len(tail) else self._more[index - len(tail)]

    def __iter__(self) -> Iterator[str]:
        if self.saved is not None:
            yield from (bytes(i).decode("utf-8") for i in self.saved.fixed.tolist())
        yield from self._tail
        yield from self._more

    def take(self, rows: Sequence[int]) -> list[str]:
        """The ids of these rows (each in range, not negative), in order: one C call for a
        store whose rows were all added in this process (a list), else row by row."""
        if self.saved is None and not self._more and len(rows) > 1:
            return list(itemgetter(*rows)(self._tail))
        return [self[r] for r in rows]

    def append(self, memory_id: str) -> None:
        self._tail.append(memory_id)

    def extend(self, memory_ids: Iterable[str]) -> None:
        self._tail.extend(memory_ids)

    def fixed(self, size: int) -> npt.NDArray[np.bytes_]:
        """The first ``size`` ids as fixed-width UTF-8 bytes (for saving)."""
        tail = [i.encode("utf-8") for i in self._tail[: max(0, size - self._base)]]
        width = max([1, *(len(i) for i in tail)])
        parts = []
        if self.saved is not None:
            saved = self.saved.fixed[: min(size, self._base)]
            width = max(width, saved.itemsize)
            parts.append(saved.astype(f"S{width}"))
        parts.append(np.array(tail, dtype=f"S{width}"))
        return np.concatenate(parts)


class RowLookup:
    """Memory id -> row number, over :class:`RowIds`: a binary search in the saved rows, a
    dict for the rows added since."""

    def __init__(self, ids: RowIds) -> None:
        self._saved = ids.saved
        self._added: dict[str, int] = {}

    def get(self, memory_id: str) -> int | None:
        return self.find([memory_id])[0]

    def find(self, memory_ids: Sequence[str]) -> list[int | None]:
        """The row of each id (None: no row)."""
        return [None if r < 0 else r for r in self.rows_of(memory_ids).tolist()]

    def rows_of(self, memory_ids: Sequence[str]) -> npt.NDArray[np.intp]:
        """The row of each id (-1: no row), looked up in C where it can be."""
        n, added = len(memory_ids), self._added
        rows = None if self._saved is None else self._saved.rows_of(memory_ids)
        if rows is not None and not added:
            return rows
        from_added = np.fromiter(map(added.get, memory_ids, repeat(-1)), np.intp, n)
        return from_added if rows is None else np.where(rows >= 0, rows, from_added)

    def rows(self, memory_ids: Sequence[str]) -> list[int]:
        """The rows of those ids that have one, in the order given."""
        return [r for r in self.rows_of(memory_ids).tolist() if r >= 0]

    def isdisjoint(self, memory_ids: Sequence[str]) -> bool:
        """Whether none of the ids has a row."""
        if self._saved is None:
            return self._added.keys().isdisjoint(memory_ids)
        return all(r is None for r in self.find(memory_ids))

    def __setitem__(self, memory_id: str, row: int) -> None:
        self._added[memory_id] = row

    def update(self, pairs: Iterable[tuple[str, int]]) -> None:
        self._added.update(pairs)


def take(ids: Sequence[str], rows: Sequence[int]) -> list[str]:
    """``[ids[r] for r in rows]``, at C speed where ``ids`` allows it (:meth:`RowIds.take`)."""
    if isinstance(ids, RowIds):
        return ids.take(rows)
    return [ids[r] for r in rows]


_Item = TypeVar("_Item", bound="np.generic")


def extended(array: npt.NDArray[_Item], size: int, fill: float) -> npt.NDArray[_Item]:
    """A per-row array made ``size`` long, the new places set to ``fill``.

    The result is a view of a buffer with room to spare: made again from a view this function
    returned, it grows in place (a write adds a row; copying 100,000 rows for it, three arrays
    at a time, cost a catch-up ~0.3 ms here). The rows already held keep their values.
    """
    held = len(array)
    base = array.base
    if (
        isinstance(base, np.ndarray)
        and base.ndim == 1
        and base.flags.owndata  # (a buffer made here, not a mapped file's)
        and base.dtype == array.dtype
        and len(base) >= size
        and array.ctypes.data == base.ctypes.data
        and array.strides == base.strides
    ):
        out = base[:size]
    else:
        out = np.empty(max(size, held * 3 // 2 + 64), dtype=array.dtype)[:size]
        out[:held] = array
    out[held:] = fill
    return out
