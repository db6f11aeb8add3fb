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


@pytest.fixture(params=["found", "float_power", "math"])
def kernel(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """The function this machine's check chose, ``float_power`` whatever the CPU (an AVX2
    machine chooses ``power``: its ``float_power`` is tested here), or ``math.pow`` alone."""
    if request.param == "float_power":
        if not arrays.agrees(np.float_power, math.pow):
            pytest.skip("this numpy's float_power is not the C library's pow")
        monkeypatch.setattr(arrays, "libm_power", lambda: np.float_power)
    elif request.param == "math":
        monkeypatch.setattr(arrays, "libm_power", lambda: None)
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


def test_the_check_takes_float_power_where_power_is_a_kernel_of_its_own(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """On AVX-512 CPUs numpy's power differs from the C library's pow in the last bits and
    its float_power does not: the check then takes float_power, not math.pow one by one."""
    real = arrays.agrees

    def power_differs(vector: object, scalar: object) -> bool:
        return vector is not np.power and real(vector, scalar)  # type: ignore[arg-type]

    monkeypatch.setattr(arrays, "agrees", power_differs)
    arrays.libm_power.cache_clear()
    try:
        chosen = arrays.libm_power()
        assert chosen is (np.float_power if real(np.float_power, math.pow) else None)
        monkeypatch.setattr(arrays, "agrees", lambda vector, scalar: False)
        arrays.libm_power.cache_clear()
        assert arrays.libm_power() is None  # neither: math.pow, row by row
    finally:
        arrays.libm_power.cache_clear()


def test_the_function_chosen_gives_math_pows_values() -> None:
    chosen = arrays.libm_power()
    if chosen is not None:
        assert arrays.agrees(chosen, math.pow)


@pytest.mark.parametrize(
    "values",
    [
        [0, 0, 0],
        [7],
        [3, 0, 3, 12, 0],
        [2**40, 2**40],
        [5, 4],
        [-2, 5, -2],  # (below zero: not counted, sorted)
        [0, 10**6, 3],  # (far apart: sorted)
        [4096, 1, 4096, 0],  # (at the counting's edge)
    ],
    ids=str,
)
def test_by_value_is_the_function_of_each_value(values: list[int]) -> None:
    def log_access(count: int) -> float:
        return math.log10(1 + abs(count))

    found = arrays.by_value(log_access, np.array(values, dtype=np.int64))
    assert found.tolist() == [log_access(v) for v in values]
    assert found.dtype == np.float64
    assert arrays.by_value(log_access, np.zeros(0, dtype=np.int64)).tolist() == []


@pytest.mark.parametrize("seed", range(8))
def test_or_zero_is_nan_to_num_to_the_bit(seed: int) -> None:
    rng = np.random.default_rng(seed)
    values = rng.standard_normal(50)
    values[rng.random(50) < 0.2] = np.nan
    values[rng.random(50) < 0.1] = -0.0
    if seed % 2:  # (infinities: the largest finite values, as np.nan_to_num gives them)
        values[rng.integers(0, 50, 3)] = [np.inf, -np.inf, np.inf]
    found = arrays.or_zero(values)
    assert found.tobytes() == np.nan_to_num(values, nan=0.0).tobytes()
    assert not np.shares_memory(found, values)
