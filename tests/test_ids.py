from datetime import UTC, datetime, timedelta

import pytest

from salience.ids import SKEW, is_ulid, new_ulid, ulid_at, ulid_time

T = datetime(2026, 1, 1, tzinfo=UTC)


def test_ulid_is_26_crockford_characters() -> None:
    value = new_ulid(T)
    assert len(value) == 26
    assert is_ulid(value)


def test_ulids_sort_by_time() -> None:
    earlier = new_ulid(T)
    later = new_ulid(T + timedelta(milliseconds=5))
    assert earlier < later


def test_ulids_in_one_millisecond_stay_strictly_increasing() -> None:
    values = [new_ulid(T + timedelta(days=1)) for _ in range(1000)]
    assert values == sorted(values)
    assert len(set(values)) == 1000


def test_is_ulid_rejects_malformed_values() -> None:
    assert not is_ulid("")
    assert not is_ulid("01ARZ3NDEKTSV4RRFFQ69G5FAVX")  # 27 characters
    assert not is_ulid("01arz3ndektsv4rrffq69g5fav")  # lower case
    assert not is_ulid("01ARZ3NDEKTSV4RRFFQ69G5FAI")  # I is not Crockford
    assert not is_ulid("81ARZ3NDEKTSV4RRFFQ69G5FAV")  # overflows 128 bits


def test_a_moment_ahead_of_the_clock_does_not_move_later_ids() -> None:
    now = datetime.now(UTC)
    far = new_ulid(datetime(2999, 1, 1, tzinfo=UTC))
    assert ulid_time(far) <= now + SKEW + timedelta(seconds=1)
    later = new_ulid(datetime.now(UTC))
    assert ulid_time(later) <= datetime.now(UTC) + timedelta(milliseconds=1)


def test_ulid_at_keeps_the_time_and_leaves_the_order_alone() -> None:
    before = new_ulid(datetime.now(UTC))
    old = ulid_at(datetime(2001, 2, 3, 4, 5, 6, 7000, tzinfo=UTC))
    assert ulid_time(old) == datetime(2001, 2, 3, 4, 5, 6, 7000, tzinfo=UTC)
    assert is_ulid(old)
    assert new_ulid(datetime.now(UTC)) > before


@pytest.mark.parametrize(
    "moment", [datetime(1969, 12, 31, tzinfo=UTC), datetime(2999, 1, 1, tzinfo=UTC)]
)
def test_ulid_at_refuses_times_before_1970_or_ahead_of_the_clock(moment: datetime) -> None:
    with pytest.raises(ValueError, match="no id can be made"):
        ulid_at(moment)
