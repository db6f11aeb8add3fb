"""Columns kept on disk beside the store, so a new process's first briefing is milliseconds.

A one-shot process (``salience briefing``, a session-start hook) would otherwise read every
row of the store to build its columns: ~5 s at 100k memories. The columns are saved instead
(``salience.db.columns``) with the change-log position they reflect; a new process loads them
(~10 ms for 100k rows), catches up from the change log like a long-running one, and checks
the row count against the store's. The file holds what briefings rank by — ids, codes,
times, counters, flags and the vocabularies' names (users, types, projects, sessions,
topics) — never a memory's content or title, and is readable by its owner only. Anything
wrong with it (another format, a foreign store, unreadable, truncated) makes the process read
the store whole, as before, and write a new one.

Format: ``SALCOLS1``, the header's length (8 bytes, little-endian), the header (JSON: the
position, the vocabularies, ``several``, and each array's name, dtype, length and offset),
then the arrays' bytes, each at an offset that is a multiple of 8.
"""

from __future__ import annotations

import contextlib
import json
import mmap
import os
from dataclasses import dataclass, fields
from pathlib import Path
from typing import TYPE_CHECKING, Any

from salience.briefing.columns import ARRAY_FIELDS, Columns, Vocabularies, Vocabulary
from salience.lazy import lazy_module

if TYPE_CHECKING:
    import numpy as np
else:
    np = lazy_module("numpy")

MAGIC = b"SALCOLS1"
FORMAT = 4
"""2: ``line_length`` counts a title and the content (``one_line`` changed); 3: ``stale``;
4: ``source`` (the salience briefing marks each line's source). A file of another format is
rebuilt from the store."""


@dataclass(frozen=True)
class Saved:
    """Columns read back, and the store position they reflect."""

    columns: Columns
    last_seq: int
    last_change: int
    store_key: str


def save(path: Path, columns: Columns, last_seq: int, last_change: int, store_key: str) -> None:
    """Write ``columns`` to ``path`` atomically (a temporary file, then a rename)."""
    layout: list[dict[str, Any]] = []
    blobs: list[bytes] = []
    offset = 0
    for name in ARRAY_FIELDS:
        array = np.ascontiguousarray(getattr(columns, name))
        data = array.tobytes()
        layout.append({"name": name, "dtype": array.dtype.str, "length": len(array), "at": offset})
        padding = -len(data) % 8
        blobs.append(data + b"\0" * padding)
        offset += len(data) + padding
    vocab = {f.name: getattr(columns.vocab, f.name).names for f in fields(Vocabularies)}
    header = json.dumps(
        {
            "format": FORMAT,
            "store": store_key,
            "last_seq": last_seq,
            "last_change": last_change,
            "vocab": vocab,
            "several": {k: sorted(v) for k, v in columns.several.items()},
            "arrays": layout,
        }
    ).encode("utf-8")
    header += b" " * (-(len(MAGIC) + 8 + len(header)) % 8)
    temporary = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        with os.fdopen(descriptor, "wb") as out:
            out.write(MAGIC + len(header).to_bytes(8, "little") + header)
            for blob in blobs:
                out.write(blob)
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            temporary.unlink()
        raise


def load(path: Path, store_key: str, vocab: Vocabularies) -> Saved | None:
    """The columns saved at ``path`` for the store ``store_key``, coded against ``vocab``
    (empty: the saved names are added to it); None if there are none usable (missing,
    another format or store, damaged)."""
    try:
        with path.open("rb") as source:
            # A private, copy-on-write mapping: nothing is read until a column is used, and
            # the arrays stay writable (catching up assigns in place) without touching the file.
            data = mmap.mmap(source.fileno(), 0, access=mmap.ACCESS_COPY)
    except (OSError, ValueError):  # (ValueError: an empty file cannot be mapped)
        return None
    try:
        return _parse(data, store_key, vocab)
    except (ValueError, KeyError, TypeError, IndexError):
        return None  # damaged or from another version: the store is read whole instead


def _parse(data: mmap.mmap, store_key: str, vocab: Vocabularies) -> Saved | None:
    if data[: len(MAGIC)] != MAGIC:
        return None
    length = int.from_bytes(data[len(MAGIC) : len(MAGIC) + 8], "little")
    start = len(MAGIC) + 8
    header = json.loads(data[start : start + length].decode("utf-8"))
    if header["format"] != FORMAT or header["store"] != store_key:
        return None
    body = memoryview(data)[start + length :]
    arrays: dict[str, Any] = {}
    for entry in header["arrays"]:
        dtype = np.dtype(entry["dtype"])
        size = dtype.itemsize * int(entry["length"])
        at = int(entry["at"])
        if at + size > len(body):
            return None  # truncated
        arrays[entry["name"]] = np.frombuffer(body[at : at + size], dtype=dtype)
    if set(arrays) != set(ARRAY_FIELDS) or len({len(a) for a in arrays.values()}) > 1:
        return None
    for name, names in header["vocab"].items():
        vocabulary: Vocabulary = getattr(vocab, name)
        for word in names:
            vocabulary.code(word)
        if vocabulary.names != names:
            return None  # (a repeated or empty name: not written by save)
    several = {k: frozenset(v) for k, v in header["several"].items()}
    columns = Columns(vocab=vocab, several=several, **arrays)
    return Saved(columns, int(header["last_seq"]), int(header["last_change"]), header["store"])
