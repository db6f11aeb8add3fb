"""Vectors kept on disk beside the store and mapped, not read, by a new process.

Loading a store's vectors means reading every row out of SQLite: 10-15 s and 2.7 GB at a
million memories, paid by every new process's first recall (a CLI call, a hook). The rows a
search needs are kept instead in ``salience.db.vectors``, with the int8 first-pass copy, the
session neighbours and the mixed norms, and the file is memory-mapped copy-on-write: opening
it reads nothing, a search reads the pages it scores, and catching up with writes made since
changes private copies of a few pages, never the file.

It is never trusted blindly: it names the store it belongs to (the store's file key) and the
vector state it reflects (count and highest ``vseq``); a process catches up from the store
what was written after it, and reads the store whole (then writes a new file) when the store
holds fewer vectors than it explains, went back in time, or belongs to another copy. The
file holds ids, session names and vectors, never a memory's text, and is readable by its
owner only; erasing a memory or a user deletes it (zeroed first), and the next search that
reads the store writes it again.

Format (:mod:`salience.stores.arrays`): ``SALVECS1``, a header (the store key, the state,
the order token, the session names, the mixing weights), then the arrays: the ids
(fixed-width UTF-8) and their sorted order (:mod:`salience.search.rowids` finds a row by
binary search: no id is decoded until asked for), session codes, the float32 rows, and what
exact search made of them. Rows past ``size`` in the matrix and the int8 arrays are room to
grow, left as holes (zeros).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from salience.briefing.columns import Vocabulary
from salience.lazy import lazy_module
from salience.search.rowids import RowIds, SavedIds
from salience.stores import arrays as stored_arrays
from salience.stores.arrays import Stored

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt
else:
    np = lazy_module("numpy")

MAGIC = b"SALVECS1"
FORMAT = 1
SAVE_FROM = 2000
"""Stores with fewer vectors are read whole by a new process (a few ms): nothing is saved."""
SAVE_AFTER = 1000
"""Rows read from the store since the last save that make a new save worth it (or a 64th of
the store, whichever is more: a save at 1M writes ~2 GB)."""


def saved_vectors(location: str) -> Path | None:
    """Where a store's vectors are kept between processes: beside its SQLite file (a
    PostgreSQL store's, an in-memory one's: nowhere)."""
    if "://" in location or location in ("", ":memory:"):
        return None
    return Path(location + ".vectors")


@dataclass
class Snapshot:
    """What :class:`~salience.search.rows.VectorRows` keeps, as saved or loaded. Arrays may
    be longer than ``size`` (room to grow: zeros)."""

    key: str
    order: str  # the row order's token (see VectorRows): an approximate index keys rows by it
    last_vseq: int
    size: int
    unit: bool
    ids: RowIds  # (only rows below ``size`` are read: it may grow meanwhile)
    sessions: list[str | None]
    matrix: npt.NDArray[np.float32]  # (capacity + 1, dims): a zero row always follows
    neighbours: tuple[npt.NDArray[np.intp], npt.NDArray[np.intp]] | None = None
    mixed_norms: dict[float, npt.NDArray[np.float32]] = field(default_factory=dict)
    int8: tuple[npt.NDArray[np.int8], npt.NDArray[np.float32], npt.NDArray[np.float32]] | None = (
        None  # values, scales, residuals (capacity rows)
    )


def save(path: Path, snapshot: Snapshot) -> None:
    """Write ``snapshot`` to ``path`` atomically (a temporary file, then a rename), owner-only.
    Reads the arrays a chunk at a time: the rows past ``size`` are written as holes."""
    size = snapshot.size
    sessions = Vocabulary()  # (None: NONE, -1)
    codes = np.fromiter((sessions.code(s) for s in snapshot.sessions[:size]), np.int32, size)
    names = sessions.names
    ids = snapshot.ids.fixed(size)
    order = np.argsort(ids, kind="stable")
    room = size + max(64, size // 8)  # rows the next process may add without growing
    arrays = [
        Stored("ids", ids, size, size),
        Stored("id_order", order, size, size),
        Stored("sessions", codes, size, size),
        Stored("matrix", snapshot.matrix, size, room + 1),  # (+ the zero row)
    ]
    if snapshot.neighbours is not None:
        before, after = snapshot.neighbours
        arrays += [Stored("before", before, size, size), Stored("after", after, size, size)]
    weights = sorted(snapshot.mixed_norms)
    arrays += [
        Stored(f"norms{i}", snapshot.mixed_norms[w], size, size) for i, w in enumerate(weights)
    ]
    if snapshot.int8 is not None:
        for name, array in zip(("int8", "scales", "residuals"), snapshot.int8, strict=True):
            arrays.append(Stored(name, array, size, room))
    header = {
        "format": FORMAT,
        "store": snapshot.key,
        "order": snapshot.order,
        "last_vseq": snapshot.last_vseq,
        "size": size,
        "unit": snapshot.unit,
        "weights": weights,
        "session_names": names,
    }
    stored_arrays.write(path, MAGIC, header, arrays)


def load(path: Path, key: str) -> Snapshot | None:
    """The vectors saved at ``path`` for the store named ``key``, mapped (nothing is read
    until used); None if there are none usable (missing, another format or store, damaged)."""
    try:
        return _parse(path, key)
    except (ValueError, KeyError, TypeError, IndexError):
        return None  # damaged or from another version: the store is read whole instead


def _parse(path: Path, key: str) -> Snapshot | None:
    found = stored_arrays.read(path, MAGIC)
    if found is None:
        return None
    header, arrays = found
    if header["format"] != FORMAT or header["store"] != key:
        return None
    size = int(header["size"])
    ids = RowIds(SavedIds(arrays["ids"], arrays["id_order"]))
    names: list[str | None] = [*header["session_names"], None]
    codes = arrays["sessions"]
    matrix = arrays["matrix"]
    if len(ids) != size or len(codes) != size or matrix.ndim != 2 or len(matrix) <= size:
        raise ValueError("arrays of other lengths")
    order = arrays["id_order"]
    if len(order) != size or (size and (int(order.min()) < 0 or int(order.max()) >= size)):
        raise ValueError("an order that is not of these rows")
    if size and (int(codes.min()) < -1 or int(codes.max()) >= len(names) - 1):
        raise ValueError("a session that is not named")
    sessions: list[str | None] = np.array(names, dtype=object)[codes].tolist()
    neighbours = None
    if "before" in arrays:
        neighbours = (_sized(arrays["before"], size), _sized(arrays["after"], size))
    norms = {float(w): _sized(arrays[f"norms{i}"], size) for i, w in enumerate(header["weights"])}
    int8 = None
    if "int8" in arrays:
        int8 = (arrays["int8"], arrays["scales"], arrays["residuals"])
        if int8[0].shape[1:] != matrix.shape[1:] or any(len(a) < size for a in int8):
            raise ValueError("int8 rows of another shape")
    return Snapshot(
        key=key,
        order=str(header["order"]),
        last_vseq=int(header["last_vseq"]),
        size=size,
        unit=bool(header["unit"]),
        ids=ids,
        sessions=sessions,
        matrix=matrix,
        neighbours=neighbours,
        mixed_norms=norms,
        int8=int8,
    )


def _sized(array: Any, size: int) -> Any:
    if len(array) != size:
        raise ValueError("an array of another length")
    return array


def discard(path: Path) -> bool:
    """Overwrite the saved file with zeros, then delete it (its vectors are of memories
    that may just have been erased); whether there was one."""
    try:
        with path.open("r+b") as target:
            remaining = os.fstat(target.fileno()).st_size
            block = b"\0" * (1 << 20)
            while remaining > 0:
                remaining -= target.write(block[: min(remaining, len(block))])
            target.flush()
            os.fsync(target.fileno())
        path.unlink()
    except FileNotFoundError:
        return False
    return True
