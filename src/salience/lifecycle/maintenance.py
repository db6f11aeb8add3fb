"""Maintenance rules (pure): FadeMem importance decay and retention.

Decay (eidet's document): ``importance = base · 2 ** (-(age / HL')**shape)`` with the
confidence brake ``HL' = HL · (1 + (confidence - 0.5) · 0.5)`` and a floor of 0.05, where
``base`` is the importance a person or feedback last set and ``age`` runs from that moment.
Because it always starts from the base, running maintenance twice changes nothing the second
time, and running it later continues the same curve instead of compounding. Half-lives and
shapes per type are the salience profile's (observation 30 d / 1.2, insight 90 / 1.0,
procedure 365 / 0.8, heuristic 730 / 0.7, ...).
"""

from __future__ import annotations

from datetime import datetime

from salience.clock import age_days
from salience.profiles.salience import DECAY, DEFAULT_DECAY, confidence_brake
from salience.profiles.scoring.signals import stretched_recency

FLOOR = 0.05
OBSERVATION = "observation"


def decayed_importance(
    base: float, set_at: datetime, memory_type: str, confidence: float, now: datetime
) -> float:
    """The importance ``base`` decays to by ``now`` (never below 0.05, never above ``base``)."""
    half_life, shape = DECAY.get(memory_type, DEFAULT_DECAY)
    braked = confidence_brake(half_life, confidence)
    value = base * stretched_recency(age_days(set_at, now), braked, shape)
    return min(base, max(FLOOR, value))


def retention_due(created_at: datetime, now: datetime, days: int) -> bool:
    """Whether an unconsolidated observation has outlived ``days`` (0: retention is off)."""
    return days > 0 and age_days(created_at, now) > days
