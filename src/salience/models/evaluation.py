"""An evaluation of recall on the user's own store (``salience eval``): its probes, the
configurations compared, their metrics and what moved."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any


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
    settings: tuple[tuple[str, str], ...] = ()
    """Settings as text, as the environment gives them: ``RECALL_SETTINGS``, and with
    another embedder ``EMBEDDER_SETTINGS`` (e.g. ``("rae_weights", "semantic=0.8,...")``)."""


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
