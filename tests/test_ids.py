from datetime import UTC, datetime, timedelta

from salience.ids import SKEW, is_ulid, new_ulid, ulid_for, ulid_time

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


def test_ulid_for_is_the_same_for_the_same_owner_and_id_only() -> None:
    original = new_ulid(T)
    mine = ulid_for("bob", original)
    assert is_ulid(mine)
    assert mine == ulid_for("bob", original)
    assert mine != ulid_for("carol", original)
    assert mine != original
    assert ulid_time(mine) == ulid_time(original)
