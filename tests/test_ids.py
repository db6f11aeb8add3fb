from datetime import UTC, datetime, timedelta

from salience.ids import is_ulid, new_ulid

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
