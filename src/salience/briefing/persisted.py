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

Format (:mod:`salience.stores.arrays`): ``SALCOLS1``, a header (the position, the
vocabularies, ``several``), then the arrays.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, fields
from pathlib import Path
from typing import TYPE_CHECKING

from salience.briefing.columns import ARRAY_FIELDS, Columns, Vocabularies, Vocabulary
from salience.lazy import lazy_module
from salience.stores import arrays as stored_arrays
from salience.stores.arrays import Stored

if TYPE_CHECKING:
    import numpy as np

    from salience.stores.base import Store
else:
    np = lazy_module("numpy")

MAGIC = b"SALCOLS1"
FORMAT = 8
"""2: ``line_length`` counts a title and the content (``one_line`` changed); 3: ``stale``;
4: ``source`` (the salience briefing marks each line's source); 5: written by
:mod:`salience.stores.arrays` (shapes, offsets aligned to 64); 6: ``asks``; 7: ``speaker``
(a number made from the name, never the name); 8: that number a CRC-32. A file of another
format is rebuilt from the store."""


@dataclass(frozen=True)
class Saved:
    """Columns read back, and the store position they reflect."""

    columns: Columns
    last_seq: int
    last_change: int
    store_key: str


def save(path: Path, columns: Columns, last_seq: int, last_change: int, store_key: str) -> None:
    """Write ``columns`` to ``path`` atomically (a temporary file, then a rename)."""
    arrays = []
    for name in ARRAY_FIELDS:
        array = np.ascontiguousarray(getattr(columns, name))
        arrays.append(Stored(name, array, len(array), len(array)))
    vocab = {f.name: _kept(columns, f.name) for f in fields(Vocabularies)}
    header = {
        "format": FORMAT,
        "store": store_key,
        "last_seq": last_seq,
        "last_change": last_change,
        "vocab": vocab,
        "several": {k: sorted(v) for k, v in columns.several.items()},
    }
    stored_arrays.write(path, MAGIC, header, arrays)


_CODED = {
    "users": ("user",),
    "types": ("type",),
    "projects": ("project", "project_field"),
    "sessions": ("session",),
    "topics": ("topic",),
    "layers": ("layer",),
    "sources": ("source",),
    "agents": ("agent",),
}
"""Which columns hold each vocabulary's codes."""


def _kept(columns: Columns, vocabulary: str) -> list[str]:
    """A vocabulary's names as saved: those some row uses. A vocabulary never forgets a name,
    so one only a purged, erased or rewritten memory had (a topic, a session, a project) is
    saved as a placeholder in its place ("\\0" and its code), never as itself."""
    names: list[str] = getattr(columns.vocab, vocabulary).names
    used = np.zeros(len(names), dtype=np.bool_)
    for name in _CODED[vocabulary]:
        codes = np.asarray(getattr(columns, name))
        used[codes[(codes >= 0) & (codes < len(names))]] = True
    return [name if used[i] else f"\0{i}" for i, name in enumerate(names)]


class CountAside:
    """``store.count_rows()``, asked at once on a thread of its own (with its own connection:
    the count reads a whole index, 5-10 ms at 100,000 memories, outside the interpreter's
    lock, beside loading the columns and NumPy). Inside a transaction of the calling thread's
    it is asked on that thread, by :meth:`result` (another would not see what it wrote)."""

    def __init__(self, store: Store) -> None:
        self._store = store
        self._found: list[int] = []
        self._failed: list[Exception] = []
        self._worker: threading.Thread | None = None
        if not store.in_transaction():
            self._worker = threading.Thread(target=self._count, name="salience-count")
            self._worker.start()

    def _count(self) -> None:
        try:
            self._found.append(self._store.count_rows())
        except Exception as exc:  # (raised by result(), on the caller's thread)
            self._failed.append(exc)

    def result(self) -> int:
        """The count (waited for), or what asking for it raised."""
        if self._worker is None:
            return self._store.count_rows()
        self.wait()
        if self._failed:
            raise self._failed[0]
        return self._found[0]

    def wait(self) -> None:
        """Until the count is done (its connection idle again), whatever it found."""
        if self._worker is not None:
            self._worker.join()


def load(path: Path, store_key: str, vocab: Vocabularies) -> Saved | None:
    """The columns saved at ``path`` for the store ``store_key``, coded against ``vocab``
    (empty: the saved names are added to it); None if there are none usable (missing,
    another format or store, damaged). Mapped: nothing is read until a column is used, and
    the arrays stay writable (catching up assigns in place) without touching the file."""
    try:
        return _parse(path, store_key, vocab)
    except (ValueError, KeyError, TypeError, IndexError):
        return None  # damaged or from another version: the store is read whole instead


def _parse(path: Path, store_key: str, vocab: Vocabularies) -> Saved | None:
    found = stored_arrays.read(path, MAGIC)
    if found is None:
        return None
    header, arrays = found
    if header["format"] != FORMAT or header["store"] != store_key:
        return None
    if set(arrays) != set(ARRAY_FIELDS) or len({len(a) for a in arrays.values()}) > 1:
        return None
    for name, names in header["vocab"].items():
        vocabulary: Vocabulary = getattr(vocab, name)
        if not vocabulary.adopt(names):
            return None  # (a repeated or empty name: not written by save)
    several = {k: frozenset(v) for k, v in header["several"].items()}
    columns = Columns(vocab=vocab, several=several, **arrays)
    return Saved(columns, int(header["last_seq"]), int(header["last_change"]), header["store"])
