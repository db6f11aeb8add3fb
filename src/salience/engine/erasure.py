"""``erase --user NAME``: everything a user ever stored, gone from every structure salience
writes, with a receipt (GDPR Art. 17). A single memory's erasure is ``purge``."""

from __future__ import annotations

from typing import Any

from salience.engine.forgetting import Forgetting
from salience.errors import InvalidInputError
from salience.stores.base import MemoryFilter
from salience.write.records import validate_field


class Erasure(Forgetting):
    """erase_user."""

    def erase_user(self, user: str) -> dict[str, Any]:
        """Erase every memory of ``user`` (every status, every layer this store writes), their
        sessions, audit entries, jobs and recorded recalls and briefings, then scrub the
        store's files (see ``Store.scrub``). The audit log keeps one receipt under the user's
        name: counts per structure and the time, never a text. Irreversible; returns the receipt."""
        name = validate_field("user", user)
        if not isinstance(name, str) or not name:
            raise InvalidInputError("name the user to erase", field="user")
        self._records.flush()  # (a recall's record still queued is erased too)
        every = MemoryFilter(
            as_of=self.now(), user=name, include_superseded=True, include_forgotten=True
        )
        with self._store.transaction():
            # Their ids (never text): a recall another process queued is not written later.
            self._store.mark_erased([r.id for r in self._store.iter_all(every)])
            removed = self._authority.erase_user(name)
        scrubbed = self._scrubbed()
        receipt: dict[str, Any] = {"user": name, **removed, **scrubbed}
        with self._store.transaction():
            self._audit("erase_user", None, "caller", name, **removed, **scrubbed)
        return receipt
