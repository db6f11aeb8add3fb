"""Recall: :meth:`~salience.engine.memory.Memory.search` over the local store and every layer.

Full-text and vector candidates are gathered (in parallel where the store allows), fused by
the profile's plan (:mod:`salience.search.fusion`) and ranked by its search score.
"""

from __future__ import annotations

import builtins
from collections.abc import Callable, Iterable, Sequence
from datetime import datetime
from functools import partial
from typing import TYPE_CHECKING

from salience import telemetry
from salience.engine import degraded
from salience.engine.core import STALE_TAG
from salience.engine.reading import person_reads
from salience.engine.record import FULL_TEXT_ONLY, QUERY_VECTORS, SETTINGS
from salience.engine.reranking import FULL_TEXT_CAUSES, Reranking, owners_of
from salience.errors import EmbedderError, InvalidInputError
from salience.lazy import lazy_module
from salience.models import LOCAL_LAYER, Degraded, Hit, Recalled, UserScope
from salience.models.spaces import READ
from salience.profiles.base import Profile, ProfileSettings, RecallPlan
from salience.search.fusion import LEXICAL, fuse, rank_candidates
from salience.search.pool import Found, Pool, choose, hit, neighbour_slots, spread, with_columns
from salience.search.pool import fuse as fuse_rows
from salience.sharing.layers import Layer
from salience.stores.base import MemoryFilter
from salience.write.records import check_unicode

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    from salience.briefing.columns import Flags
    from salience.briefing.passing import Ahead
    from salience.embeddings.arrays import Vector
    from salience.search.ahead_rows import RowsAhead
    from salience.search.vectors import Vectors

    # the full-text hits, the feedback's examples, the vector side's filter (if answered),
    # by id and by row of the index
    Lexical = tuple[Found, list[Vector], Ahead | None, RowsAhead | None]
else:
    np = lazy_module("numpy")


