"""What a recall answers: its hits, each explained, and how it ran short, if it did."""

from __future__ import annotations

import builtins
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, overload

if TYPE_CHECKING:
    from salience.models import MemoryRecord
    from salience.scores import SearchScore

__all__ = ["DEGRADATIONS", "Degraded", "Hit", "Learned", "Recalled", "Relevance", "Terms"]

Term = tuple[str, float, float]


class Terms(Sequence[Term]):
    """A learned logit's terms (name, value, weight), made when first read: a recall explains
    each of its first hits (over a hundred terms each), and most callers never read them
    (0.1 ms of a 3 ms recall when built at once). Equal to any sequence of the same terms."""

    __slots__ = ("_built", "_names", "_values", "_weights")

    def __init__(
        self,
        names: Sequence[str],
        values: Callable[[], Sequence[float]],
        weights: Sequence[float],
    ) -> None:
        self._names, self._values, self._weights = names, values, weights
        self._built: tuple[Term, ...] | None = None

    def _terms(self) -> tuple[Term, ...]:
        if self._built is None:
            self._built = tuple(zip(self._names, self._values(), self._weights, strict=True))
        return self._built

    @overload
    def __getitem__(self, index: int) -> Term: ...
    @overload
    def __getitem__(self, index: slice) -> Sequence[Term]: ...
    def __getitem__(self, index: int | slice) -> Term | Sequence[Term]:
        return self._terms()[index]

    def __len__(self) -> int:
        return len(self._names)

    def __iter__(self) -> Iterator[Term]:
        return iter(self._terms())

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Sequence) or isinstance(other, str):
            return NotImplemented
        return self._terms() == tuple(other)

    def __hash__(self) -> int:
        return hash(self._terms())

    def __repr__(self) -> str:
        return repr(self._terms())

    def __reduce__(self) -> tuple[type[tuple[Term, ...]], tuple[tuple[Term, ...]]]:
        return tuple, (self._terms(),)  # (pickled and copied as the tuple of its terms)


@dataclass(frozen=True)
class Learned:
    """How a learned fusion scored a memory (:mod:`salience.search.rerank`): its ``logit`` is
    ``bias + Σ weight·value`` over ``terms`` (feature, value, weight), and its relevance
    ``(logit - low) / (high - low)`` over the candidates re-ranked with it; ``before``: the
    hand-set fusion's relevance it replaced. ``session``: the place of the memory's session
    among those the hand-set fusion found (1: the session of its best candidate); recall keeps
    the sessions in that order and ranks each one's memories by the learned relevance, so a
    memory may rank above a better-scored one of a later session (None: of no session)."""

    before: float
    bias: float
    terms: Sequence[Term]
    logit: float
    low: float
    high: float
    session: int | None = None

    def largest(self) -> list[tuple[str, float, float]]:
        """The terms, largest contribution (``value * weight``, either sign) first."""
        return sorted(self.terms, key=lambda t: -abs(t[1] * t[2]))


@dataclass(frozen=True)
class Relevance:
    """How a memory matched a query, as the profile's search score sees it.

    ``lexical``: full-text relevance in [0, 1]; ``vector``: cosine similarity (None: not found
    by vector search); ``fused``: the combined relevance of a hybrid profile (None: not fused);
    ``lexical_hit``: whether full-text search found it. ``own``: the fused relevance before
    session context was spread (None: not spread); ``context``: what lifted it, if anything
    (``session neighbour``: the memory before or after it matched; ``reply to a question``:
    the memory before it is a question that matched). ``learned``: set when a learned fusion
    re-ranked it (``fused`` is then its learned relevance).
    """

    lexical: float = 0.0
    vector: float | None = None
    lexical_hit: bool = True
    fused: float | None = None
    own: float | None = None
    context: str | None = None
    learned: Learned | None = None

    def lifted(self) -> str | None:
        """``own 0.2000, lifted as a reply to a question``; None when nothing lifted it."""
        if self.context is None or self.own is None:
            return None
        return f"own {self.own:.4f}, lifted as a {self.context}"


@dataclass(frozen=True)
class Hit:
    """One recall result: the record, its profile search score, its rank, and why."""

    record: MemoryRecord
    score: float
    rank: int
    lexical: float = 0.0  # raw full-text relevance (bm25, larger is better)
    explanation: SearchScore | None = None
    vector: float | None = None  # cosine similarity to the query, if vector search found it
    relevance: Relevance | None = None  # what the profile's search score was given


DEGRADATIONS = {
    "no_embedder": "no embedding model is configured: full text only",
    "embedder_failed": "the embedder failed: full text only",
    "vectors_missing": "some memories have no vector: full text alone finds them",
    "full_text_stale": "the full-text index lacks some memories: only their meaning finds them",
    "layer_unavailable": "a mounted layer could not be opened and was left out",
    "layer_full_text": "a layer's vectors are of another model: it is searched by full text",
}
"""Each way a recall can run short of what it should, by its code."""


@dataclass(frozen=True)
class Degraded:
    """One way a recall ran short: its ``cause`` (a key of :data:`DEGRADATIONS`), what
    happened in words for a person, and the command or setting that fixes it."""

    cause: str
    detail: str
    fix: str

    def line(self) -> str:
        """``degraded: <detail> (fix: <fix>)``: the one line every face shows."""
        return f"degraded: {self.detail} (fix: {self.fix})"


class Recalled(builtins.list[Hit]):
    """A recall's hits, best first (a list), and :attr:`degraded`: how the recall ran short
    of a full hybrid search (empty when it did not). A face that shows the hits shows these
    too: an empty list is never silent about a broken index."""

    degraded: tuple[Degraded, ...]

    def __init__(self, hits: Iterable[Hit] = (), degraded: Iterable[Degraded] = ()) -> None:
        super().__init__(hits)
        self.degraded = tuple(degraded)
