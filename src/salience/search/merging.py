"""Which pool row each full-text and vector hit of a recall becomes (:func:`merged`).

One row per memory: the full-text hits first, in their order, then the vector hits of other
memories, in theirs; each row knows its hit in either list. With hits from the local store
alone, each list naming a row once (as its searches return them), this is a few NumPy
operations on row numbers; otherwise (a mounted layer may hold a memory of the same id) by
id, in dicts, as :func:`salience.search.fusion.fuse` merges candidates. Both give the same
rows (tests/search/test_merging.py); on a LoCoMo conversation (~250 hits a list) the dicts
took ~0.15 ms of a recall.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from salience.briefing.passing import placed
from salience.lazy import lazy_module

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    from salience.search.pool import Found

    Slots = npt.NDArray[np.intp]
    Ints = npt.NDArray[np.int64]
    Flags = npt.NDArray[np.bool_]
else:
    np = lazy_module("numpy")

Merged = tuple[list[int], list[int], list[str], "Slots", "Slots"]
"""Each row's source, row number and id, and its hit in the full-text and vector lists
(-1: not found by that list)."""


def merged(lexical: Found, vector: Found) -> Merged:
    """The pool's rows of these hits (see the module's text)."""
    fast = _by_row_numbers(lexical, vector)
    return fast if fast is not None else _by_ids(lexical, vector)


def _by_row_numbers(lexical: Found, vector: Found) -> Merged | None:
    """:func:`merged` for hits of the local store alone, each row once per list (else None)."""
    if any(lexical.source) or any(vector.source):
        return None
    seqs_l = np.array(lexical.seqs, dtype=np.int64)
    seqs_v = np.array(vector.seqs, dtype=np.int64)
    n_l = len(seqs_l)
    at_v_of_l = np.full(n_l, -1, dtype=np.intp)
    found = _dense(seqs_l, seqs_v)
    if found is not None:  # (a small store's: by an array over its row numbers)
        in_l, at_l_of_v = found
        at_v_of_l[at_l_of_v[in_l]] = np.flatnonzero(in_l)
        new_v = np.flatnonzero(~in_l)
    else:
        order_l = np.argsort(seqs_l, kind="stable")
        sorted_l = seqs_l[order_l]
        sorted_v = np.sort(seqs_v)
        if np.any(sorted_l[1:] == sorted_l[:-1]) or np.any(sorted_v[1:] == sorted_v[:-1]):
            return None
        if n_l:
            place = np.minimum(np.searchsorted(sorted_l, seqs_v), n_l - 1)
            in_l = sorted_l[place] == seqs_v
            at_v_of_l[order_l[place[in_l]]] = np.flatnonzero(in_l)
            new_v = np.flatnonzero(~in_l)
        else:
            new_v = np.arange(len(seqs_v), dtype=np.intp)
    at_l = np.concatenate([np.arange(n_l, dtype=np.intp), np.full(len(new_v), -1, np.intp)])
    at_v = np.concatenate([at_v_of_l, new_v.astype(np.intp)])
    new = new_v.tolist()
    seqs = list(lexical.seqs) + seqs_v[new_v].tolist()
    ids = list(lexical.ids) + [vector.ids[i] for i in new]
    return [0] * len(ids), seqs, ids, at_l, at_v


DENSE = 4
"""Row numbers up to this many times the hits are placed by an array over them (one scatter,
one gather: ~0.02 ms less on LoCoMo's conv-41 after the query's embedding), else by sorting
and binary search."""


def _dense(seqs_l: Ints, seqs_v: Ints) -> tuple[Flags, Slots] | None:
    """Whether each vector hit's row is a full-text hit's, and which (by an array over the
    row numbers); None when the numbers are too far apart for it, negative, or a list names
    a row twice (then :func:`_by_row_numbers` sorts, and :func:`_by_ids` answers)."""
    if not len(seqs_l) or not len(seqs_v):
        return None
    low = min(int(seqs_l.min()), int(seqs_v.min()))
    top = max(int(seqs_l.max()), int(seqs_v.max()))
    if low < 0 or top >= DENSE * (len(seqs_l) + len(seqs_v)):
        return None
    slot = placed(seqs_l, top + 1, -1)
    if int(np.count_nonzero(slot >= 0)) != len(seqs_l) or np.bincount(seqs_v).max() > 1:
        return None  # (a row twice in a list)
    at = slot[seqs_v]
    return at >= 0, at


def _by_ids(lexical: Found, vector: Found) -> Merged:
    """:func:`merged` by id: a later full-text hit of the same id replaces the row's source
    and row number; each row's hits are the last of its id in each list."""
    rows_l = zip(lexical.source, lexical.seqs, lexical.ids, strict=True)
    rows_v = zip(vector.source, vector.seqs, vector.ids, strict=True)
    where: dict[str, tuple[int, int, str]] = {}  # id -> row (a later lexical row replaces it)
    lex: dict[str, int] = {}  # id -> its (last) full-text hit
    for i, row in enumerate(rows_l):
        where[row[2]] = row
        lex[row[2]] = i
    vec: dict[str, int] = {}  # id -> its (last) vector hit
    for i, row in enumerate(rows_v):
        where.setdefault(row[2], row)
        vec[row[2]] = i
    ids = list(where)
    at_l = np.fromiter((lex.get(i, -1) for i in ids), dtype=np.intp, count=len(ids))
    at_v = np.fromiter((vec.get(i, -1) for i in ids), dtype=np.intp, count=len(ids))
    rows = list(where.values())
    return [r[0] for r in rows], [r[1] for r in rows], ids, at_l, at_v
