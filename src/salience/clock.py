"""Time: one canonical text form for timestamps, and parsing of user-given times.

All times are timezone-aware UTC. The canonical form always carries microseconds and a ``Z``
so that it sorts as text and round-trips byte for byte through export and import.

**The one rule for times given to salience**, by every face (library, CLI, HTTP, MCP, the
Python client): ISO 8601, with or without an offset; **a time without an offset is UTC**.
:func:`parse_time` reads text by it and :func:`as_utc` applies it to a ``datetime``; both
answer an aware UTC datetime.
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
    """Parse ISO 8601 text into an aware UTC datetime; a time without offset is UTC. The
    error names the field, never the value (it may be anything a caller pasted)."""
    try:
        moment = datetime.fromisoformat(text.strip())
    except (ValueError, AttributeError, TypeError):
        raise InvalidInputError(
            f"{field} is not an ISO 8601 time (e.g. 2026-04-20T12:00:00Z, or "
            "2026-04-20T12:00:00 for UTC)",
            field=field,
        ) from None
    return as_utc(moment)


def as_utc(moment: datetime) -> datetime:
    """``moment`` in UTC; a time without offset is UTC (the one rule, as for text)."""
    if moment.tzinfo is None:
        return moment.replace(tzinfo=UTC)
    return (
        moment if moment.utcoffset() == _ZERO and moment.tzinfo is UTC else moment.astimezone(UTC)
    )


def age_days(moment: datetime, now: datetime) -> float:
    """Fractional days from ``moment`` to ``now``; a moment in the future counts as age 0."""
    return max(0.0, (now - moment).total_seconds() / 86400.0)
