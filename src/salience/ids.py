"""ULIDs: 26-character, lexicographically sortable identifiers (time first, then randomness).

Within one process, ids made in the same millisecond stay strictly increasing (the random part
is incremented), so ULID order is creation order. That order is process-wide, so no caller's
time may move it: the generator never runs ahead of this machine's clock (an id for a moment
later than the clock plus :data:`SKEW` gets that time and leaves the order alone), and an
imported record's id is made only once its times have passed their checks.
"""

from __future__ import annotations

import os
import re
import threading
from datetime import UTC, datetime, timedelta

_ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
_ULID_RE = re.compile(r"^[0-7][0-9A-HJKMNP-TV-Z]{25}$")
_RANDOM_BITS = 80
SKEW = timedelta(minutes=5)
"""How far ahead of this machine's clock an id's time may be."""
_SKEW_MS = int(SKEW.total_seconds() * 1000)


class _Generator:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._last_ms = -1
        self._last_random = 0

    def new(self, moment: datetime) -> str:
        ms = int(moment.timestamp() * 1000)
        ahead = _wall_ms() + _SKEW_MS
        if ms > ahead:  # a caller's time (an ``as_of``): it may not move the order
            return _encode((ahead << _RANDOM_BITS) | _random())
        with self._lock:
            if ms <= self._last_ms:
                ms = self._last_ms
                random_part = self._last_random + 1
                if random_part >> _RANDOM_BITS:  # overflow within one millisecond: borrow the next
                    ms += 1
                    random_part = _random()
            else:
                random_part = _random()
            self._last_ms, self._last_random = ms, random_part
        return _encode((ms << _RANDOM_BITS) | random_part)


def _random() -> int:
    """79 random bits: room to count up within a millisecond."""
    return int.from_bytes(os.urandom(10), "big") >> 1


def _wall_ms() -> int:
    return int(datetime.now(UTC).timestamp() * 1000)


def _encode(value: int) -> str:
    chars = []
    for _ in range(26):
        chars.append(_ALPHABET[value & 31])
        value >>= 5
    return "".join(reversed(chars))


_GENERATOR = _Generator()


def new_ulid(moment: datetime) -> str:
    """A new ULID whose time part is ``moment``."""
    return _GENERATOR.new(moment)


def ulid_for(owner: str, memory_id: str) -> str:
    """The id ``owner``'s copy of ``memory_id`` takes when that id cannot be theirs: the same
    time part, and a random part drawn from both (so the same import gives the same ids)."""
    import hashlib  # (imports only)

    digest = hashlib.sha256(f"salience-import\0{owner}\0{memory_id}".encode()).digest()
    return memory_id[:10] + _encode(int.from_bytes(digest[:10], "big") >> 1)[10:]


def stable_ulid(moment: datetime, *keys: str) -> str:
    """A ULID of ``moment`` whose random part is drawn from ``keys``: the same every time
    (what makes a second import of another system's store add nothing)."""
    import hashlib  # (imports only)

    ms = max(0, int(moment.timestamp() * 1000))
    digest = hashlib.sha256("\0".join(("salience-import", *keys)).encode()).digest()
    return _encode((ms << _RANDOM_BITS) | int.from_bytes(digest[:10], "big"))


def ulid_time(text: str) -> datetime:
    """The time part of a ULID."""
    value = 0
    for char in text[:10]:
        value = value * 32 + _ALPHABET.index(char)
    return datetime.fromtimestamp(value / 1000, UTC)


def is_ulid(text: str) -> bool:
    """Whether ``text`` is a well-formed ULID (upper-case Crockford base32)."""
    return bool(_ULID_RE.match(text))
