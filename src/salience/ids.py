"""ULIDs: 26-character, lexicographically sortable identifiers (time first, then randomness).

Within one process, ids made in the same millisecond stay strictly increasing (the random part
is incremented), so ULID order is creation order.
"""

from __future__ import annotations

import os
import re
import threading
from datetime import datetime

_ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
_ULID_RE = re.compile(r"^[0-7][0-9A-HJKMNP-TV-Z]{25}$")
_RANDOM_BITS = 80


class _Generator:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._last_ms = -1
        self._last_random = 0

    def new(self, moment: datetime) -> str:
        ms = int(moment.timestamp() * 1000)
        with self._lock:
            if ms <= self._last_ms:
                ms = self._last_ms
                random_part = self._last_random + 1
                if random_part >> _RANDOM_BITS:  # overflow within one millisecond: borrow the next
                    ms += 1
                    random_part = int.from_bytes(os.urandom(10), "big") >> 1
            else:
                random_part = int.from_bytes(os.urandom(10), "big") >> 1
            self._last_ms, self._last_random = ms, random_part
        return _encode((ms << _RANDOM_BITS) | random_part)


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


def is_ulid(text: str) -> bool:
    """Whether ``text`` is a well-formed ULID (upper-case Crockford base32)."""
    return bool(_ULID_RE.match(text))
