from datetime import UTC, datetime, timedelta, timezone

import pytest

from salience.clock import age_days, format_time, parse_time
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
