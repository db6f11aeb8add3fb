"""``erase --user NAME``: everything a user ever stored, gone from every structure salience
writes, with a receipt (GDPR Art. 17). A single memory's erasure is ``purge``."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from salience.engine.forgetting import Forgetting
from salience.errors import InvalidInputError
from salience.models.spaces import space_of, space_owner
from salience.stores.base import MemoryFilter
from salience.write.authority import decide
from salience.write.records import validate_field


class Erasure(Forgetting):
    """erase_user."""

    def erase_user(self, user: str) -> dict[str, Any]:
        """Erase every memory of ``user`` (every status, every layer this store writes), what
        they wrote in spaces (kept without their name where the space keeps contributions),
        their grants, sessions, audit entries, jobs and recorded recalls and briefings, then
        scrub the store's files (see ``Store.scrub``). The audit log keeps one receipt under
        the user's name: counts per structure and the time, never a text. Irreversible;
        returns the receipt."""
        name = validate_field("user", user)
        if not isinstance(name, str) or not name:
            raise InvalidInputError("name the user to erase", field="user")
        if space_of(name) is not None:
            raise InvalidInputError("that names a space: delete_space erases one", field="user")
        self._records.flush()  # (a recall's record still queued is erased too)
        every = MemoryFilter(
            as_of=self.now(), user=name, include_superseded=True, include_forgotten=True
        )
        with self._store.transaction():
            # Their ids (never text): a recall another process queued is not written later.
            self._mark_erased([r.id for r in self._store.iter_all(every)])
            removed = self._authority.erase_user(name)
            removed.update(self._erase_contributions(name))
        scrubbed = self._scrubbed()
        receipt: dict[str, Any] = {"user": name, **removed, **scrubbed}
        with self._store.transaction():
            self._audit("erase_user", None, "caller", name, **removed, **scrubbed)
        return receipt

    def _erase_contributions(self, name: str) -> dict[str, int]:
        """Inside the erasure: what ``name`` wrote in spaces goes, except in a space that
        keeps contributions (there it stays, their name erased from it), and their grants."""
        keep = {space_owner(s.name) for s in self._store.spaces() if s.keep_contributions}
        gone, kept = [], []
        for memory_id, owner in self._store.authored(name):
            record = self._store.get(memory_id)
            if record is None:
                continue
            if owner in keep:
                kept.append(decide("unname", record, replace(record, author=None)))
            else:
                gone.append(decide("erase-authored", record, None))
        ids = [d.before.id for d in gone if d.before is not None]
        self._mark_erased(ids)
        self._authority.write(*gone, *kept)
        self._store.delete_traces(surfacing=ids)  # (a recall that surfaced one may quote it)
        self._store.scrub_job_results(ids)  # (a job's answer that named one: its plan quotes it)
        grants = self._store.drop_grants_of(name)
        return {"space_memories": len(gone), "space_memories_kept": len(kept), "grants": grants}
