"""Token instances grouped by term, the arrays of a full-text copy
(:mod:`salience.stores.sqlite.textindex`): the index read whole as one part, and the rows
added since in parts that merge (:meth:`Instances.merged`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from salience.lazy import lazy_module

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt
else:
    np = lazy_module("numpy")


class Instances:
    """Token instances grouped by term: each term's span in three parallel arrays."""

    def __init__(
        self,
        vocabulary: Sequence[str],
        term_ids: npt.NDArray[np.int64],
        docs: npt.NDArray[np.int32],
        columns: npt.NDArray[np.int8],
        offsets: npt.NDArray[np.int32],
        *,
        named: bool = False,
        codes: dict[str, int] | None = None,
    ) -> None:
        """Instances of the terms ``vocabulary[term_ids]``; ``named`` keeps the vocabulary
        and each instance's term, to merge these with more later (:meth:`extended`: the rows
        added since a copy was read, a few; a whole index's would cost memory for nothing)."""
        order = np.argsort(term_ids, kind="stable")
        ordered = term_ids[order]
        starts = np.searchsorted(ordered, np.arange(len(vocabulary) + 1))
        self.terms: dict[str, tuple[int, int]] = {}
        self._codes: dict[str, int] = {}
        if named:  # (spans found from the codes when asked: no dict of them to rebuild)
            self._codes = codes if codes is not None else {n: i for i, n in enumerate(vocabulary)}
        else:
            held = np.flatnonzero(starts[1:] > starts[:-1])  # (the terms with instances)
            spans = zip(starts[held].tolist(), starts[held + 1].tolist(), strict=True)
            self.terms = dict(zip([vocabulary[i] for i in held.tolist()], spans, strict=True))
        self._starts = starts.tolist() if named else []
        self._term_ids = ordered if named else ordered[:0]
        self.docs, self.columns, self.offsets = docs[order], columns[order], offsets[order]

    def extended(
        self,
        names: Sequence[str],
        docs: npt.NDArray[np.int32],
        columns: npt.NDArray[np.int8],
        offsets: npt.NDArray[np.int32],
    ) -> Instances:
        """These instances (made ``named``) and more, their terms given one by one: each
        term's instances in the order they came, these first (only the new names are coded
        one by one; the rest is NumPy). A catch-up makes the new rows' part so."""
        return self._joined(names, np.arange(len(names)), docs, columns, offsets)

    def merged(self, other: Instances) -> Instances:
        """These instances and ``other``'s, both made ``named``, as one part: each term's
        instances these first (a catch-up's parts merge so, :meth:`TextIndex.caught_up`)."""
        names = list(other._codes)
        return self._joined(names, other._term_ids, other.docs, other.columns, other.offsets)

    def _joined(
        self,
        names: Sequence[str],
        terms: npt.NDArray[np.int64],
        docs: npt.NDArray[np.int32],
        columns: npt.NDArray[np.int8],
        offsets: npt.NDArray[np.int32],
    ) -> Instances:
        """These instances, then more whose terms are ``names[terms]``."""
        codes = dict(self._codes)
        coded = np.fromiter(
            (codes.setdefault(name, len(codes)) for name in names), dtype=np.int64, count=len(names)
        )
        return Instances(
            list(codes),
            np.concatenate([self._term_ids, coded[terms]]),
            np.concatenate([self.docs, docs]),
            np.concatenate([self.columns, columns]),
            np.concatenate([self.offsets, offsets]),
            named=True,
            codes=codes,
        )

    def of(
        self, token: str
    ) -> tuple[npt.NDArray[np.int32], npt.NDArray[np.int8], npt.NDArray[np.int32]] | None:
        code = self._codes.get(token)
        span = (
            self.terms.get(token) if code is None else (self._starts[code], self._starts[code + 1])
        )
        if span is None or span[0] == span[1]:
            return None
        start, stop = span
        return self.docs[start:stop], self.columns[start:stop], self.offsets[start:stop]


def nothing_named() -> Instances:
    """No instances, made to be :meth:`Instances.extended`."""
    none = np.zeros(0, dtype=np.int64)
    return Instances(
        (), none, none.astype(np.int32), none.astype(np.int8), none.astype(np.int32), named=True
    )
