"""API keys of the HTTP server: made, listed, revoked, checked.

A key is ``sal_<id>_<secret>``: a public id (to find the record and to name the key in a
list) and 32 random bytes. The store keeps the SHA-256 of the secret, never the key, so a
copy of the store gives nobody a working key; the key is shown once, when made. The secret is
random, not a password, so one fast hash suffices; it is compared in constant time.

Every key belongs to one user (its tenant). A read-only key cannot write; an admin key may act
for another user (or every user) by naming them.
"""

from __future__ import annotations

import builtins
import hashlib
import hmac
import re
import secrets
from collections.abc import Iterable, Mapping
from dataclasses import replace
from typing import TYPE_CHECKING

from salience.engine.core import EngineCore
from salience.errors import InvalidInputError, NotFoundError
from salience.models import TRUST, ApiKey
from salience.models.spaces import (
    check_agent,
    check_right,
    check_space_name,
    parse_narrowing,
    right_at_least,
)
from salience.write.records import validate_field

if TYPE_CHECKING:  # (made by create_key only)
    from salience.models.reports import NewKey

PREFIX = "sal"
_KEY = re.compile(r"sal_([a-z0-9]{10})_([A-Za-z0-9_-]{43})")


def _hash(secret: str) -> str:
    return hashlib.sha256(secret.encode("ascii")).hexdigest()


class Keys(EngineCore):
    """The API keys of the store's HTTP server: made, listed, revoked, checked."""

    def create_key(
        self,
        *,
        user: str,
        read_only: bool = False,
        admin: bool = False,
        label: str | None = None,
        source: str = "user",
        agent: str | None = None,
        spaces: Mapping[str, str] | Iterable[str] | None = None,
    ) -> NewKey:
        """Make a key for ``user``; only its hash is stored. ``source`` is the highest source
        its writes may claim (``agent`` for a key an agent uses: see
        :mod:`salience.models`); ``agent`` names the agent its writes record. ``spaces``
        narrows it to those spaces, each no further than a right (``{"payments": "read"}``
        or ``["payments:read"]``): never beyond the user's own grants, then or later."""
        from salience.models.reports import NewKey

        if read_only and admin:
            raise InvalidInputError("a key is read-only or admin, not both", field="admin")
        if source not in TRUST:
            known = ", ".join(TRUST)
            raise InvalidInputError(f"unknown source {source!r}; one of: {known}", field="source")
        owner = validate_field("user", user)
        assert isinstance(owner, str)
        if label is not None:
            checked = validate_field("title", label)
            label = checked if isinstance(checked, str) else None
        named = None if agent is None else check_agent(agent)
        narrowed = None if spaces is None else self._narrowing(owner, spaces, admin)
        key_id = secrets.token_hex(5)
        secret = secrets.token_urlsafe(32)
        now = self.now()
        record = ApiKey(
            key_id,
            _hash(secret),
            owner,
            read_only,
            admin,
            now,
            None,
            label,
            source,
            named,
            narrowed,
        )
        self._store.save_key(record)
        return NewKey(record, f"{PREFIX}_{key_id}_{secret}")

    def _narrowing(
        self, owner: str, spaces: Mapping[str, str] | Iterable[str], admin: bool
    ) -> tuple[tuple[str, str], ...]:
        """A key's narrowing, checked: each space exists and the user holds the right."""
        if admin:
            raise InvalidInputError(
                "an admin key acts for the store: it is not narrowed", field="spaces"
            )
        try:
            wanted = (
                {check_space_name(k): check_right(v) for k, v in spaces.items()}
                if isinstance(spaces, Mapping)
                else parse_narrowing(list(spaces))
            )
        except ValueError as exc:
            raise InvalidInputError(str(exc), field="spaces") from None
        for name, right in wanted.items():
            grants = self._store.grants(space=name, user=owner)
            held = grants[0].right if grants else None
            if not right_at_least(held, right):
                raise InvalidInputError(
                    f"{owner!r} does not hold {right} on space {name!r}: a key is never "
                    "wider than its user",
                    field="spaces",
                )
        return tuple(sorted(wanted.items()))

    def revoke_key(self, key_id: str) -> ApiKey:
        """Revoke a key by its public id (from then on it is refused); revoking twice is
        fine."""
        record = self._store.api_key(key_id)
        if record is None:
            raise NotFoundError(key_id)
        if record.revoked_at is None:
            record = replace(record, revoked_at=self.now())
            self._store.save_key(record)
        return record

    def api_keys(self) -> builtins.list[ApiKey]:
        """Every key, revoked or not (their records: never a key itself)."""
        return builtins.list(self._store.api_keys())

    def has_keys(self) -> bool:
        """Whether any key is in force (then every request must carry one)."""
        return any(k.revoked_at is None for k in self._store.api_keys())

    def check_key(self, presented: str) -> ApiKey | None:
        """The record of the key presented, if it is well formed, known, in force and its
        secret matches (compared in constant time); else None."""
        match = _KEY.fullmatch(presented.strip())
        if match is None:
            return None
        record = self._store.api_key(match.group(1))
        if record is None or record.revoked_at is not None:
            return None
        if not hmac.compare_digest(record.secret_hash, _hash(match.group(2))):
            return None
        return record
