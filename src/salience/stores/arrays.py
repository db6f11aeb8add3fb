"""Files of arrays kept beside a store (the briefing columns, the vector rows).

Format: a magic of 8 bytes, the header's length (8 bytes, little-endian), the header (JSON:
whatever its writer keeps, and ``arrays``: each array's name, dtype, shape and offset), then
the arrays, each at an offset that is a multiple of 64. An array may be given more rows than
it has data for (room to grow): those are left as holes, which read as zeros.

Written to a temporary file, owner-only, then renamed into place (a reader never sees half a
file); read back through a private, copy-on-write mapping: nothing is read until an array is
used, and the arrays are writable (a reader catching up changes private copies of a few
pages, never the file).
"""

from __future__ import annotations

import contextlib
import json
import mmap
import os
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from salience.lazy import lazy_module
from salience.stores.base import COLUMNS_KEY, Store

if TYPE_CHECKING:
    import numpy as np
else:
    np = lazy_module("numpy")

_ALIGN = 64
_CHUNK_BYTES = 64 << 20  # written a slice at a time: bounded temporaries


class Stored(NamedTuple):
    """One array to write: its first ``rows`` rows hold data, and room is made for
    ``room`` rows (the rest are holes: zeros)."""

    name: str
    array: Any  # a NumPy array (or anything sliceable into one)
    rows: int
    room: int


def write(path: Path, magic: bytes, header: dict[str, Any], arrays: Sequence[Stored]) -> None:
    """Write ``header`` and ``arrays`` to ``path`` atomically, readable by its owner only."""
    layout = []
    offset = end = 0
    for entry in arrays:
        shape = (entry.room, *entry.array.shape[1:])
        nbytes = int(np.prod(shape, dtype=np.int64)) * entry.array.dtype.itemsize
        layout.append(
            {"name": entry.name, "dtype": entry.array.dtype.str, "shape": shape, "at": offset}
        )
        end = offset + nbytes
        offset = end + (-nbytes % _ALIGN)
    document = json.dumps({**header, "arrays": layout}).encode("utf-8")
    document += b" " * (-(len(magic) + 8 + len(document)) % _ALIGN)
    start = len(magic) + 8 + len(document)
    temporary = path.with_name(f"{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        with os.fdopen(descriptor, "wb") as out:
            out.write(magic + len(document).to_bytes(8, "little") + document)
            for entry, place in zip(arrays, layout, strict=True):
                out.seek(start + place["at"])
                row_bytes = max(1, entry.array[:1].nbytes)
                step = max(1, _CHUNK_BYTES // row_bytes)
                for first in range(0, entry.rows, step):
                    part = entry.array[first : min(entry.rows, first + step)]
                    out.write(np.ascontiguousarray(part).data)
            # (What was not written reads as zeros; no padding after the last array, so a
            # file cut short by even a byte is seen to be.)
            out.truncate(start + end)
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            temporary.unlink()
        raise


def read(path: Path, magic: bytes) -> tuple[dict[str, Any], dict[str, Any]] | None:
    """The header and the arrays (mapped) of the file at ``path``; None if there is none to
    read (missing, empty, unreadable). A file that is not one, or is damaged (truncated, a
    header that does not parse), raises ValueError."""
    try:
        with path.open("rb") as source:
            data = mmap.mmap(source.fileno(), 0, access=mmap.ACCESS_COPY)
    except (OSError, ValueError):  # (ValueError: an empty file cannot be mapped)
        return None
    if data[: len(magic)] != magic:
        raise ValueError(f"{path} is not a file of this kind")
    length = int.from_bytes(data[len(magic) : len(magic) + 8], "little")
    start = len(magic) + 8
    try:
        header = json.loads(data[start : start + length].decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise ValueError(str(exc)) from None
    body = memoryview(data)[start + length :]
    arrays: dict[str, Any] = {}
    for entry in header["arrays"]:
        dtype = np.dtype(entry["dtype"])
        shape = tuple(int(n) for n in entry["shape"])
        count = int(np.prod(shape, dtype=np.int64))
        at = int(entry["at"])
        if at < 0 or min(shape, default=0) < 0 or at + count * dtype.itemsize > len(body):
            raise ValueError(f"{path} is truncated")
        arrays[entry["name"]] = np.frombuffer(body, dtype, count, at).reshape(shape)
    return header, arrays


def file_key(store: Store) -> str:
    """The key naming this copy of ``store`` in the files kept beside it (made now, in the
    store's meta, if it has none yet): a file written for another copy is not used."""
    key = store.get_meta(COLUMNS_KEY)
    if key is None:
        import secrets  # (once per store: not on a briefing's path)

        key = secrets.token_hex(16)
        store.set_meta(COLUMNS_KEY, key)
    return key
