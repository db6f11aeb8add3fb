"""Recall: :meth:`~salience.engine.memory.Memory.search` over the local store and every layer.

Full-text and vector candidates are gathered (in parallel where the store allows), fused by
the profile's plan (:mod:`salience.search.fusion`) and ranked by its search score.
"""

from __future__ import annotations

import builtins
from collections.abc import Callable, Iterable, Sequence
from datetime import datetime
from typing import TYPE_CHECKING

from salience.engine.core import STALE_TAG
from salience.engine.record import SETTINGS, Recording
from salience.errors import (
    InvalidInputError,
)
from salience.models import (
    LOCAL_LAYER,
    Hit,
    MemoryRecord,
    UserScope,
)
from salience.profiles.base import RecallPlan
from salience.search.fusion import LEXICAL, Candidate, fuse, rank_candidates, spread_context
from salience.sharing.layers import Layer
from salience.stores.base import MemoryFilter
from salience.text_dates import resolve
from salience.write.records import check_unicode

if TYPE_CHECKING:
    from salience.embeddings.arrays import Vector
    from salience.search.vectors import Vectors


class Recall(Recording):
    """The search verb and how it gathers candidates."""

    def search(
        self,
        query: str,
        limit: int = 10,
        *,
        profile: str | None = None,
        user: UserScope = None,
        project: str | None = None,
        type: str | None = None,
        tags: Iterable[str] = (),
        as_of: datetime | None = None,
        touch: bool | None = None,
        types: Iterable[str] = (),
        types_exclude: Iterable[str] = (),
    ) -> builtins.list[Hit]:
        """Recall current memories for a query, ranked by the profile's search score.

        Any text is a valid query. ``types`` keeps only those types, ``types_exclude`` drops
        them (not both). Profiles that count accesses bump the local hits returned
        (``touch=False`` looks without counting, for evaluations; a search ``as_of`` another
        time never counts, so its output can be reproduced).
        """
        if not isinstance(query, str) or not query.strip():
            raise InvalidInputError("the query is empty", field="query")
        check_unicode(query, "query")
        if limit < 1:
            raise InvalidInputError("limit must be at least 1", field="limit")
        types, types_exclude = tuple(types), tuple(types_exclude)
        if types and types_exclude:
            raise InvalidInputError("give types or types_exclude, not both", field="types_exclude")
        rules = self.profile(profile)
        plan = rules.recall
        now = self._at(as_of)
        flt = MemoryFilter(
            as_of=now,
            user=self._scope(user),
            project=project,
            type=type,
            types=types,
            types_exclude=types_exclude,
            tags=tuple(tags),
        )
        layers = self._mounted()
        text = query.strip()
        if len(text) < plan.substring_below:
            found = self._store.substring(text, flt, limit)
            for layer in layers:
                found += layer.records(layer.store.substring(text, flt, limit))
            candidates = fuse(plan, [(r, 1.0) for r in found], ())
        else:
            candidates = self._candidates(query, flt, plan, limit, layers)
        settings = SETTINGS.get() or self._settings  # (an evaluation's alternative)
        hits = rank_candidates(candidates, rules, now, settings, limit)
        hits = [h for h in hits if STALE_TAG not in h.record.tags] + [
            h for h in hits if STALE_TAG in h.record.tags
        ]  # a stale memory (tagged: its source changed) comes after the current ones
        if touch is None:
            touch = as_of is None
        if rules.bump_on_recall and touch:
            self._touches.count([h.record.id for h in hits if h.record.layer == LOCAL_LAYER], now)
        if touch and flt.user is not None:
            self._record_recall(query, rules.name, flt.user, hits, now)
        return hits

    def _candidates(
        self, query: str, flt: MemoryFilter, plan: RecallPlan, limit: int, layers: Sequence[Layer]
    ) -> builtins.list[Candidate]:
        """Full-text and vector candidates from every layer, fused by the profile's plan."""

        text = query
        if plan.dated and flt.as_of is not None:  # "last Friday" asked today: that Friday
            text = " ".join((query, *resolve(query, flt.as_of)))

        def full_text() -> builtins.list[tuple[MemoryRecord, float]]:
            count = plan.lexical_count(limit)
            found = self._store.search(text, flt, count, dated=plan.dated)
            for layer in layers:
                found += layer.pairs(layer.store.search(text, flt, count, dated=plan.dated))
            return found

        vector: builtins.list[tuple[MemoryRecord, float]] = []
        sources: builtins.list[tuple[Layer | None, Vectors]] = []
        if plan.fusion == LEXICAL or not plan.vector_count(limit) or self._embedder is None:
            lexical = full_text()
        elif self._store.in_transaction():  # a worker would wait on this thread's own lock
            lexical = full_text()
            vector, sources = self._vector_hits(query, flt, plan, limit, layers, lambda: lexical)
        else:
            # Full-text search runs in a worker (on a connection of its own) while this thread
            # embeds the query and scans the vectors: SQLite, onnxruntime and NumPy all
            # release the GIL. (With feedback, the vector scan waits for the full-text hits;
            # they are usually found before the query is embedded.)
            pending = self._worker().submit(full_text)
            try:
                vector, sources = self._vector_hits(query, flt, plan, limit, layers, pending.result)
            finally:
                lexical = pending.result()
        candidates = fuse(plan, lexical, vector)
        if plan.context_weight and vector:
            neighbours = self._neighbours(candidates, sources)
            candidates = spread_context(
                candidates, neighbours, plan.context_weight, plan.reply_weight
            )
        return candidates

    @staticmethod
    def _neighbours(
        candidates: Sequence[Candidate], sources: Sequence[tuple[Layer | None, Vectors]]
    ) -> dict[str, tuple[str | None, str | None]]:
        """The session neighbours (before, after) of each candidate that has a vector."""
        neighbours: dict[str, tuple[str | None, str | None]] = {}
        for source, vectors in sources:
            name = LOCAL_LAYER if source is None else source.name
            ids = [c.record.id for c in candidates if c.record.layer == name]
            neighbours.update(vectors.neighbours(ids))
        return neighbours

    def _vector_hits(
        self,
        query: str,
        flt: MemoryFilter,
        plan: RecallPlan,
        limit: int,
        layers: Sequence[Layer],
        lexical: Callable[[], builtins.list[tuple[MemoryRecord, float]]],
    ) -> tuple[
        builtins.list[tuple[MemoryRecord, float]], builtins.list[tuple[Layer | None, Vectors]]
    ]:
        """Vector hits from the local store and every layer with vectors of this embedder
        (a layer embedded by another model is searched by full text only), and those sources.
        ``lexical`` gives the full-text hits, for the plan's feedback (called only then)."""
        sources: builtins.list[tuple[Layer | None, Vectors]] = []
        if self.vectors.count():
            sources.append((None, self.vectors))
        for mounted in layers:
            vectors = self._layer_vectors(mounted)
            if vectors is not None:
                sources.append((mounted, vectors))
        if not sources:
            return [], []
        embedded = self.vectors.embed([query])  # (before holding the index: the slow part)
        assert embedded is not None
        asked = query_vector = embedded[0]
        with self.vectors.held():
            return self._scan(query_vector, asked, flt, plan, limit, lexical, sources)

    def _scan(
        self,
        query_vector: Vector,
        asked: Vector,
        flt: MemoryFilter,
        plan: RecallPlan,
        limit: int,
        lexical: Callable[[], builtins.list[tuple[MemoryRecord, float]]],
        sources: builtins.list[tuple[Layer | None, Vectors]],
    ) -> tuple[
        builtins.list[tuple[MemoryRecord, float]], builtins.list[tuple[Layer | None, Vectors]]
    ]:
        """Each source's vector hits for the query (moved by feedback if the plan says so)."""
        if plan.feedback_weight > 0 and plan.feedback_count > 0:
            query_vector = self._feedback(asked, lexical(), plan, sources)
        found: builtins.list[tuple[MemoryRecord, float]] = []
        for layer, vectors in sources:
            hits = vectors.search(
                query_vector,
                flt,
                plan.vector_count(limit),
                min_similarity=plan.vector_min,
                neighbour_weight=plan.neighbour_weight,
                floor_query=None if query_vector is asked else asked,
            )
            pairs = [(hit.record, hit.similarity) for hit in hits]
            found += pairs if layer is None else layer.pairs(pairs)
        return found, sources

    def _feedback(
        self,
        query_vector: Vector,
        lexical: Sequence[tuple[MemoryRecord, float]],
        plan: RecallPlan,
        sources: Sequence[tuple[Layer | None, Vectors]],
    ) -> Vector:
        """The query vector moved toward the stored vectors of its best full-text hits."""
        from salience.search.vectors import moved_toward

        by_layer = {LOCAL_LAYER if s is None else s.name: v for s, v in sources}
        best = sorted(lexical, key=lambda pair: -pair[1])[: plan.feedback_count]
        examples = []
        for record, _ in best:
            vectors = by_layer.get(record.layer)
            stored = vectors.stored([record.id]) if vectors is not None else {}
            if record.id in stored:
                examples.append(stored[record.id])
        return moved_toward(query_vector, examples, plan.feedback_weight)
