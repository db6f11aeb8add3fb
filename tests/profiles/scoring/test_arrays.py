"""The recency curves over columns equal their scalar twins bit for bit, whichever kernel."""

from __future__ import annotations

import math

import numpy as np
import pytest

from salience.profiles.scoring import arrays, signals


def columns(size: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(size)
    ages = np.concatenate([rng.uniform(0.0, 3000.0, size - 4), [0.0, 1e-9, 1e6, 36500.0]])
    half_lives = rng.choice([14.0, 30.0, 90.0, 180.0, 365.0, 730.0], size) * rng.uniform(
        0.75, 1.25, size
    )
    shapes = rng.choice([0.7, 0.8, 0.9, 1.0, 1.2], size)
    return ages, half_lives, shapes


@pytest.fixture(params=["numpy", "math"])
def kernel(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    if request.param == "math":
        monkeypatch.setattr(arrays, "numpy_pow_is_libm", lambda: False)
    return str(request.param)


@pytest.mark.parametrize("size", [10, arrays.SMALL, 5000])
def test_stretched_recency_equals_the_scalar_curve(size: int, kernel: str) -> None:
    ages, half_lives, shapes = columns(size)
    found = arrays.stretched_recency(ages, half_lives, shapes)
    expected = [
        signals.stretched_recency(a, h, s)
        for a, h, s in zip(ages.tolist(), half_lives.tolist(), shapes.tolist(), strict=True)
    ]
    assert found.tolist() == expected


@pytest.mark.parametrize("size", [10, 5000])
def test_half_life_recency_equals_the_scalar_curve(size: int, kernel: str) -> None:
    ages, _, _ = columns(size)
    found = arrays.half_life_recency(ages, 30.0)
    assert found.tolist() == [signals.half_life_recency(a, 30.0) for a in ages.tolist()]


def test_a_kernel_an_ulp_off_is_told_apart() -> None:
    """An AVX-512 kernel is within an ulp or two of the C library: the check must see that.
    (numpy's own pow is one such kernel on some machines, so the reference is the C
    library's, element by element.)"""

    def exact(bases: object, exponents: np.ndarray) -> np.ndarray:
        result: np.ndarray = np.vectorize(math.pow, otypes=[np.float64])(bases, exponents)
        return result

    assert arrays.agrees(exact, math.pow)

    def off_by_an_ulp(bases: object, exponents: np.ndarray) -> np.ndarray:
        found = exact(bases, exponents)
        found[::97] = np.nextafter(found[::97], np.inf)
        return found

    assert not arrays.agrees(off_by_an_ulp, math.pow)


def test_a_value_numpy_cannot_give_goes_through_math_pow() -> None:
    """Where math.pow raises (a negative base), the columns raise as the scalar code does."""
    bases = np.full(arrays.SMALL, 2.0)
    bases[3] = -2.0
    with pytest.raises(ValueError, match="math domain error"):
        arrays.powers(bases, np.full(arrays.SMALL, 0.5))
