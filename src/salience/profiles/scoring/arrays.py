"""The signals of :mod:`salience.profiles.scoring.signals` over whole columns, same results.

Exactly the same, bit for bit: a briefing ranks by these and ``salience rank`` shows the
scalar ones, so they must never disagree. Additions, multiplications and divisions of
doubles are correctly rounded in numpy as in Python, so those are done here in the scalar
code's order. Logarithms are not guaranteed to match between numpy and the C library, so
they call the very same ``math`` functions, once per distinct value (counts repeat). ``pow``
is computed by numpy only with a function that calls the C library's ``pow`` (as
``math.pow`` does), which :func:`libm_power` finds once per process: numpy's ``power`` does
on AVX2 CPUs, but has a vectorised kernel of its own on AVX-512 ones; its ``float_power``
calls ``pow`` on both. Where neither agrees, the values go through ``math.pow`` one by one
(ten times slower: ~10 ms per 100k rows). tests/profiles/test_columns_agree.py and
tests/profiles/scoring/test_arrays.py check each against its scalar twin.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from itertools import repeat
from typing import TYPE_CHECKING

from salience.briefing.columns import NONE
from salience.lazy import lazy_module
from salience.profiles.scoring import signals

if TYPE_CHECKING:
    import numpy as np

    from salience.briefing.columns import Columns, Floats, Ints
    from salience.profiles.base import ProfileSettings, Relevances
else:
    np = lazy_module("numpy")


_EXACT = 2**53  # integers up to here convert to doubles exactly


def ages_days(moments: Ints, now_us: int) -> Floats:
    """:func:`salience.clock.age_days` for each moment (microseconds), to the last bit."""
    deltas = now_us - moments
    seconds = deltas.astype(np.float64) / 1e6
    far = np.flatnonzero(np.abs(deltas) >= _EXACT)
    for row in far.tolist():  # beyond 2**53 us (285 years) the conversion would round first
        seconds[row] = int(deltas[row]) / 10**6
    days = seconds / 86400.0
    result: Floats = np.where(days > 0.0, days, 0.0)
    return result


def by_value(func: Callable[[int], float], values: Ints) -> Floats:
    """``func`` of each integer, computed once per distinct value."""
    if not len(values):
        return np.zeros(0, dtype=np.float64)
    low, high = int(values.min()), int(values.max())
    if low == high:  # (one value: most recalls' counts)
        return np.full(len(values), func(low), dtype=np.float64)
    if low >= 0 and high <= max(len(values), 4096):
        # Counts: the values seen found by counting, not sorting (~0.5 ms, not ~6, at 100k).
        seen = np.flatnonzero(np.bincount(values, minlength=high + 1)).tolist()
        lookup = np.zeros(high + 1, dtype=np.float64)
        lookup[seen] = [func(v) for v in seen]
        counted: Floats = lookup[values]
        return counted
    distinct, inverse = np.unique(values, return_inverse=True)
    table = np.array([func(int(v)) for v in distinct.tolist()], dtype=np.float64)
    result: Floats = table[inverse]
    return result


def half_life_recency(ages: Floats, half_life_days: float) -> Floats:
    """``2 ** (-age / half_life)``."""
    return powers(2.0, -ages / half_life_days)


def stretched_recency(ages: Floats, half_lives: Floats, shapes: Floats) -> Floats:
    """``2 ** (-(age / half_life) ** shape)``, half-life and shape per row."""
    return powers(2.0, -powers(ages / half_lives, shapes))


SMALL = 256  # below this many values, math.pow one by one costs less than the check


def powers(bases: Floats | float, exponents: Floats) -> Floats:
    """``math.pow(base, exponent)`` for each row, the same to the last bit."""
    power = libm_power() if len(exponents) >= SMALL else None
    if power is not None:
        with np.errstate(all="ignore"):
            found: Floats = power(bases, exponents)
        if np.isfinite(found).all():  # (math.pow raises where numpy says inf or nan)
            return found
    firsts = repeat(bases) if isinstance(bases, float) else bases.tolist()
    values = map(math.pow, firsts, exponents.tolist())
    return np.fromiter(values, dtype=np.float64, count=len(exponents))


@functools.cache
def libm_power() -> Callable[..., Floats] | None:
    """numpy's ``power`` if it gives ``math.pow``'s values in the two forms used above, else
    its ``float_power`` if that does, else None (then :func:`powers` calls ``math.pow``).

    A numpy function either calls the C library's ``pow`` (as ``math.pow`` does: then every
    value is the same) or uses a vectorised kernel of its own (``power`` on AVX-512 CPUs),
    within an ulp or two and so different on a good share of 8,192 values: :func:`agrees`
    tells the two apart. ``power`` is tried first: where it calls ``pow`` it is as fast as
    ``float_power`` (~1 ms per 100k rows).
    """
    for power in (np.power, np.float_power):
        if agrees(power, math.pow):
            return power
    return None


def agrees(vector: Callable[..., Floats], scalar: Callable[[float, float], float]) -> bool:
    """``vector`` and ``scalar`` agree, bit for bit, on values like the recency curves' (spread
    by the golden ratio's fractional steps: numpy.random alone costs a new process ~10 ms)."""
    steps = (np.arange(1, 4097, dtype=np.float64) * 0.6180339887498949) % 1.0
    ratios = steps * 100.0
    shapes = 0.5 + ((steps * 7.0) % 1.0)
    exponents = -((steps * 13.0) % 1.0) * 100.0
    same = np.array_equal(
        vector(ratios, shapes), np.fromiter(map(scalar, ratios.tolist(), shapes.tolist()), float)
    )
    return same and np.array_equal(
        vector(2.0, exponents),
        np.fromiter(map(scalar, repeat(2.0), exponents.tolist()), float),
    )