class Recall(Reranking):
    """The search verb and how it gathers candidates."""

    @telemetry.traced("recall")
    @person_reads
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
        space: str | None = None,
        agent: str | None = None,
    ) -> Recalled:
        """Recall current memories for a query, ranked by the profile's search score.

        Any text is a valid query. ``types`` keeps only those types, ``types_exclude`` drops
        them (not both). Profiles that count accesses bump the local hits returned
        (``touch=False`` looks without counting, for evaluations; a search ``as_of`` another
        time never counts, so its output can be reproduced). The hits come as a list whose
        ``degraded`` says how this recall ran short of a full hybrid search, if it did (no
        embedder, the embedder failing, an index lacking memories, a layer left out).
        The user's own memories and every space's it reads are searched (``space``: that
        space's only), each hit naming its space; ``agent`` keeps those an agent wrote.
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
        scope = self._scope(user)
        spaces = self._readable(scope) if space is None else ()
        flt = MemoryFilter(
            as_of=now,
            user=self._acting_on(scope, space, READ),
            spaces=spaces,
            agent=agent,
            project=project,
            type=type,
            types=types,
            types_exclude=types_exclude,
            tags=tuple(tags),
        )
        with self._state_lock:
            layers = self._mounted()
            notes = degraded.unavailable(self._unavailable)
        text = query.strip()
        settings = SETTINGS.get() or self._settings  # (an evaluation's alternative)
        telemetry.note(profile=rules.name, tenant=flt.user, limit=limit, layers=len(layers))
        if len(text) < plan.substring_below:
            with telemetry.span("recall.substring") as stage:
                found = self._store.substring(text, flt, limit)
                for layer in layers:
                    found += layer.records(layer.store.substring(text, flt, limit))
                stage.set(candidates=len(found))
            with telemetry.span("recall.scoring"):
                candidates = fuse(plan, [(r, 1.0) for r in found], ())
                hits = rank_candidates(candidates, rules, now, settings, limit)
        else:
            learned = self._learns(plan, settings)
            fetch = limit
            if learned:
                from salience.search import rerank

                fetch = max(limit, rerank.load().depth)
            pool = self._candidates(query, flt, plan, fetch, layers, notes)
            learned = learned and not any(n.cause in FULL_TEXT_CAUSES for n in notes)
            reranking = text if learned else None
            with telemetry.span("recall.scoring", candidates=len(pool), learned=learned):
                hits = self._rank_pool(pool, rules, now, settings, limit, flt, layers, reranking)
        hits = [h for h in hits if STALE_TAG not in h.record.tags] + [
            h for h in hits if STALE_TAG in h.record.tags
        ]  # a stale memory (tagged: its source changed) comes after the current ones
        hits = self._newest_first(hits, rules.name, flt.user, flt.spaces)  # (a found update)
        if touch is None:
            touch = as_of is None
        if rules.bump_on_recall and touch:
            self._touches.count([h.record.id for h in hits if h.record.layer == LOCAL_LAYER], now)
        if touch and flt.user is not None:
            self._record_recall(query, rules.name, flt.user, hits, now)
        degraded.tell(notes)
        telemetry.note(hits=len(hits), degraded=len(notes))
        return Recalled(hits, notes)

    def _candidates(
        self,
        query: str,
        flt: MemoryFilter,
        plan: RecallPlan,
        limit: int,
        layers: Sequence[Layer],
        notes: builtins.list[Degraded],
    ) -> Pool:
        """Full-text and vector candidates from every layer, fused by the profile's plan;
        ``notes`` gets what kept either search from finding all it should."""

        text = query
        if plan.dated and flt.as_of is not None:  # "last Friday" asked today: that Friday
            from salience.text_dates import resolve

            text = " ".join((query, *resolve(query, flt.as_of)))

        def full_text() -> Found:
            count = plan.lexical_count(limit)
            found = Found()
            with telemetry.span("recall.full_text", asked=count) as stage:
                for index, store in enumerate((self._store, *(layer.store for layer in layers))):
                    rows = store.search_rows(
                        text,
                        flt,
                        count,
                        dated=plan.dated,
                        passing=None if index else self._briefings.passing,
                    )
                    found.add(index, rows)
                stage.set(found=len(found))
            return found

        vector = Found()
        sources: builtins.list[tuple[int, Vectors]] = []
        hybrid = plan.fusion != LEXICAL and plan.vector_count(limit) and not FULL_TEXT_ONLY.get()
        if hybrid and self._embedder is None:
            notes.append(degraded.no_embedder())
        elif self._embedder is not None and not FULL_TEXT_ONLY.get():  # (vectors: the yardstick)
            without_vectors, without_text = self._indexes.gaps()
            notes += degraded.gaps(without_vectors if hybrid else 0, without_text)
        if not hybrid or self._embedder is None:
            lexical = full_text()
        else:
            searched = self._vector_sources(layers, notes)
            feedback = plan.feeds_back and bool(searched)

            def text_and_examples(ahead: bool = True) -> Lexical:
                # What the vector side waits for when it has feedback is found on the worker
                # while this thread embeds the query (docs/benchmarks.md): the full-text hits,
                # the feedback's examples (the stored vectors of the best of them) and which
                # memories pass the filter (a small store's: Ahead; not made on this thread,
                # where it costs what it saves).
                found = full_text()
                if not feedback:
                    return found, [], None, None
                passing = self._briefings.ahead(flt) if ahead else None
                rows = None if passing is None else self.vectors.rows_ahead(passing, flt)
                return found, self._examples(found, plan, searched, flt), passing, rows

            def vector_hits(lexical: Callable[[], Lexical]) -> Found:
                try:
                    return self._vector_hits(query, flt, plan, limit, searched, lexical)
                except EmbedderError as exc:  # (found by full text, and said)
                    notes.append(degraded.embedder_failed(str(exc)))
                    return Found()

            if self._store.in_transaction() or self._waits_for_full_text(query, plan):
                # (a worker would wait on this thread's own lock, or this thread on the worker)
                done = text_and_examples(ahead=False)
                vector = vector_hits(lambda: done)
                lexical = done[0]
            else:
                # Full-text search runs in a worker (on a connection of its own) while this
                # thread embeds the query and scans the vectors: SQLite, onnxruntime and NumPy
                # release the GIL (a small store's copy of its index holds it, for less time
                # than FTS5 took: docs/benchmarks.md). With feedback, the vector scan waits
                # for the full-text hits; they are usually found before the query is embedded.
                pending = self._worker().submit(telemetry.carried(text_and_examples))
                try:
                    vector = vector_hits(pending.result)
                finally:
                    lexical = pending.result()[0]
            sources = searched
        with telemetry.span("recall.fusion", full_text=len(lexical), vectors=len(vector)) as stage:
            pool = self._fused(plan, lexical, vector, sources, flt, layers)
            stage.set(candidates=len(pool))
        return pool

    def _fused(
        self,
        plan: RecallPlan,
        lexical: Found,
        vector: Found,
        sources: Sequence[tuple[int, Vectors]],
        flt: MemoryFilter,
        layers: Sequence[Layer],
    ) -> Pool:
        """The full-text and vector hits fused by the plan, spread to their neighbours."""
        pool = fuse_rows(plan, lexical, vector)
        if plan.context_weight and len(vector):
            slots: tuple[npt.NDArray[np.intp], npt.NDArray[np.intp]] | None = None
            if len(sources) == 1 and set(pool.source) == {sources[0][0]}:  # (one source)
                slots = sources[0][1].neighbour_slots(pool.ids, owners_of(flt))
            if slots is None:
                neighbours: dict[str, tuple[str | None, str | None]] = {}
                for index, vectors in sources:
                    neighbours.update(vectors.neighbours(pool.of_source(index)))
                slots = neighbour_slots(pool.ids, neighbours)

            def asks(pool: Pool) -> Flags:
                records = self._pool_records(pool, range(len(pool)), flt, layers)
                texts = {r.id: r.content for r in records if r is not None}
                return np.array(["?" in texts.get(i, "") for i in pool.ids], dtype=np.bool_)

            before, after = slots
            pool = spread(pool, before, after, plan.context_weight, plan.reply_weight, asks)
        return pool

    @staticmethod
    def _waits_for_full_text(query: str, plan: RecallPlan) -> bool:
        """Whether the vector scan could only wait for the full-text hits: the query's vector
        is known (an evaluation's) and the plan's feedback moves it toward those hits. Then
        they are found on this thread: a worker's hand-off cost ~0.12 ms of 1.6 (LoCoMo)."""
        known = QUERY_VECTORS.get()
        return plan.feeds_back and known is not None and query in known

    def _rank_pool(
        self,
        pool: Pool,
        rules: Profile,
        now: datetime,
        settings: ProfileSettings,
        limit: int,
        flt: MemoryFilter,
        layers: Sequence[Layer],
        reranking: str | None = None,
    ) -> builtins.list[Hit]:
        """The pool scored as columns by the profile's search score (then its selection): the
        records of the hits alone are read, and their scores explained. ``reranking``: the
        query, when the learned model scores the best of them again first."""
        sources = (None, *layers)
        joined = with_columns(pool, lambda i, seqs: self._briefings.rows(sources[i], seqs))
        if joined is None:
            return []
        pool, columns = joined
        if reranking is not None:
            return self._reranked(
                reranking, pool, columns, rules, now, settings, limit, flt, layers
            )
        chosen = choose(pool, columns, rules, now, settings, limit)
        hits: builtins.list[Hit] = []
        for row, record in zip(chosen, self._pool_records(pool, chosen, flt, layers), strict=True):
            if record is not None:  # (else deleted since it was found)
                hits.append(hit(pool, row, record, len(hits) + 1, rules, now, settings))
        return hits

    def _vector_sources(
        self, layers: Sequence[Layer], notes: builtins.list[Degraded]
    ) -> builtins.list[tuple[int, Vectors]]:
        """The vectors a recall searches, by their index (0: the local store, then the
        layers): the local store's if it has any, and every layer's of this embedder (a
        layer embedded by another model is searched by full text only, and ``notes`` says so)."""
        sources: builtins.list[tuple[int, Vectors]] = []
        if self.vectors.count():
            sources.append((0, self.vectors))
        for index, mounted in enumerate(layers, 1):
            vectors = self._layer_vectors(mounted)
            if vectors is not None:
                sources.append((index, vectors))
            else:
                notes.append(degraded.layer_full_text(mounted.mount.name))
        return sources

    def _vector_hits(
        self,
        query: str,
        flt: MemoryFilter,
        plan: RecallPlan,
        limit: int,
        sources: Sequence[tuple[int, Vectors]],
        lexical: Callable[[], Lexical],
    ) -> Found:
        """Vector hits from ``sources`` (:meth:`_vector_sources`). ``lexical`` gives the
        full-text hits, the stored vectors of the best of them (:meth:`_examples`) and which
        memories of a small store pass the filter (:class:`~salience.briefing.passing.Ahead`),
        for the plan's feedback (called only then, before the index is held: the worker that
        gathers them takes its guard)."""
        if not sources:
            return Found()
        known = QUERY_VECTORS.get()
        asked = known.get(query) if known is not None else None
        if asked is None:
            with telemetry.span("recall.embed"):
                embedded = self.vectors.embed([query])  # (before holding the index: the slow part)
            assert embedded is not None
            asked = embedded[0]
        query_vector, ahead, by_rows = asked, None, None
        if plan.feeds_back:
            from salience.embeddings.arrays import moved_toward

            _, examples, ahead, by_rows = lexical()
            query_vector = moved_toward(asked, examples, plan.feedback_weight)
        matching = self._matching if ahead is None else partial(self._matching, ahead=ahead)
        with self.vectors.held(), telemetry.span("recall.vectors", sources=len(sources)) as stage:
            found = Found()
            for index, vectors in sources:
                rows = vectors.search_rows(
                    query_vector,
                    flt,
                    plan.vector_count(limit),
                    min_similarity=plan.vector_min,
                    neighbour_weight=plan.neighbour_weight,
                    floor_query=None if query_vector is asked else asked,
                    matching=matching if index == 0 else None,
                    by_rows=by_rows if index == 0 else None,
                )
                found.add(index, rows)
            stage.set(found=len(found))
            return found

    def _examples(
        self,
        lexical: Found,
        plan: RecallPlan,
        sources: Sequence[tuple[int, Vectors]],
        flt: MemoryFilter,
    ) -> builtins.list[Vector]:
        """The stored vectors of the best full-text hits (the plan's ``feedback_count``, by
        score, ties in the order found) that have one: what relevance feedback moves the
        query toward."""
        by_score = np.argsort(-np.array(lexical.scores, dtype=np.float64), kind="stable")
        best = by_score[: plan.feedback_count].tolist()  # (ties in the order found)
        keys = [(lexical.source[i], lexical.ids[i]) for i in best]
        stored: dict[tuple[int, str], Vector] = {}
        for source, vectors in sources:  # (one read per source, not per example)
            ids = [memory_id for at, memory_id in keys if at == source]
            owners = owners_of(flt) if source == 0 else None
            if ids:
                rows, known = vectors.gathered(ids, owners)
                stored.update(((source, i), rows[n]) for n, i in enumerate(ids) if known[n])
        return [stored[key] for key in keys if key in stored]
