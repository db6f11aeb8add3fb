import pytest
from hypothesis import given
from hypothesis import strategies as st

from salience.write.dedup import bigrams, dice, is_near_duplicate


def test_bigrams_of_hello() -> None:
    assert sorted(bigrams("hello").elements()) == ["el", "he", "ll", "lo"]


@pytest.mark.parametrize(
    ("a", "b", "expected"),
    [
        ("hello world", "hello world", 1.0),
        ("Hello World", "hello world", 1.0),
        ("abc", "xyz", 0.0),
        ("User prefers Sonarr", "User prefers Radarr", 0.7777778),
        (
            "User prefers Sonarr for TV show downloads",
            "User prefers Sonarr for TV downloads",
            0.9333333,
        ),
        ("Server hostname is homelab", "User watches mostly sci-fi", 0.24),
        ("My timezone is EST", "My timezone is EST timezone", 0.7906977),
    ],
)
def test_reference_vectors(a: str, b: str, expected: float) -> None:
    assert dice(a, b) == pytest.approx(expected, abs=1e-6)


def test_threshold_is_strictly_above_080() -> None:
    assert is_near_duplicate(
        "User prefers Sonarr for TV show downloads", "User prefers Sonarr for TV downloads"
    )
    assert not is_near_duplicate("My timezone is EST", "My timezone is EST timezone")


def test_empty_denominator_counts_as_identical() -> None:
    assert dice("a", "b") == 1.0


@given(st.text(max_size=60), st.text(max_size=60))
def test_dice_is_symmetric_and_in_unit_interval(a: str, b: str) -> None:
    assert dice(a, b) == dice(b, a)
    assert 0.0 <= dice(a, b) <= 1.0
