"""``salience eval``: a recall benchmark built from the user's own store.

Probes, each a query and the memories it should find:

* ``recorded``: recorded recalls whose results were then used (echo, use, update, supersede:
  :mod:`~salience.engine.record`); the relevant memories are the current versions of those;
* ``supersession``: for each memory that replaced an older version, the old version's first
  twelve words must find the current one;
* ``decision``: a current decision's topic (``topic_key``, its words) must find it;
* ``entity`` (optional): an entity named by at most three current memories must find them;
* ``title`` (optional, with ``entity``): a current memory's title must find it.

An entity or title probe is asked with those memories' titles and entities held out (on a
scratch copy of the store, :mod:`.twin`): the memory has to be found by its text, not by the
very words the probe was drawn from.

Each configuration (the current one, and an alternative: another profile, ``as_of``, settings
such as the recall prior or rae's weights, another embedder) runs every probe with
``touch=False`` (nothing counted, nothing recorded). Full text alone (embedder ``none``) runs
on the store itself; another model runs on a scratch copy embedded again (:mod:`.twin`). Metrics per
configuration and per kind: recall@5, recall@10 (the share of a probe's memories in its top
5 / 10), MRR and nDCG@10 (binary gains). Probes whose first relevant rank changed between the
two are listed. ``save`` keeps the run as a baseline in the store; a later run says what moved.
"""

from __future__ import annotations

import builtins
import json
import math
from collections.abc import Iterable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack
from contextvars import copy_context
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from salience.config import EMBEDDER_SETTINGS, RECALL_SETTINGS
from salience.embeddings import Embedder, load_embedder
from salience.engine.record import FULL_TEXT_ONLY, HELPED, QUERY_VECTORS, SETTINGS
from salience.errors import ConfigError, InvalidInputError
from salience.evaluation import probes as drawn
from salience.models import MemoryRecord, Probe, UserScope
from salience.models.evaluation import EvalReport, Metrics, Moved, Run, Variant
from salience.search.fusion import LEXICAL
from salience.stores.base import MemoryFilter
from salience.stores.traces import RECALL

if TYPE_CHECKING:
    from salience.embeddings.arrays import Vector
    from salience.engine.memory import Memory

# The scratch copies are imported by the verb (a process that only briefs or recalls never
# evaluates).

DEPTH = 10
PARALLEL = 2
"""Probes asked at once."""
BASELINE = "eval_baseline"
NO_EMBEDDER = "none"
"""Full text alone: the alternative embedder that needs no copy of the store."""
KINDS = ("recorded", "supersession", "decision", "entity", "title")
HELD_OUT = frozenset({"entity", "title"})
"""Probes drawn from memories' own entities and titles: asked with those held out."""


def score(found: Sequence[str], relevant: Iterable[str]) -> tuple[float, float, float, float]:
    """recall@5, recall@10, reciprocal rank and nDCG@10 of one ranked list."""
    wanted = set(relevant)
    top = list(found[:DEPTH])
    hits = [i for i, memory_id in enumerate(top) if memory_id in wanted]
    r5 = len([i for i in hits if i < 5]) / len(wanted)
    r10 = len(hits) / len(wanted)
    rr = 1.0 / (hits[0] + 1) if hits else 0.0
    dcg = sum(1.0 / math.log2(i + 2) for i in hits)
    ideal = sum(1.0 / math.log2(i + 2) for i in range(min(len(wanted), DEPTH)))
    return r5, r10, rr, dcg / ideal


def _mean(rows: Sequence[tuple[float, float, float, float]]) -> Metrics:
    if not rows:
        return Metrics(0, 0.0, 0.0, 0.0, 0.0)
    n = len(rows)
    return Metrics(n, *(sum(r[i] for r in rows) / n for i in range(4)))


