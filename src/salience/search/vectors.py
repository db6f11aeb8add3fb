"""Embeddings beside the rows: writing them, and searching them (:mod:`salience.search.index`).

:class:`Vectors` ties an embedder to a store: it records the embedder's identity in the
store, refuses to mix vectors of two models, and embeds what the engine writes."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeVar

import numpy as np
import numpy.typing as npt

from salience.embeddings import Embedder
from salience.embeddings.arrays import Matrix, Vector
from salience.errors import EmbedderError
from salience.models import MemoryRecord
from salience.search.ahead_rows import RowsAhead, kept, passed, rows_ahead
from salience.search.ann import ApproximateIndex
from salience.search.fetched import Fetched, Skipping
from salience.search.held import Held
from salience.search.index import VectorIndex
from salience.search.pgvector import PgvectorSearch
from salience.search.rowids import take
from salience.search.saved import saved_vectors
from salience.search.tenants import TenantIndexes
from salience.search.warm import Warming
from salience.stores.base import MemoryFilter, Store

if TYPE_CHECKING:
    from salience.briefing.passing import Ahead

_Found = TypeVar("_Found")
IDENTITY_KEY = "embedder"
DIMENSIONS_KEY = "embedder_dimensions"


@dataclass(frozen=True)
class VectorHit:
    """A memory found by vector search, with its similarity to the query."""

    record: MemoryRecord
    similarity: float


class Vectors:
    """One store's embeddings, made by one embedder.

    Searched in memory (:class:`VectorIndex`: exact, or through ``ann``), or, with
    ``pgvector_from``, where they are once the store holds that many
    (:class:`PgvectorSearch`: PostgreSQL's own index; nothing is loaded).
    """

    def __init__(
        self,
        store: Store,
        embedder: Embedder | None,
        ann: ApproximateIndex | None = None,
        *,
        pgvector_from: int | None = None,
        warm_bytes: int = 0,
    ) -> None:
        self._store = store
        self._embedder = embedder
        self._local = VectorIndex(store, ann, saved_vectors(store.location))
        at = pgvector_from
        self._remote = None if at is None else PgvectorSearch(store, at, self._local.guard)
        self._warming: Warming | None = None
        self.keep_warm(warm_bytes)
        self._holding: VectorIndex | PgvectorSearch | None = None
        self._chosen: VectorIndex | PgvectorSearch | None = (
            self._local if self._remote is None else None
        )
        self._checked_at: tuple[int, int] | None = None
        self._tenants = TenantIndexes(store)
        self._skipping = Skipping()  # (how much a write's look skips: its first round's rows)

    @property
    def _index(self) -> VectorIndex | PgvectorSearch:
        """The index that serves: the one a held block took, else the one chosen at the last
        look (no lock and no query on each use: a write checks it inside its transaction,
        and must not wait there for a search to let go of the guard)."""
        if self._holding is not None:
            return self._holding
        return self._chosen if self._chosen is not None else self._choose()

    def _choose(self) -> VectorIndex | PgvectorSearch:
        """PostgreSQL's index from its threshold on, else the one in memory; asked again at
        every search (the store may have grown past the threshold meanwhile)."""
        with self._local.guard:
            if self._holding is not None:
                return self._holding
            remote, warming = self._remote, self._warming
            warm = warming.current(self._local.guard) if warming is not None else None
            if warm is not None:  # (a server's copy in memory: salience.search.warm)
                chosen: VectorIndex | PgvectorSearch = warm
            elif remote is not None and remote.usable():
                chosen = remote
                if warming is not None and self._embedder is not None:
                    warming.start(remote.counted, self._embedder.dimensions)
            else:
                chosen = self._local
            self._chosen = chosen
            return chosen

    @property
    def warming(self) -> Warming | None:
        """A server's copy of the vectors beside PostgreSQL's index (None: not kept)."""
        return self._warming

    def keep_warm(self, budget: int) -> None:
        """Searched by PostgreSQL's index, load the vectors into memory meanwhile and search them
        there once loaded, if at most ``budget`` bytes (:mod:`salience.search.warm`; 0: never)."""
        if self._remote is not None and budget > 0 and self._warming is None:
            self._warming = Warming(self._store, budget)

    def close(self) -> None:
        """Persist what needs persisting (the approximate index); stop loading a copy."""
        if self._warming is not None:
            self._warming.close()
        self._local.close()

    def discard_saved(self) -> int:
        """Zero and delete the vectors kept beside the store (after an erasure); how many files
        went. A server's copy in memory and the tenants' own copies are dropped too."""
        self._tenants.clear()
        if self._warming is not None:
            with self._local.guard:
                self._warming.drop()
                self._chosen = None
        return self._local.discard_saved()

    @property
    def embedder(self) -> Embedder | None:
        """The embedder in use (None: full-text only)."""
        return self._embedder

    def count(self) -> int:
        """How many memories have a vector."""
        return len(self._index)  # (under the index's guard)

    @property
    def active(self) -> bool:
        """Whether writes are embedded and recall uses vectors."""
        return self._embedder is not None

    def stored_identity(self) -> str | None:
        """The identity of the embedder that made the store's vectors, if any."""
        return self._store.get_meta(IDENTITY_KEY)

    def held(self, pending: int = 0) -> Held:
        """``with vectors.held():`` — bring the index up to date once, then use it as it is
        until the block ends, this thread alone (another thread's search waits: the rows it
        scores never change under it). A recall holds it for its vector side: one look at
        the store, and every layer's hits from the same rows. ``pending``: a write's look scores
        up to so many new vectors beside the rows (``VectorIndex.hold_pending``)."""
        return Held(self, pending)

    def _check(self) -> Embedder:
        embedder = self._embedder
        assert embedder is not None
        if self._index._held:
            return embedder
        # Re-checked whenever anyone wrote since the last check: another process may have
        # re-embedded the store with another model meanwhile.
        marker = self._store.change_marker()
        if marker != self._checked_at:
            stored = self.stored_identity()
            if stored is not None and stored != embedder.identity and len(self._index):
                raise EmbedderError(
                    f"this store's vectors were made by {stored}, but the configured embedder "
                    f"is {embedder.identity}; run `salience reindex` to re-embed every memory "
                    "with it, or set SALIENCE_EMBEDDER back"
                )
            self._checked_at = marker
        return embedder

    def embed(self, texts: Sequence[str]) -> Matrix | None:
        """Vectors for texts about to be written (None when no embedder is configured)."""
        if self._embedder is None:
            return None
        return self._check().embed(texts)

    def put(self, memory_id: str, vector: Vector) -> None:
        """Store a vector (call inside the write's transaction)."""
        embedder = self._check()
        if self.stored_identity() != embedder.identity:
            self._store.set_meta(IDENTITY_KEY, embedder.identity)
            self._store.set_meta(DIMENSIONS_KEY, str(embedder.dimensions))
        self._store.set_vector(memory_id, np.asarray(vector, dtype=np.float32).tobytes())

    def put_many(self, pairs: Sequence[tuple[str, Vector]]) -> None:
        """Store several vectors (in the write's transaction): one check, one statement."""
        if not pairs:
            return
        embedder = self._check()
        if self.stored_identity() != embedder.identity:
            self._store.set_meta(IDENTITY_KEY, embedder.identity)
            self._store.set_meta(DIMENSIONS_KEY, str(embedder.dimensions))
        self._store.set_vectors([(i, np.asarray(v, dtype=np.float32).tobytes()) for i, v in pairs])

    def search(
        self,
        query: Vector,
        flt: MemoryFilter,
        k: int,
        *,
        min_similarity: float = -1.0,
        neighbour_weight: float = 0.0,
        floor_query: Vector | None = None,
    ) -> list[VectorHit]:
        """The ``k`` memories matching ``flt`` most similar to ``query``, best first.

        ``min_similarity`` (and "more than 0") applies to the similarity to ``floor_query``
        when it is given as well: the query before relevance feedback moved it, so that a hit
        is always related to what was asked."""
        with self._local.guard:
            self._choose()
            found = self._search(
                query, flt, k, min_similarity, neighbour_weight, floor_query, self._records
            )
        return [VectorHit(record, similarity) for record, _, similarity in found]

    def search_rows(
        self,
        query: Vector,
        flt: MemoryFilter,
        k: int,
        *,
        min_similarity: float = -1.0,
        neighbour_weight: float = 0.0,
        floor_query: Vector | None = None,
        matching: Callable[[Sequence[str], MemoryFilter], Sequence[tuple[int, str]]] | None = None,
        by_rows: RowsAhead | None = None,
    ) -> list[tuple[int, str, float]]:
        """:meth:`search` as (row number in the store, id, similarity): no record is built.
        ``matching``: what answers the filter for :meth:`Store.matching` (the same answers);
        ``by_rows``: what it answered for the index's rows a moment ago (:meth:`rows_ahead`)."""
        with self._local.guard:
            self._choose()
            fetch = matching or self._store.matching
            return self._search(
                query, flt, k, min_similarity, neighbour_weight, floor_query, fetch, by_rows=by_rows
            )

    def rows_ahead(self, ahead: Ahead, flt: MemoryFilter) -> RowsAhead | None:
        """``ahead``'s answers for the rows of the index a search of ``flt`` would use now
        (:mod:`salience.search.ahead_rows`); None where it would not use the rows in memory."""
        with self._local.guard:
            index = self._choose()  # (a search that takes a tenant's own index answers by id)
            if not isinstance(index, VectorIndex):
                return None
            index.refresh()  # (what a search would read first: here, beside the embedding)
            return rows_ahead(index, ahead, flt)

    def nearby_texts(
        self, query: Vector, flt: MemoryFilter, k: int, least: float, skip: Callable[[str], bool]
    ) -> list[tuple[str, str, float]]:
        """:meth:`search` by :meth:`VectorIndex.nearby`, as (text, id, similarity): no record
        is built (a write's look for the memories it may update reads their text alone).
        ``skip``: the texts that are no hit (looked past, as those ``flt`` leaves out are)."""
        with self._local.guard:
            self._choose()
            return self._search(query, flt, k, least, 0.0, None, self._store.texts, True, skip)

    def _records(self, ids: Sequence[str], flt: MemoryFilter) -> list[tuple[MemoryRecord, str]]:
        return [(record, record.id) for record in self._store.get_many(ids, flt)]

    def _search(
        self,
        query: Vector,
        flt: MemoryFilter,
        k: int,
        min_similarity: float,
        neighbour_weight: float,
        floor_query: Vector | None,
        fetch: Callable[[Sequence[str], MemoryFilter], Sequence[tuple[_Found, str]]],
        nearby: bool = False,
        skip: Callable[[_Found], bool] | None = None,
        by_rows: RowsAhead | None = None,
    ) -> list[tuple[_Found, str, float]]:
        """``fetch``: the store's (found, id) for the ids that pass ``flt``, in their order;
        ``by_rows``: its answers by row, where they hold (then ``_Found`` is a row number)."""
        self._check()
        index = self._index
        if flt.user is not None:  # (a small tenant of a large store: its own index)
            index = self._tenants.index_for((flt.user, *flt.spaces), len(index)) or index
        near = nearby and neighbour_weight <= 0
        least = max(min_similarity, 0.0)  # (a hit passes both: see keep below)
        best = index.nearby(query, least) if near else index.ranked(query, neighbour_weight, least)
        # The ids of the rows just scored: a refresh may replace the list (another process
        # wrote meanwhile), so never use one taken before ranked().
        ids = index.loaded_ids()
        # A write's look skips documents, about half of chat turns: it asks for as many more
        # rows as recent looks skipped (rounds a look on 100,000 LongMemEval turns: 2.09 ->
        # 1.26: Skipping), and k where nothing is skipped.
        wanted = k if skip is None else self._skipping.rows(k)
        fetched = Fetched(fetch, flt, skip)  # (a deeper round fetches only the ids it adds)
        while True:
            rows, scores = best(wanted)
            found = len(rows)
            # A cosine of 0 or less says "unrelated": never a vector hit.
            keep = (scores >= min_similarity) & (scores > 0)
            if floor_query is not None:
                floor = index.scores_of(rows, floor_query, neighbour_weight)
                keep &= (floor >= min_similarity) & (floor > 0)
            rows, scores = rows[keep], scores[keep]
            seqs = None if by_rows is None else by_rows.seqs(index, rows, flt)
            if seqs is not None:  # (the same test as below, the filter answered by row)
                enough = int(passed(seqs).sum()) >= k
                if enough or found < wanted or len(rows) < found or wanted >= len(ids):
                    return kept(ids, rows, scores, seqs, k)  # type: ignore[return-value]
                wanted *= 4 if skip is None else 2
                continue
            found_ids = take(ids, rows.tolist())
            matched = fetched(found_ids)  # (skipped: no hit, looked past as the filtered)
            # Look deeper only when the store's filter removed hits: rows below the
            # similarity floor stay below it however deep one looks.
            if len(matched) >= k or found < wanted or len(rows) < found or wanted >= len(ids):
                break
            wanted *= 4 if skip is None else 2  # (a skip leaves about half: LongMemEval)
        if skip is not None:
            self._skipping.saw(*fetched.counts())
        similarity = dict(zip(found_ids, scores.tolist(), strict=True))
        return [(item, memory_id, similarity[memory_id]) for item, memory_id in matched[:k]]

    def neighbours(self, memory_ids: Sequence[str]) -> dict[str, tuple[str | None, str | None]]:
        """Session neighbours of memories that have vectors (see :class:`VectorIndex`)."""
        with self._local.guard:
            return self._choose().neighbours(memory_ids)

    def neighbour_slots(
        self, memory_ids: Sequence[str], owners: Sequence[str] | None = None
    ) -> tuple[npt.NDArray[np.intp], npt.NDArray[np.intp]] | None:
        """:meth:`neighbours` as positions among ``memory_ids`` (``VectorIndex.neighbour_slots``;
        None from PostgreSQL's index). ``owners``: the memories are theirs, and their own
        index (:mod:`salience.search.tenants`) answers if a search just made it."""
        with self._local.guard:
            index = self._tenants.kept(owners) or self._choose()
            return index.neighbour_slots(memory_ids) if isinstance(index, VectorIndex) else None

    def gathered(
        self, memory_ids: Sequence[str], owners: Sequence[str] | None = None
    ) -> tuple[Matrix, npt.NDArray[np.bool_]]:
        """The stored vectors of those memories, a row each in the order given (zeros for one
        that has none), and which have one (``owners``: as in :meth:`neighbour_slots`)."""
        with self._local.guard:
            return (self._tenants.kept(owners) or self._choose()).gathered(memory_ids)

    def stored(
        self, memory_ids: Sequence[str], owners: Sequence[str] | None = None
    ) -> dict[str, Vector]:
        """The stored vector of each of those memories that has one (``owners``: as above)."""
        rows, known = self.gathered(memory_ids, owners)
        return {i: rows[n] for n, i in enumerate(memory_ids) if known[n]}

    def centroid(self, memory_ids: Sequence[str]) -> Vector | None:
        """The normalised mean of the memories' vectors (None if none of them has one)."""
        with self._local.guard:
            found, known = self._choose().gathered(memory_ids)
        mean = found[known].mean(axis=0) if known.any() else None
        norm = 0.0 if mean is None else float(np.linalg.norm(mean))
        return None if mean is None or norm == 0 else (mean / norm).astype(np.float32)

    def query_vector(self, text: str) -> Vector | None:
        """The query's embedding, or None when recall has no vectors to search."""
        if self._embedder is None or not len(self._index):
            return None
        matrix = self.embed([text])
        assert matrix is not None
        row: Vector = matrix[0]
        return row

    def reindex(
        self, *, batch: int = 256, progress: Callable[[int, int], None] | None = None
    ) -> int:
        """Embed every memory that has no vector (all of them, if the embedder changed)."""
        embedder = self._embedder
        if embedder is None:
            raise EmbedderError("no embedder is configured (SALIENCE_EMBEDDER=none)")
        if self.stored_identity() not in (None, embedder.identity):
            with self._store.transaction():
                self._store.clear_vectors()
                self._store.set_meta(IDENTITY_KEY, None)
        self._checked_at = None
        total = self._store.count_without_vectors()
        done = 0
        while records := self._store.without_vectors(batch):
            vectors = embedder.embed([r.content for r in records])
            with self._store.transaction():
                for record, vector in zip(records, vectors, strict=True):
                    self.put(record.id, vector)
            done += len(records)
            if progress is not None:
                progress(done, total)
        return done
