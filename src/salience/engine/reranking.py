"""The salience profile's learned fusion as recall applies it: whether it re-ranks (it was
fitted on recalls by both retrievers), and the records of the candidates it scores
(:mod:`salience.search.learned` does the scoring)."""

from __future__ import annotations

import builtins
from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import TYPE_CHECKING

from salience.briefing.passing import rows_passing
from salience.engine.record import FULL_TEXT_ONLY
from salience.engine.updating import Updating
from salience.lazy import lazy_module
from salience.models import Hit, MemoryRecord
from salience.profiles.base import Profile, ProfileSettings, RecallPlan
from salience.search.pool import Pool, choose
from salience.sharing.layers import Layer
from salience.stores.base import MemoryFilter

if TYPE_CHECKING:
    import numpy as np

    from salience.briefing.columns import Columns
    from salience.briefing.passing import Ahead
    from salience.search.rerank import Floats
else:
    np = lazy_module("numpy")

FULL_TEXT_CAUSES = frozenset({"no_embedder", "embedder_failed"})
"""What makes a recall full text only (:mod:`salience.engine.degraded`)."""


def owners_of(flt: MemoryFilter) -> tuple[str, ...] | None:
    """Whose memories a recall searches (the user and the spaces it reads; None: all)."""
    return None if flt.user is None else (flt.user, *flt.spaces)


class Reranking(Updating):
    """The learned fusion's part of recall."""

    def _learns(self, plan: RecallPlan, settings: ProfileSettings) -> bool:
        """Whether the learned model re-ranks: fitted on recalls by both retrievers, it does
        not rank full text alone (no embedder, an evaluation without one, or it failed)."""
        both = self.vectors.embedder is not None and not FULL_TEXT_ONLY.get()
        return plan.rerank and settings.recall_learned and both

    def _reranked(
        self,
        query: str,
        pool: Pool,
        columns: Columns,
        rules: Profile,
        now: datetime,
        settings: ProfileSettings,
        limit: int,
        flt: MemoryFilter,
        layers: Sequence[Layer],
    ) -> builtins.list[Hit]:
        """The fusion's best ``depth`` candidates (in its order), scored again by the learned
        model (:mod:`salience.search.learned`); the records of the hits are read here."""
        from salience.search import rerank
        from salience.search.learned import rescored

        model = rerank.load()
        best = choose(pool, columns, rules, now, settings, max(model.depth, limit))
        present = self._pool_present(pool, best, flt, layers, columns)

        def read(rows: Sequence[int]) -> builtins.list[MemoryRecord | None]:
            return self._pool_records(pool, rows, flt, layers)

        def vectors(taken: Pool) -> Floats | None:
            return self._pool_vectors(taken, flt, layers)

        return rescored(
            query, model, pool, columns, best, present, read, rules, now, settings, limit, vectors
        )

    def _pool_vectors(
        self, pool: Pool, flt: MemoryFilter, layers: Sequence[Layer]
    ) -> Floats | None:
        """The stored vectors of a pool's rows, one row each (NaN where none is known: a
        memory without a vector, or a layer embedded by another model); None if none is."""
        if not any(pool.source):  # (the usual: every row the local store's, one gather)
            found, known = self.vectors.gathered(pool.ids, owners_of(flt))
            if not known.any():
                return None
            whole: Floats = found.astype(np.float64)
            if not known.all():
                whole[~known] = np.nan
            return whole
        out: Floats | None = None
        for index, layer in enumerate((None, *layers)):
            at = [n for n, s in enumerate(pool.source) if s == index]
            vectors = self.vectors if layer is None else self._layer_vectors(layer)
            if not at or vectors is None:
                continue
            owners = owners_of(flt) if layer is None else None
            found, known = vectors.gathered([pool.ids[n] for n in at], owners)
            if not known.any():
                continue
            if out is None:
                out = np.full((len(pool.ids), found.shape[1]), np.nan)
            rows = np.array(at, dtype=np.intp)
            out[rows[known]] = found[known]
        return out

    def _matching(
        self, memory_ids: Sequence[str], flt: MemoryFilter, ahead: Ahead | None = None
    ) -> builtins.list[tuple[int, str]]:
        """:meth:`Store.matching <salience.stores.base.Store.matching>` of the local store,
        answered from the briefing's columns when they can (:mod:`salience.briefing.passing`:
        the same answers, without a query); by ``ahead`` first, if given and it can."""
        found = None if ahead is None else ahead(memory_ids, flt)
        if found is not None:
            return found
        found = self._briefings.matching(memory_ids, flt)
        return self._store.matching(memory_ids, flt) if found is None else found

    def _pool_present(
        self,
        pool: Pool,
        rows: Sequence[int],
        flt: MemoryFilter,
        layers: Sequence[Layer],
        columns: Columns | None = None,
    ) -> builtins.list[bool]:
        """Whether each of those pool rows' memories still matches ``flt``: no record is
        built (the learned model scores 50 candidates and returns ten). ``columns``: the
        pool's, read as the store was a moment ago (:func:`~salience.search.pool.with_columns`):
        they answer a filter they hold for a pool of the local store's rows alone."""
        if columns is not None and not any(pool.source):
            keep = rows_passing(columns, np.array(rows, dtype=np.intp), flt)
            if keep is not None:
                return keep.tolist()  # type: ignore[no-any-return]
        there: set[tuple[int, str]] = set()
        for index, layer in enumerate((None, *layers)):
            ids = [pool.ids[r] for r in rows if pool.source[r] == index]
            if ids:
                found = (
                    self._matching(ids, flt) if layer is None else layer.store.matching(ids, flt)
                )
                there.update((index, memory_id) for _, memory_id in found)
        return [(pool.source[r], pool.ids[r]) in there for r in rows]

    def _pool_records(
        self, pool: Pool, rows: Iterable[int], flt: MemoryFilter, layers: Sequence[Layer]
    ) -> builtins.list[MemoryRecord | None]:
        """The records of those pool rows, in order (None: no longer there)."""
        rows = list(rows)
        found: dict[tuple[int, str], MemoryRecord] = {}
        for index, layer in enumerate((None, *layers)):
            ids = [pool.ids[r] for r in rows if pool.source[r] == index]
            if not ids:
                continue
            records = self._briefings.records(layer, ids, flt)  # (kept current: no query)
            if layer is not None:
                records = layer.records(records)
            found.update(((index, r.id), r) for r in records)
        return [found.get((pool.source[r], pool.ids[r])) for r in rows]
