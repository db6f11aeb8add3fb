"""The signals every profile combines, each written once.

All take plain values (ages in fractional days, counts, tags) and return floats. Profiles pick
their signals and weights; see docs/scoring.md for which profile uses which.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING

from salience.models.spaces import SPACE_PREFIX

if TYPE_CHECKING:
    from salience.models import MemoryRecord


def clamp01(value: float) -> float:
    """``value`` limited to [0, 1]."""
    return 0.0 if value < 0.0 else 1.0 if value > 1.0 else value


def half_life_recency(age_days: float, half_life_days: float) -> float:
    """``2 ** (-age / half_life)``: 1 when new, 0.5 after one half-life (aide, ilab, eidet)."""
    return math.pow(2.0, -age_days / half_life_days)


def stretched_recency(age_days: float, half_life_days: float, shape: float) -> float:
    """``2 ** (-(age / half_life) ** shape)``: FadeMem's per-type curve (shape 1 = plain)."""
    return math.pow(2.0, -math.pow(age_days / half_life_days, shape))


def linear_recency(age_days: float, horizon_days: float) -> float:
    """``max(0, 1 - age / horizon)``: falls in a straight line to 0 at the horizon (talome)."""
    return max(0.0, 1.0 - age_days / horizon_days)


def log10_access(count: int) -> float:
    """``min(1, log10(1 + n))``: 0 accesses 0, 9 or more 1 (aide)."""
    return min(1.0, math.log10(1 + count))


def ln_access(count: int) -> float:
    """``ln(1 + n)``, unbounded: 100 accesses score only a little above 50 (talome)."""
    return math.log(1 + count)


def normalized_ln_usage(count: int, cap: int = 10) -> float:
    """``min(1, ln(1 + n) / ln(1 + cap))`` (rae, normalised to stay in [0, 1])."""
    return min(1.0, math.log(1 + count) / math.log(1 + cap))


def capped_frequency(count: int, cap: int) -> float:
    """``min(1, n / cap)`` (eidet: capped at 10 accesses)."""
    return min(1.0, count / cap)


def revision_score(revisions: int, cap: int = 10) -> float:
    """``min(n, cap) / cap`` (ilab's REVISION_CAP = 10)."""
    return min(revisions, cap) / cap


def tag_boosts(tags: Iterable[str], boosts: Mapping[str, float]) -> float:
    """Sum of the boosts of the tags present (each counted once), clamped to 1 (aide).

    Summed in the table's order, so the float result never depends on hash order."""
    present = tags if isinstance(tags, tuple | frozenset | set) else tuple(tags)
    total = 0.0
    for tag, boost in boosts.items():
        if tag in present:
            total += boost
    return min(1.0, total)


def type_priority(memory_type: str, table: Mapping[str, float], default: float) -> float:
    """The type's weight from ``table``, or ``default`` for a type it does not list."""
    return table.get(memory_type, default)


def feedback_ratio(echoes: int, fizzles: int) -> float:
    """Laplace-smoothed share of useful recalls: 0.5 with no feedback, towards 1 or 0 with it."""
    return (echoes + 1) / (echoes + fizzles + 2)


NON_LOCAL_WEIGHT = 0.8
"""eidet's de-boost of a memory from a mounted (shared or base) layer."""


def layer_weight(layer: str) -> float:
    """1 for the local layer's own memories, :data:`NON_LOCAL_WEIGHT` for a mounted layer's."""
    return 1.0 if layer == "local" else NON_LOCAL_WEIGHT


def shared_from(record: MemoryRecord) -> str:
    """Where a memory is shared from, as its weight counts it: its mounted layer, the owner
    name of its space (a team's space weighs as a shared layer does), or ``local``."""
    if record.layer == "local" and record.user.startswith(SPACE_PREFIX):
        return record.user
    return record.layer
