"""``salience eval``: a recall benchmark built from the user's own store.

Probes, each a query and the memories it should find:

* ``recorded``: recorded recalls whose results were then used (echo, use, update, supersede:
  :mod:`~salience.engine.record`); the relevant memories are the current versions of those;
* ``supersession``: for each memory that replaced an older version, the old version's first
  twelve words must find the current one;
* ``decision``: a current decision's topic (``topic_key``, its words) must find it;
* ``entity`` (optional): an entity named by at most three current memories must find them.

Each configuration (the current one, and an alternative: another profile, ``as_of``, recall
prior) runs every probe with ``touch=False`` (nothing counted, nothing recorded). Metrics per
configuration and per kind: recall@5, recall@10 (the share of a probe's memories in its top
5 / 10), MRR and nDCG@10 (binary gains). Probes whose first relevant rank changed between the
two are listed. ``save`` keeps the run as a baseline in the store; a later run says what moved.
"""

from __future__ import annotations

import builtins
import hashlib
import json
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any

from salience.engine.recall import Recall
from salience.engine.record import FULL_TEXT_ONLY, HELPED, SETTINGS
from salience.errors import InvalidInputError
from salience.models import MemoryRecord, UserScope
from salience.stores.base import MemoryFilter
from salience.stores.traces import RECALL

DEPTH = 10
QUERY_WORDS = 12
"""A supersession probe asks with the old version's first words, as a short query would."""
BASELINE = "eval_baseline"
NO_EMBEDDER = "none"
"""The one alternative embedder an evaluation can compare with: none (full text alone)."""
KINDS = ("recorded", "supersession", "decision", "entity")


@dataclass(frozen=True)
class Probe:
    """A query and the ids of the memories it should find."""

    kind: str
    query: str
    relevant: tuple[str, ...]

    @property
    def key(self) -> str:
        """A stable name of the probe (no text): kind and a hash of query and answers."""
        digest = hashlib.sha256(f"{self.query}\0{','.join(self.relevant)}".encode()).hexdigest()
        return f"{self.kind}:{digest[:12]}"


@dataclass(frozen=True)
class Variant:
    """One configuration to evaluate."""

    label: str
    profile: str | None = None
    as_of: datetime | None = None
    recall_prior: float | None = None
    embedder: str | None = None  # "none": full-text recall only (None: the configured one)


@dataclass(frozen=True)
class Metrics:
    """Averages over probes."""

    probes: int
    recall_at_5: float
    recall_at_10: float
    mrr: float
    ndcg_at_10: float


@dataclass(frozen=True)
class Run:
    """One configuration's results: overall, per kind, and each probe's first relevant rank
    (None: not in the top 10)."""

    variant: Variant
    metrics: Metrics
    by_kind: dict[str, Metrics]
    ranks: dict[str, int | None]


@dataclass(frozen=True)
class Moved:
    """A probe whose first relevant rank differs between two runs."""

    probe: Probe
    before: int | None
    after: int | None


@dataclass(frozen=True)
class EvalReport:
    """Probes, a run per configuration, the probes that changed rank between the first two,
    and (with a saved baseline) how the first run compares with it."""

    probes: tuple[Probe, ...]
    runs: tuple[Run, ...]
    changed: tuple[Moved, ...] = ()
    baseline: dict[str, Any] | None = None
    since_baseline: tuple[Moved, ...] = field(default=())


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


