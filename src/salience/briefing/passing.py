"""Which memories pass a :class:`~salience.stores.filters.MemoryFilter`, answered from the
columns a process keeps (:mod:`salience.briefing.snapshot`) instead of by the store.

A recall asks the store three times which of a few hundred ids still pass its filter (the
vector hits, the learned fusion's 50 best, the hits' records): on a LoCoMo conversation each
query took ~0.15 ms of a recall's ~3.5. The columns hold what a recall's filter usually
names (owner, agent, project, type, enabled, forgotten, valid until), so those are answered
here, the same way :func:`~salience.stores.rows.filter_sql` asks them; a filter naming
anything else (tags, an entity, a session, a topic key, a content hash, a dependency) or an
empty string (a column codes none, the store compares it) gets None, and the store answers.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from itertools import compress, repeat
from typing import TYPE_CHECKING

from salience.briefing.columns import micros
from salience.lazy import lazy_module
from salience.models import MemoryRecord
from salience.stores.filters import MemoryFilter

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    from salience.briefing.columns import Columns, Flags, Ints
else:
    np = lazy_module("numpy")


def answerable(flt: MemoryFilter) -> bool:
    """Whether :func:`rows_passing` can answer ``flt`` (else the store must)."""
    if flt.tags or flt.entity is not None or flt.depends_on is not None:
        return False
    if flt.session_id is not None or flt.topic_key is not None or flt.content_hash is not None:
        return False
    named = (flt.user, *flt.spaces, flt.agent, flt.project, flt.type, *flt.types)
    return all(v is None or v != "" for v in (*named, *flt.types_exclude))


def rows_passing(columns: Columns, rows: npt.NDArray[np.intp], flt: MemoryFilter) -> Flags | None:
    """Whether each of ``rows`` (positions in ``columns``) passes ``flt`` as the store's
    filter has it (:func:`~salience.stores.rows.filter_sql`); None if ``flt`` names what the
    columns do not hold (:func:`answerable`)."""
    if not answerable(flt):
        return None
    vocab = columns.vocab
    keep: Flags = np.ones(len(rows), dtype=np.bool_)
    if flt.user is not None:
        keep &= _any_of(
            columns.user[rows], [vocab.users.lookup(o) for o in (flt.user, *flt.spaces)]
        )
    for value, column, names in (
        (flt.agent, columns.agent, vocab.agents),
        (flt.project, columns.project_field, vocab.projects),
        (flt.type, columns.type, vocab.types),
    ):
        if value is not None:
            keep &= column[rows] == names.lookup(value)
    if flt.types:
        keep &= _any_of(columns.type[rows], [vocab.types.lookup(t) for t in flt.types])
    if flt.types_exclude:
        keep &= ~_any_of(columns.type[rows], [vocab.types.lookup(t) for t in flt.types_exclude])
    if flt.enabled_only:
        keep &= columns.enabled[rows]
    forgotten = columns.forgotten[rows]
    live = columns.valid_until[rows] > micros(flt.as_of)
    if not flt.include_forgotten and not flt.include_superseded:
        keep &= ~forgotten & live
    elif not flt.include_forgotten:
        keep &= ~forgotten
    elif not flt.include_superseded:
        keep &= forgotten | live
    return keep


def passes(record: MemoryRecord, flt: MemoryFilter) -> bool:
    """Whether ``record`` passes ``flt`` (one :func:`answerable`) as :func:`rows_passing` has
    it: for a record at hand, such as one a snapshot keeps (:mod:`salience.briefing.records`)."""
    kind = record.type
    named = (
        (flt.user is None or record.user == flt.user or record.user in flt.spaces)
        and (flt.agent is None or record.agent == flt.agent)
        and (flt.project is None or record.project == flt.project)
        and (flt.type is None or kind == flt.type)
        and (not flt.types or kind in flt.types)
        and kind not in flt.types_exclude
        and (record.enabled or not flt.enabled_only)
    )
    forgotten = record.forget_reason is not None
    until = record.valid_until
    live = until is None or until > flt.as_of  # (as exact as micros: datetimes hold them)
    if not flt.include_forgotten and not flt.include_superseded:
        return named and not forgotten and live
    if not flt.include_forgotten:
        return named and not forgotten
    return named and (forgotten or live or flt.include_superseded)


def _any_of(codes: Ints, wanted: list[int]) -> Flags:
    """Whether each code is one of ``wanted`` (``np.isin`` costs ~20 µs more for a few)."""
    found: Flags = codes == wanted[0]
    for code in wanted[1:]:
        found |= codes == code
    return found


def positions(
    columns: Columns, seqs: Sequence[int] | npt.NDArray[np.int64]
) -> tuple[npt.NDArray[np.intp], npt.NDArray[np.bool_]]:
    """Where each row number is in ``columns`` (0 for one not there), and whether it is
    there. The columns' row numbers ascend, each once (a store's rows; -1 from records)."""
    wanted = np.asarray(seqs, dtype=np.int64)
    held, n = columns.seqs, len(columns)
    if not n:  # nothing held yet (the store was empty at the first look)
        return np.zeros(len(wanted), dtype=np.intp), np.zeros(len(wanted), dtype=np.bool_)
    top = int(held[-1])
    if held[0] >= 0 and top < DENSE_POSITIONS * (n + len(wanted)):
        at = placed(held, top + 1, -1)[np.clip(wanted, -1, top + 1)]
        found = at >= 0
        return np.where(found, at, 0), found
    at = np.searchsorted(held, wanted)
    found = (at < n) & (held[np.minimum(at, n - 1)] == wanted)
    return np.where(found, at, 0), found


def placed(
    keys: Ints | npt.NDArray[np.intp], size: int, fill: int, at: npt.NDArray[np.intp] | None = None
) -> npt.NDArray[np.intp]:
    """An array over the numbers 0 to ``size`` - 1 and one more, which also answers -1: each of
    ``keys`` (in that range; distinct, else which place a repeated one holds is not said)
    holds its place among them (or ``at``'s value there), every other number ``fill``. Where
    numbers are placed in bulk after a query's embedding has emptied the caches, a scatter
    and a gather cost less than binary searches (``VectorIndex.neighbour_slots`` on LoCoMo's
    conv-41, in place: 0.188 -> 0.090 ms)."""
    slot = np.full(size + 1, fill, dtype=np.intp)
    slot[keys] = np.arange(len(keys)) if at is None else at
    return slot


DENSE_POSITIONS = 4
""":func:`positions` finds row numbers up to this many times the rows held and asked by an
array over them (one scatter, one gather), else by binary search: a small store's recall asks
of ~370 after its query's embedding has emptied the caches (0.047 -> ~0.015 ms)."""


def matching(
    columns: Columns, seq_of: dict[str, int], memory_ids: Sequence[str], flt: MemoryFilter
) -> list[tuple[int, str]] | None:
    """(row number, id) of those ids that pass ``flt``, in their order, as
    :meth:`Store.matching <salience.stores.base.Store.matching>` gives them (``seq_of``: each
    id's row number); None if ``flt`` names what the columns do not hold or an id is not
    among them (written since the columns were read: the store answers)."""
    seqs = np.fromiter(map(seq_of.get, memory_ids, repeat(-1)), np.int64, len(memory_ids))
    at, found = positions(columns, seqs)
    if not found.all() or columns.ids[at].tolist() != list(memory_ids):
        return None
    keep = rows_passing(columns, at, flt)
    if keep is None:
        return None
    return list(compress(zip(seqs.tolist(), memory_ids, strict=True), keep.tolist()))


def owned(columns: Columns, owners: Sequence[str]) -> dict[str, int] | None:
    """Each id of the rows ``owners`` hold, and its row number, when they are a small tenant
    of the store (:func:`~salience.stores.tenancy.small`): what :func:`matching` needs of a
    store too large for a dict of all its ids, for a filter naming those owners (no other
    row passes it); None for a larger tenant."""
    from salience.stores.tenancy import small

    rows = np.flatnonzero(_any_of(columns.user, [columns.vocab.users.lookup(o) for o in owners]))
    if not small(len(rows), len(columns)):
        return None
    return dict(zip(columns.ids[rows].tolist(), columns.seqs[rows].tolist(), strict=True))


def first_passing(
    columns: Columns, seqs: npt.NDArray[np.int64], flt: MemoryFilter, limit: int
) -> tuple[list[int], list[str]] | None:
    """Of the rows numbered ``seqs``, the positions of the first ``limit`` that pass ``flt``
    and their ids (:data:`~salience.stores.filters.Passing`); None if ``flt`` names what the
    columns do not hold or a row is not among them (written since: the store answers)."""
    at, found = positions(columns, seqs)
    keep = rows_passing(columns, at, flt) if found.all() else None
    if keep is None:
        return None
    chosen = np.flatnonzero(keep)[:limit]
    return chosen.tolist(), columns.ids[at[chosen]].tolist()


AHEAD_UP_TO = 5000
"""Stores up to this many rows answer a recall's vector filter from :class:`Ahead` (made
while the query embeds: ~0.1 ms at a LoCoMo conversation's 663 rows)."""


NOT_PASSED = -(1 << 62)
""":class:`Ahead`'s answer for an id that did not pass (no row number is ever this low)."""


class Ahead:
    """:func:`matching` for one filter, answered from which rows passed it a moment before
    (:func:`ahead`): a recall's vector side asks of a few hundred ids after its query is
    embedded, when the columns' every array has left the caches (0.26 ms on LoCoMo's
    conv-41, cold; a dict lookup an id here). An id not held then gets None: the store or
    the columns answer (written since)."""

    __slots__ = ("_answers", "_flt")

    def __init__(self, flt: MemoryFilter, answers: dict[str, int]):
        self._flt, self._answers = flt, answers  # (each id's row number, or NOT_PASSED)

    def __call__(
        self, memory_ids: Sequence[str], flt: MemoryFilter
    ) -> list[tuple[int, str]] | None:
        """(row number, id) of those ids that passed, in their order; None for another
        filter or an id not held then."""
        if flt != self._flt:
            return None
        out: list[tuple[int, str]] = []
        answer = self._answers.get
        for memory_id in memory_ids:
            seq = answer(memory_id)
            if seq is None:
                return None
            if seq != NOT_PASSED:
                out.append((seq, memory_id))
        return out

    def row_numbers(
        self, memory_ids: Iterable[str], flt: MemoryFilter, unknown: int
    ) -> npt.NDArray[np.int64] | None:
        """Each id's row number if it passed, else :data:`NOT_PASSED` (``unknown``: an id
        not held then), in one pass in C, for :class:`~salience.search.ahead_rows.RowsAhead`;
        None for another filter."""
        if flt != self._flt:
            return None
        return np.fromiter(map(self._answers.get, memory_ids, repeat(unknown)), np.int64)


def ahead(columns: Columns, flt: MemoryFilter) -> Ahead | None:
    """Which of ``columns``' rows pass ``flt`` as :class:`Ahead`; None if ``flt`` names what
    the columns do not hold (:func:`answerable`) or they hold more than
    :data:`AHEAD_UP_TO` rows."""
    if len(columns) > AHEAD_UP_TO:
        return None
    keep = rows_passing(columns, np.arange(len(columns)), flt)
    if keep is None:
        return None
    answers = np.where(keep, columns.seqs, NOT_PASSED).tolist()
    return Ahead(flt, dict(zip(columns.ids.tolist(), answers, strict=True)))