class Evaluator:
    """The eval verb over one :class:`~salience.engine.memory.Memory`, through its public
    verbs (and, for the scratch copies it makes, :mod:`.twin`)."""

    def __init__(self, memory: Memory) -> None:
        self.memory = memory

    def probes(
        self, *, user: UserScope = None, per_kind: int = 50, entities: bool = False
    ) -> builtins.list[Probe]:
        """The probes of the user's store (at most ``per_kind`` of each kind, newest first)."""
        owner = self.memory.owner(user, "an evaluation")
        now = self.memory.now()
        current = self.memory.store.list(
            MemoryFilter(as_of=now, user=owner, enabled_only=True), None
        )
        live = {r.id: r for r in current}
        found: builtins.list[Probe] = []
        found += self._recorded(owner, live, per_kind)
        found += drawn.supersession(self.memory.store, current, per_kind)
        found += drawn.decisions(current, per_kind)
        if entities:
            found += drawn.entities(current, per_kind)
            found += drawn.titles(current, per_kind)
        return found

    def _recorded(
        self, owner: str, live: dict[str, MemoryRecord], per_kind: int
    ) -> builtins.list[Probe]:
        recorded = self.memory.record(user=owner, kind=RECALL, limit=None)  # (flushed first)
        traces = [t for t in recorded if t.query]
        used: dict[str, set[str]] = {}
        for item in self.memory.store.feedback_of([t.id for t in traces]):
            if item.kind in HELPED - {"recalled"}:
                used.setdefault(item.trace_id, set()).add(item.memory_id)
        probes: dict[str, Probe] = {}
        for trace in traces:  # newest first: a query asked again keeps its newest answers
            newest = (self._newest(m, live) for m in used.get(trace.id, ()))
            relevant = sorted({m for m in newest if m is not None})
            query = trace.query or ""
            if relevant and query not in probes:
                probes[query] = Probe("recorded", query, tuple(relevant))
        return list(probes.values())[:per_kind]

    def _newest(self, memory_id: str, live: dict[str, MemoryRecord]) -> str | None:
        """The current version of ``memory_id`` (following supersessions), if any."""
        seen = {memory_id}
        while memory_id not in live:
            newer = [r.id for r in self.memory.store.successors(memory_id) if r.id not in seen]
            if not newer:
                return None
            memory_id = newer[-1]
            seen.add(memory_id)
        return memory_id

    def evaluate(
        self,
        variants: Sequence[Variant] = (),
        *,
        user: UserScope = None,
        per_kind: int = 50,
        entities: bool = False,
        save: bool = False,
    ) -> EvalReport:
        """Run the probes under the current configuration and each of ``variants``."""
        owner = self.memory.owner(user, "an evaluation")
        models = [self._model(v) for v in variants]  # (refused now rather than after a run)
        probes = tuple(self.probes(user=owner, per_kind=per_kind, entities=entities))
        chosen = [(Variant("current"), None), *zip(variants, models, strict=True)]
        runs = tuple(self._runs(chosen, probes, owner))
        changed = _moved(probes, runs[0], runs[1]) if len(runs) > 1 else ()
        raw = self.memory.store.get_meta(BASELINE)
        baseline = json.loads(raw) if raw else None
        since: tuple[Moved, ...] = ()
        if baseline is not None and baseline.get("user") == owner:
            then = dict(baseline["ranks"])
            since = tuple(
                Moved(p, then[p.key], runs[0].ranks[p.key])
                for p in probes
                if p.key in then and then[p.key] != runs[0].ranks[p.key]
            )
        else:
            baseline = None
        if save:
            kept = {
                "user": owner,
                "at": self.memory.now().isoformat(),
                "metrics": runs[0].metrics.__dict__,
                "ranks": runs[0].ranks,
            }
            self.memory.store.set_meta(BASELINE, json.dumps(kept))
        return EvalReport(probes, runs, changed, baseline, since)

    def _runs(
        self,
        chosen: Sequence[tuple[Variant, tuple[Embedder, dict[str, Any]] | None]],
        probes: Sequence[Probe],
        owner: str,
    ) -> Iterator[Run]:
        """Each configuration's run. One that asks for another model runs on a scratch copy
        embedded again; probes drawn from memories' own titles and entities run on a copy
        with those held out (one for every configuration of this model)."""
        from salience.evaluation.twin import twin

        ordinary = [p for p in probes if p.kind not in HELD_OUT]
        held = [p for p in probes if p.kind in HELD_OUT]
        held_ids = sorted({m for p in held for m in p.relevant})
        asked: dict[str, Vector] = {}  # the probes' vectors, made once for every run
        with ExitStack() as stack:
            copy: Memory | None = None
            for variant, model in chosen:
                if model is None:
                    found = self._answers(variant, ordinary, owner, asked)
                    if held:
                        if copy is None:
                            copy = stack.enter_context(twin(self.memory, owner, None, {}))
                            copy.hold_out(held_ids)
                        found |= Evaluator(copy)._answers(variant, held, owner, asked)
                else:
                    with twin(self.memory, owner, *model) as other:
                        theirs: dict[str, Vector] = {}
                        found = Evaluator(other)._answers(variant, ordinary, owner, theirs)
                        if held:
                            other.hold_out(held_ids)
                            found |= Evaluator(other)._answers(variant, held, owner, theirs)
                yield _assemble(variant, probes, found)

    def _model(self, variant: Variant) -> tuple[Embedder, dict[str, Any]] | None:
        """The embedder ``variant`` asks for and its settings, when it is another model than
        the one in use (None: the same one, none, or not asked)."""
        changes = self._check(variant)
        settings = {k: v for k, v in changes.items() if k not in RECALL_SETTINGS}
        if not settings:
            return None
        try:
            embedder = load_embedder(replace(self.memory.config, **settings))
        except ConfigError as exc:
            raise InvalidInputError(str(exc), field="embedder") from None
        assert embedder is not None  # ("none" asks for no model)
        current = (
            self.memory.vectors.embedder.identity
            if self.memory.vectors.embedder is not None
            else None
        )
        return None if embedder.identity == current else (embedder, settings)

    def _check(self, variant: Variant) -> dict[str, Any]:
        """The configuration changes ``variant`` asks for, parsed; an alternative that
        cannot be evaluated is refused here, before any probe runs."""
        if variant.recall_prior is not None and not 0 <= variant.recall_prior <= 1:
            raise InvalidInputError("recall_prior must be in [0, 1]", field="recall_prior")
        raw = dict(variant.settings)
        if variant.recall_prior is not None:  # (a setting named on its own)
            raw.setdefault("recall_prior", repr(variant.recall_prior))
        if len(raw) < len(variant.settings) + (variant.recall_prior is not None):
            raise InvalidInputError("a setting is given twice", field="settings")
        allowed: tuple[str, ...] = RECALL_SETTINGS
        if variant.embedder not in (None, NO_EMBEDDER):
            allowed += ("embedder", *EMBEDDER_SETTINGS)
            raw["embedder"] = variant.embedder
        try:
            return self.memory.config.changed(raw, allowed)
        except ConfigError as exc:
            raise InvalidInputError(str(exc), field="settings") from None

    def _answers(
        self, variant: Variant, probes: Sequence[Probe], owner: str, asked: dict[str, Vector]
    ) -> dict[str, builtins.list[str]]:
        """Each probe's top ids under ``variant``; ``asked`` holds (and gains) the query
        vectors of this engine's model, embedded all at once (texts spread over the model's
        sessions: each text's vector is the one a search alone would make)."""
        changes = self._check(variant)
        plan = self.memory.profile(variant.profile).recall
        wanted = plan.fusion != LEXICAL and plan.vector_count(DEPTH) > 0
        if wanted and variant.embedder != NO_EMBEDDER and self.memory.vectors.embedder is not None:
            missing = sorted({p.query for p in probes} - set(asked))
            if missing and self.memory.vectors.count():
                made = self.memory.vectors.embed(missing)
                assert made is not None
                asked.update(zip(missing, made, strict=True))
        scoring = {k: v for k, v in changes.items() if k in RECALL_SETTINGS}
        token = SETTINGS.set(replace(self.memory.settings, **scoring))
        off = FULL_TEXT_ONLY.set(variant.embedder == NO_EMBEDDER)
        known = QUERY_VECTORS.set(asked)

        def ask(query: str) -> builtins.list[str]:
            hits = self.memory.search(
                query, DEPTH, profile=variant.profile, user=owner, as_of=variant.as_of, touch=False
            )
            return [h.record.id for h in hits]

        try:
            # Two probes at a time: most of a probe's time is SQLite's full-text search, which
            # runs without the GIL (each task in a copy of this context: the settings above).
            with ThreadPoolExecutor(PARALLEL, thread_name_prefix="salience-eval") as pool:
                asking = [pool.submit(copy_context().run, ask, p.query) for p in probes]
                return {p.key: a.result() for p, a in zip(probes, asking, strict=True)}
        finally:
            QUERY_VECTORS.reset(known)
            FULL_TEXT_ONLY.reset(off)
            SETTINGS.reset(token)


def _assemble(
    variant: Variant, probes: Sequence[Probe], found: dict[str, builtins.list[str]]
) -> Run:
    """A run's metrics, overall and per kind, and each probe's first relevant rank."""
    rows: builtins.list[tuple[float, float, float, float]] = []
    by_kind: dict[str, builtins.list[tuple[float, float, float, float]]] = {}
    ranks: dict[str, int | None] = {}
    for probe in probes:
        top = found[probe.key]
        row = score(top, probe.relevant)
        rows.append(row)
        by_kind.setdefault(probe.kind, []).append(row)
        ranks[probe.key] = next((i for i, m in enumerate(top, 1) if m in probe.relevant), None)
    kinds = {kind: _mean(by_kind[kind]) for kind in KINDS if kind in by_kind}
    return Run(variant, _mean(rows), kinds, ranks)


def _moved(probes: Sequence[Probe], first: Run, second: Run) -> tuple[Moved, ...]:
    return tuple(
        Moved(p, first.ranks[p.key], second.ranks[p.key])
        for p in probes
        if first.ranks[p.key] != second.ranks[p.key]
    )