class Evaluation(Recall):
    """The eval verb."""

    def probes(
        self, *, user: UserScope = None, per_kind: int = 50, entities: bool = False
    ) -> builtins.list[Probe]:
        """The probes of the user's store (at most ``per_kind`` of each kind, newest first)."""
        owner = self._one_user(user, "an evaluation")
        now = self.now()
        current = self._store.list(MemoryFilter(as_of=now, user=owner, enabled_only=True), None)
        live = {r.id: r for r in current}
        found: builtins.list[Probe] = []
        found += self._recorded(owner, live, per_kind)
        found += _supersession(self, current, per_kind)
        found += _decisions(current, per_kind)
        if entities:
            found += _entities(current, per_kind)
        return found

    def _recorded(
        self, owner: str, live: dict[str, MemoryRecord], per_kind: int
    ) -> builtins.list[Probe]:
        self._records.flush()
        traces = [t for t in self._store.traces(owner, kind=RECALL) if t.query]
        used: dict[str, set[str]] = {}
        for item in self._store.feedback_of([t.id for t in traces]):
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
            newer = [r.id for r in self._store.successors(memory_id) if r.id not in seen]
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
        owner = self._one_user(user, "an evaluation")
        for variant in variants:
            _check(variant)
        chosen = [Variant("current"), *variants]
        probes = tuple(self.probes(user=owner, per_kind=per_kind, entities=entities))
        runs = tuple(self._run(v, probes, owner) for v in chosen)
        changed = _moved(probes, runs[0], runs[1]) if len(runs) > 1 else ()
        raw = self._store.get_meta(BASELINE)
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
                "at": self.now().isoformat(),
                "metrics": runs[0].metrics.__dict__,
                "ranks": runs[0].ranks,
            }
            self._store.set_meta(BASELINE, json.dumps(kept))
        return EvalReport(probes, runs, changed, baseline, since)

    def _run(self, variant: Variant, probes: Sequence[Probe], owner: str) -> Run:
        settings = self._settings
        if variant.recall_prior is not None:
            settings = replace(settings, recall_prior=variant.recall_prior)
        token = SETTINGS.set(settings)
        off = FULL_TEXT_ONLY.set(variant.embedder == NO_EMBEDDER)
        rows: builtins.list[tuple[float, float, float, float]] = []
        by_kind: dict[str, builtins.list[tuple[float, float, float, float]]] = {}
        ranks: dict[str, int | None] = {}
        try:
            for probe in probes:
                hits = self.search(
                    probe.query,
                    DEPTH,
                    profile=variant.profile,
                    user=owner,
                    as_of=variant.as_of,
                    touch=False,
                )
                found = [h.record.id for h in hits]
                row = score(found, probe.relevant)
                rows.append(row)
                by_kind.setdefault(probe.kind, []).append(row)
                first = next((i for i, m in enumerate(found, 1) if m in probe.relevant), None)
                ranks[probe.key] = first
        finally:
            FULL_TEXT_ONLY.reset(off)
            SETTINGS.reset(token)
        kinds = {kind: _mean(by_kind[kind]) for kind in KINDS if kind in by_kind}
        return Run(variant, _mean(rows), kinds, ranks)


def _check(variant: Variant) -> None:
    """Refuse an alternative that cannot be evaluated, before any probe runs."""
    if variant.recall_prior is not None and not 0 <= variant.recall_prior <= 1:
        raise InvalidInputError("recall_prior must be in [0, 1]", field="recall_prior")
    if variant.embedder not in (None, NO_EMBEDDER):
        raise InvalidInputError(
            f"an evaluation compares with embedder {NO_EMBEDDER!r} (full-text recall) only, "
            f"not {variant.embedder!r}: another model would have to embed every memory again",
            field="embedder",
        )


def _supersession(
    engine: Evaluation, current: Sequence[MemoryRecord], per_kind: int
) -> builtins.list[Probe]:
    found: builtins.list[Probe] = []
    for record in current:
        if record.parent_id and len(found) < per_kind:
            parent = engine._store.get(record.parent_id)
            if parent is not None and parent.user == record.user:
                words = " ".join(parent.content.split()[:QUERY_WORDS])  # asked as a person asks
                found.append(Probe("supersession", words, (record.id,)))
    return found


def _decisions(current: Sequence[MemoryRecord], per_kind: int) -> builtins.list[Probe]:
    found: builtins.list[Probe] = []
    for record in current:
        if record.type == "decision" and record.topic_key and len(found) < per_kind:
            words = record.topic_key.replace("-", " ").replace("_", " ").replace(":", " ")
            found.append(Probe("decision", words, (record.id,)))
    return found


def _entities(current: Sequence[MemoryRecord], per_kind: int) -> builtins.list[Probe]:
    named: dict[str, builtins.list[str]] = {}
    spelled: dict[str, str] = {}
    for record in current:
        for name in record.entities:
            named.setdefault(name.casefold(), []).append(record.id)
            spelled.setdefault(name.casefold(), name)
    few = [(key, ids) for key, ids in named.items() if len(ids) <= 3]
    return [Probe("entity", spelled[key], tuple(ids)) for key, ids in few[:per_kind]]


def _moved(probes: Sequence[Probe], first: Run, second: Run) -> tuple[Moved, ...]:
    return tuple(
        Moved(p, first.ranks[p.key], second.ranks[p.key])
        for p in probes
        if first.ranks[p.key] != second.ranks[p.key]
    )