def linear_recency(ages: Floats, horizon_days: float) -> Floats:
    """``max(0, 1 - age / horizon)``."""
    falling = 1.0 - ages / horizon_days
    result: Floats = np.where(falling > 0.0, falling, 0.0)
    return result


def clamp01(values: Floats) -> Floats:
    """Each value limited to [0, 1] (NaN stays NaN, as in the scalar version)."""
    result: Floats = np.where(values < 0.0, 0.0, np.where(values > 1.0, 1.0, values))
    return result


def table(
    codes: Ints, names: Sequence[str], weights: Mapping[str, float], default: float
) -> Floats:
    """``weights.get(name, default)`` for each coded name (``NONE`` gets the default)."""
    lookup = np.array([weights.get(n, default) for n in names] + [default], dtype=np.float64)
    result: Floats = lookup[np.where(codes == NONE, len(names), codes)]
    return result


def feedback_ratio(echoes: Ints, fizzles: Ints) -> Floats:
    """``(echoes + 1) / (echoes + fizzles + 2)``."""
    result: Floats = (echoes + 1).astype(np.float64) / (echoes + fizzles + 2).astype(np.float64)
    return result


def layer_weight(layers: Ints) -> Floats:
    """1 for the local layer's memories, :data:`signals.NON_LOCAL_WEIGHT` for a mounted one's."""
    result: Floats = np.where(layers == NONE, 1.0, signals.NON_LOCAL_WEIGHT)
    return result


def or_zero(values: Floats) -> Floats:
    """``np.nan_to_num(values, nan=0.0)`` (infinities to the largest finite values), in a
    third of its time when none is infinite (fused relevances never are)."""
    out: Floats = np.where(np.isnan(values), 0.0, values)
    return out if bool(np.isfinite(out).all()) else np.nan_to_num(values, nan=0.0)


def weighted_sum(parts: Sequence[tuple[float, Floats | float]], rows: int) -> Floats:
    """``sum(weight * value)`` in the parts' order, as :func:`scoring.scores.weighted` adds."""
    total: Floats = np.zeros(rows, dtype=np.float64)
    for weight, values in parts:
        total = total + weight * values
    return total


def text_relevance(
    columns: Columns, now: datetime, relevance: Relevances, settings: ProfileSettings
) -> Floats:
    """A search score that is the full-text relevance alone (aide's, talome's)."""
    return weighted_sum(((1.0, relevance.lexical),), len(columns))
