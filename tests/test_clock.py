from datetime import UTC, datetime, timedelta, timezone

import pytest

from salience.clock import age_days, as_utc, format_time, parse_time
from salience.errors import InvalidInputError


def test_format_is_canonical_utc_with_microseconds() -> None:
    moment = datetime(2026, 4, 20, 14, 0, tzinfo=timezone(timedelta(hours=2)))
    assert format_time(moment) == "2026-04-20T12:00:00.000000Z"


def test_parse_round_trips_and_assumes_utc_without_offset() -> None:
    assert parse_time("2026-04-20T12:00:00.000000Z") == datetime(2026, 4, 20, 12, tzinfo=UTC)
    assert parse_time("2026-04-20") == datetime(2026, 4, 20, tzinfo=UTC)
    assert parse_time("2026-04-20T14:00+02:00") == datetime(2026, 4, 20, 12, tzinfo=UTC)


def test_parse_rejects_non_times_naming_the_field() -> None:
    with pytest.raises(InvalidInputError, match="as_of"):
        parse_time("yesterday", field="as_of")


def test_naive_datetime_cannot_be_formatted() -> None:
    with pytest.raises(InvalidInputError):
        format_time(datetime(2026, 1, 1))


def test_age_days_is_fractional_and_never_negative() -> None:
    now = datetime(2026, 4, 20, tzinfo=UTC)
    assert age_days(now - timedelta(hours=36), now) == pytest.approx(1.5)
    assert age_days(now + timedelta(days=3), now) == 0.0


def test_as_utc_applies_the_same_rule_to_datetimes() -> None:
    naive = datetime(2026, 11, 25, 10, 0)
    assert as_utc(naive) == datetime(2026, 11, 25, 10, 0, tzinfo=UTC)
    shifted = datetime(2026, 11, 25, 12, 0, tzinfo=timezone(timedelta(hours=2)))
    assert as_utc(shifted) == datetime(2026, 11, 25, 10, 0, tzinfo=UTC)
    assert as_utc(shifted).tzinfo is UTC
    assert as_utc(naive) == parse_time("2026-11-25T10:00:00")


def test_a_refused_time_is_not_repeated_in_the_error() -> None:
    with pytest.raises(InvalidInputError) as refused:
        parse_time("sk-live-0123456789abcdef", field="as_of")
    assert "sk-live" not in str(refused.value)
    assert str(refused.value).startswith("as_of is not an ISO 8601 time")
