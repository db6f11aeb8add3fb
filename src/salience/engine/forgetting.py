"""Forgetting verbs of :class:`~salience.engine.memory.Memory`: forget (softly: readable in
history) and purge (for good, with what quotes it), both through the write authority."""

from __future__ import annotations

import builtins
from dataclasses import replace

from salience.engine.dependents import dependents, versions
from salience.engine.scrubbing import PENDING_NOTE
from salience.engine.writes import Writes
from salience.errors import ConflictError, InvalidInputError
from salience.models import MemoryRecord, Outcome, UserScope, WriteResult
from salience.write.authority import decide
from salience.write.records import validate_field, with_changes

DEFAULT_FORGET_REASON = "forgotten on request"


class Forgetting(Writes):
    """forget, purge."""

    def forget(
        self, memory_id: str, reason: str = DEFAULT_FORGET_REASON, *, user: UserScope = None
    ) -> WriteResult:
        """Forget softly: the memory leaves recall and briefings but stays readable.

        The reason is kept on the memory (the secret scanner checks it first); the audit log
        records that a reason was given, never its text.
        """
        return self._forget(memory_id, reason, self._scope(user), "forget")

    def _forget(self, memory_id: str, reason: str, scope: str | None, verb: str) -> WriteResult:
        """:meth:`forget` as ``verb`` (``forget``, or quarantine's ``reject``)."""
        if not isinstance(reason, str) or not reason.strip():
            raise InvalidInputError("a reason to forget must be given", field="reason")
        checked = validate_field("forget_reason", reason)
        assert isinstance(checked, str)
        from salience.write.gates.pipeline import SECRET_GATE
        from salience.write.gates.secrets import first_secret

        finding = first_secret(checked)
        if finding is not None:
            refused = WriteResult(
                Outcome.REJECTED,
                None,
                reason=f"the reason contains {finding.describe()}; secrets are never stored",
                gate=SECRET_GATE,
            )
            return self._rejected(refused, "caller", scope)
        with self._store.transaction():
            old = self._local(memory_id, "forget", scope)
            if old.forget_reason is not None:
                raise ConflictError(f"memory {memory_id} is already forgotten", memory_id=memory_id)
            now = self.now()
            until = now if old.valid_until is None or old.valid_until > now else old.valid_until
            new = with_changes(old, {"forget_reason": checked})
            new = replace(new, valid_until=until, updated_at=now)
            self._authority.write(decide(verb, old, new))
            given = "default" if checked == DEFAULT_FORGET_REASON else "given"
            self._audit("forget", memory_id, "caller", old.user, reason=given)
            self._stale_after(old, "forgotten")
        self._settle_after_write()
        return WriteResult(Outcome.FORGOTTEN, memory_id, record=new)

    def purge(self, memory_id: str, *, user: UserScope = None) -> WriteResult:
        """Erase one of the user's memories for good: every version of its chain (older and
        newer), and every memory that quotes one of them (consolidated from it, summarising
        its session), transitively; a memory that only cites an id goes stale. Irreversible
        (see :mod:`~salience.engine.dependents`).

        Nothing of their text or vectors stays in the store's files: rows, full-text index,
        vectors, the WAL (see ``Store.scrub``). The audit log keeps a receipt (``erase``):
        what was removed, counted (``memories``, ``versions``), and when; never the text."""
        scope = self._scope(user)
        self._records.flush()  # (a recall's record still queued goes too)
        with self._store.transaction():
            old = self._local(memory_id, "purge", scope)
            chain, derived, cited = self._erased_with(old)
            self._authority.write(
                *(decide("purge", v, None) for v in chain),
                *(decide("erase-derived", r, None) for r in derived),
            )
            gone = [*chain, *derived]
            for record in gone:
                self._audit("purge", record.id, "caller", record.user)
            self._stale_after(old, "purged", cited)
            # A recorded recall or briefing that surfaced it: its query may quote it.
            traces = self._store.delete_traces(surfacing=[r.id for r in gone])
            self._mark_erased([r.id for r in gone])  # (nor one queued elsewhere, later)
            # A job's answer that named it (a consolidation's plan quotes its members).
            jobs = self._store.scrub_job_results([r.id for r in gone])
        receipt = self._scrubbed()
        counts = {"memories": len(gone), "versions": len(chain), "traces": traces}
        counts["job_results"] = jobs
        with self._store.transaction():
            self._audit("erase", memory_id, "caller", old.user, **counts, **receipt)
        notes = []
        if chain[1:]:
            notes.append(f"{len(chain) - 1} other versions of it were erased too")
        if derived:
            notes.append(f"{len(derived)} memories derived from it were erased too")
        if receipt["pending"]:
            notes.append(PENDING_NOTE)
        return WriteResult(Outcome.DELETED, memory_id, notes=tuple(notes))

    def _erased_with(
        self, record: MemoryRecord
    ) -> tuple[
        builtins.list[MemoryRecord], builtins.list[MemoryRecord], builtins.list[MemoryRecord]
    ]:
        """What a purge of ``record`` erases: every version of its chain, and what quotes one
        of them; and the memories that only cite one (they go stale)."""
        now = self.now()
        chain = versions(self._store, record)
        gone = {v.id for v in chain}
        derived: dict[str, MemoryRecord] = {}
        cited: dict[str, MemoryRecord] = {}
        for version in chain:
            for found in dependents(self._store, version, now):
                if found.record.id in gone or found.record.id in derived:
                    continue
                if found.quotes:
                    derived[found.record.id] = found.record
                    cited.pop(found.record.id, None)
                else:
                    cited[found.record.id] = found.record
        return chain, [*derived.values()], [*cited.values()]
