"""Time: one canonical text form for timestamps, and parsing of user-given times.

All times are timezone-aware UTC. The canonical form always carries microseconds and a ``Z``
so that it sorts as text and round-trips byte for byte through export and import.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from datetime import UTC, datetime, timedelta

from salience.errors import InvalidInputError

Clock = Callable[[], datetime]

_ZERO = timedelta(0)


def system_clock() -> datetime:
    """The current time, UTC."""
    return datetime.now(UTC)


@functools.lru_cache(maxsize=64)  # one write formats the same "now" several times
def format_time(moment: datetime) -> str:
    """The canonical text of ``moment``: ``2026-04-20T00:00:00.000000Z``."""
    if moment.tzinfo is None:
        raise InvalidInputError("timestamp has no timezone")
    utc = moment if moment.utcoffset() == _ZERO else moment.astimezone(UTC)
    return utc.replace(tzinfo=None).isoformat(timespec="microseconds") + "Z"


def parse_time(text: str, *, field: str = "time") -> datetime:
    """Parse ISO 8601 text into an aware UTC datetime; a time without offset is taken as UTC."""
    try:
        moment = datetime.fromisoformat(text.strip())
    except (ValueError, AttributeError):
        raise InvalidInputError(
            f"{field}: {text!r} is not an ISO 8601 time (e.g. 2026-04-20T12:00:00Z)", field=field
        ) from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC)


def age_days(moment: datetime, now: datetime) -> float:
    """Fractional days from ``moment`` to ``now``; a moment in the future counts as age 0."""
    return max(0.0, (now - moment).total_seconds() / 86400.0)
