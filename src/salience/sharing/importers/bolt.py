"""A read-only reader of bbolt files (aide's ``memory.db``): no maintained Python library
exists, and the format is small (bbolt's page layout, format version 2).

All integers are little-endian. Pages 0 and 1 are meta pages (the valid one with the higher
transaction id is current); a page header is ``id u64, flags u16, count u16, overflow u32``;
a branch element ``pos u32, ksize u32, pgid u64``; a leaf element ``flags u32, pos u32, ksize
u32, vsize u32`` (``pos`` from the element itself). A leaf value flagged ``0x01`` is a nested
bucket: ``root u64, sequence u64``, and when ``root`` is 0 its one leaf page follows inline.
"""

from __future__ import annotations

import struct
from collections.abc import Iterator
from pathlib import Path

from salience import budget
from salience.errors import InvalidInputError

MAGIC = 0xED0CDAED
BRANCH, LEAF, META = 0x01, 0x02, 0x04
BUCKET = 0x01
MAX_DEPTH = 64
"""The deepest a bbolt tree can be in practice (a tree of 64 levels would hold more than any
file): a deeper path is a damaged or hostile file."""
_FNV_OFFSET, _FNV_PRIME = 0xCBF29CE484222325, 0x100000001B3


def _fnv64a(data: bytes) -> int:
    value = _FNV_OFFSET
    for byte in data:
        value = ((value ^ byte) * _FNV_PRIME) & 0xFFFFFFFFFFFFFFFF
    return value


class BoltFile:
    """The buckets of a bbolt file, read whole into memory (a copy: the owner may be writing)."""

    def __init__(self, path: Path) -> None:
        try:
            self._data = path.read_bytes()
        except OSError as exc:
            raise InvalidInputError(f"cannot read {path}: {exc.strerror}") from None
        metas = [m for m in (self._meta(0), self._meta_at_second()) if m is not None]
        if not metas:
            raise InvalidInputError(f"{path} is not a bbolt database (no valid meta page)")
        self.page_size, self._root, _ = max(metas, key=lambda m: m[2])
        self._path = path
        self._spend = budget.active()

    def _meta(self, offset: int) -> tuple[int, int, int] | None:
        """(page size, root bucket's page, transaction id) of a valid meta page at ``offset``."""
        if offset + 80 > len(self._data):
            return None
        flags = struct.unpack_from("<H", self._data, offset + 8)[0]
        magic, version, page_size = struct.unpack_from("<III", self._data, offset + 16)
        if not flags & META or magic != MAGIC or version != 2 or not 512 <= page_size <= 1 << 16:
            return None
        root, _sequence, _freelist, _pgid, txid, checksum = struct.unpack_from(
            "<QQQQQQ", self._data, offset + 32
        )
        if _fnv64a(self._data[offset + 16 : offset + 72]) != checksum:
            return None
        return page_size, root, txid

    def _meta_at_second(self) -> tuple[int, int, int] | None:
        first = self._meta(0)
        size = first[0] if first is not None else 4096
        return self._meta(size)

    def bucket(self, name: bytes) -> dict[bytes, bytes]:
        """The key/value pairs of a top-level bucket ({} if it does not exist)."""
        seen: set[int] = set()  # (a tree reaches each page once: a page reached again is a loop)
        for key, value, flags in self._elements(self._data, self._root * self.page_size, seen):
            if key == name and flags & BUCKET:
                return {k: v for k, v, f in self._bucket(value, set()) if not f & BUCKET}
        return {}

    def _bucket(self, value: bytes, seen: set[int]) -> Iterator[tuple[bytes, bytes, int]]:
        root = struct.unpack_from("<Q", value, 0)[0]
        if root == 0:  # an inline bucket: its leaf page follows its header
            yield from self._elements(value, 16, seen)
        else:
            yield from self._elements(self._data, root * self.page_size, seen)

    def _elements(
        self, buffer: bytes, offset: int, seen: set[int], depth: int = 0
    ) -> Iterator[tuple[bytes, bytes, int]]:
        """Every (key, value, flags) under the page at ``offset`` of ``buffer``, in key order;
        each page of the file once (``seen``), or the file is damaged: a branch that points
        back up its own path, or at a page another branch holds, would never end. The job's
        budget is checked at every page."""
        if buffer is self._data:
            if offset in seen or not 0 <= offset < len(buffer) or depth > MAX_DEPTH:
                raise InvalidInputError(f"{self._path.name} is damaged (its tree loops)")
            seen.add(offset)
            self._spend.check()  # (a file of many pages is read within the job's time)
        try:
            flags, count = struct.unpack_from("<HH", buffer, offset + 8)
            if offset + 16 + 16 * count > len(buffer):
                raise InvalidInputError(f"{self._path.name} is damaged (a page runs past its end)")
            for n in range(count):
                at = offset + 16 + 16 * n
                if flags & BRANCH:
                    _pos, _ksize, child = struct.unpack_from("<IIQ", buffer, at)
                    page = child * self.page_size
                    yield from self._elements(self._data, page, seen, depth + 1)
                elif flags & LEAF:
                    kind, pos, ksize, vsize = struct.unpack_from("<IIII", buffer, at)
                    start = at + pos
                    yield (
                        buffer[start : start + ksize],
                        buffer[start + ksize : start + ksize + vsize],
                        kind,
                    )
                else:
                    raise InvalidInputError(
                        f"{self._path.name}: page at {offset} is not a tree page"
                    )
        except struct.error:
            raise InvalidInputError(
                f"{self._path.name} is damaged (a page runs past its end)"
            ) from None
