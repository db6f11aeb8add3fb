"""Import verbs of :class:`~salience.engine.memory.Memory`: JSON Lines in, all or nothing.

Everything that can be done before the write lock is: parsing, screening for secrets,
embedding, looking up the ids and the records they replace, converting the new rows. Under
the lock the rows are written in one statement per table, and the lookups are repeated only
if a record of those ids was written meanwhile.
"""

from __future__ import annotations

import builtins
from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from salience.errors import ConflictError, ImportFormatError
from salience.ids import ulid_for
from salience.models import CEILING, AuditEntry, ImportResult, MemoryRecord, UserScope, channel
from salience.stores.base import NOW_ON, MemoryFilter, RowChanges

if TYPE_CHECKING:
    from salience.embeddings.arrays import Matrix, Vector

from salience.engine.core import EngineCore, changed_fields
from salience.write.authority import Staged, decide


class Importing(EngineCore):
    """JSON Lines into the store (and the records of a pack)."""

    def import_(
        self,
        lines: Iterable[str] | Iterable[bytes],
        *,
        user: UserScope = None,
        progress: Callable[[int, int], None] | None = None,
        private_ids: bool = False,
        key: bytes | None = None,
    ) -> ImportResult:
        """Import JSON Lines, all or nothing: a bad line refuses the whole import.

        An import stands as ``import``: a record claiming a higher source (``user``, ``agent``)
        is stored as ``import``, unpinned, and held if it reads as an order; it changes no
        memory above that standing (see :mod:`salience.write.authority`). With ``key``, the
        file must be signed with it (``export(..., key=)``), and then its records keep the
        sources they claim, up to the caller's own.

        A record whose id exists replaces it (counted as updated, or unchanged if identical).
        Missing ``id``, ``type`` and times are filled in, so hand-written files work. Every
        record must be the user's (any user's with :data:`ALL_USERS`); a record without a
        ``user`` becomes the user's. ``progress(done, total)`` is called as records are
        embedded and written.

        An id that is another user's is never taken over, and the import does not say it
        exists: the record gets an id of the user's own, the same on every run
        (:func:`salience.ids.ulid_for`), and references to it in the file follow (counted as
        ``renamed``). With ``private_ids`` (what a server gives a tenant's key) only the ids
        of the user's own memories are kept, so that the answer cannot depend on whether an
        id exists at all.
        """
        scope = self._scope(user)
        with channel("import" if key is None else CEILING.get()):
            return self._import(
                lines, None, scope=scope, progress=progress, private_ids=private_ids, key=key
            )

    def _import(
        self,
        lines: Iterable[str] | Iterable[bytes],
        vectors: Matrix | None,
        *,
        scope: str | None,
        owner: str | None = None,
        progress: Callable[[int, int], None] | None = None,
        private_ids: bool = False,
        key: bytes | None = None,
        written: Sequence[str] | None = None,
    ) -> ImportResult:
        """:meth:`import_`, with the vectors of the lines (row i for line i + 1) if known;
        ``owner`` re-owns every record (a pack imported by a user becomes theirs);
        ``written``, each line's text as its source wrote it, if the lines hold it cleaned
        (quarantine reads it as written)."""
        from salience.sharing import jsonl

        parsed = jsonl.parse(
            lines,
            now=self.now(),
            max_bytes=self._config.max_content_bytes,
            user=self._config.user if scope is None else scope,
            owner=owner,
            key=key,
        )
        records = [self._screen_import(record, line, scope) for line, record in parsed]
        words = list(written or [raw.content for _, raw in parsed])  # what quarantine reads
        total = len(records)
        if progress is not None:
            progress(0, total)
        embedded: Matrix | Sequence[Vector] | None = None
        if self._embedder is not None and vectors is not None:
            embedded = [vectors[line - 1] for line, _ in parsed]
        elif self._embedder is not None:
            embedded = self._embed_all([r.content for r in records], progress)
        # Ids and the records they replace are looked up before the write lock is taken, and
        # looked up again under it only if one of them was written meanwhile: the lock is
        # held to write, not to read (all or nothing still: one transaction).
        # The new rows are decided and converted before it too (staged), and written in one
        # statement per table: a 3,000-line import holds the lock for tens of milliseconds.
        before = self._store.row_changes(NOW_ON, NOW_ON)
        placed = self._place(records, scope, private_ids)
        fresh, staged = self._stage(placed, words)
        with self._store.transaction():
            if before is None or self._touched_since(before, placed):
                placed = self._place(records, scope, private_ids)
                fresh, staged = self._stage(placed, words)
            self._authority.write_new(staged)
            counts = self._write_placed(placed, fresh, embedded, words)
        created, updated, unchanged = counts
        if created + updated >= SETTLE_AFTER:
            self._store.settle_text()  # (after the commit: searches right after are fast)
        if progress is not None:
            progress(total, total)
        return ImportResult(
            created=created, updated=updated, unchanged=unchanged, renamed=placed[1]
        )

    def _write_placed(
        self,
        placed: _Placed,
        fresh: builtins.list[MemoryRecord],
        embedded: Matrix | Sequence[Vector] | None,
        words: builtins.list[str],
    ) -> tuple[int, int, int]:
        """Inside the import's transaction, the new rows written: their vectors and audit
        entries, and the records that replace stored ones (as the authority decides). How
        many were created, updated and unchanged."""
        records, _, known = placed
        created = updated = unchanged = 0
        entries: builtins.list[AuditEntry] = []
        pairs: builtins.list[tuple[str, Vector]] = []
        now = self.now()
        for at, record in enumerate(records):
            vector = None if embedded is None else embedded[at]
            existing = known.get(record.id)
            if existing is None:
                if vector is not None:
                    pairs.append((record.id, vector))
                detail: dict[str, object] = {"created": True}
                created += 1
            elif existing in (record, fresh[at]) or _approved(existing, fresh[at]):
                unchanged += 1
                continue
            else:
                decision = decide("import", existing, record, words=words[at], claimed=True)
                stored = decision.after or record
                if stored == existing:  # (what the file claims beyond its standing aside)
                    unchanged += 1
                    continue
                self._authority.write(decision)
                if existing.content != stored.content and vector is not None:
                    pairs.append((record.id, vector))
                detail = {"created": False, **changed_fields(existing, stored)}
                updated += 1
            entries.append(AuditEntry(now, record.id, "import", "import", detail, user=record.user))
        if pairs:
            self.vectors.put_many(pairs)
        self._store.append_audit(entries)
        return created, updated, unchanged

    def _place(
        self, records: builtins.list[MemoryRecord], scope: str | None, private: bool
    ) -> _Placed:
        """The records under the ids they will have (see :meth:`_own_ids`), how many were
        renamed, and the stored records of those ids (fetched in bulk)."""
        known = self._stored([r.id for r in records])
        renamed = 0
        if scope is not None:
            records, renamed = self._own_ids(records, scope, private=private, known=known)
            known = self._stored([r.id for r in records])
        return records, renamed, known

    def _stage(
        self, placed: _Placed, words: builtins.list[str]
    ) -> tuple[builtins.list[MemoryRecord], Staged]:
        """Each placed record as it stands new (the authority's decision: its source, pins,
        hold), and the rows of those that are new (a file names each id once), made before
        the lock is taken."""
        records, _, known = placed
        decided = [
            decide("import", None, r, words=words[at], claimed=True) for at, r in enumerate(records)
        ]
        pairs = list(zip(decided, records, strict=True))
        fresh = [d.after or r for d, r in pairs]
        return fresh, self._authority.stage([d for d, r in pairs if r.id not in known])

    def _stored(self, memory_ids: Sequence[str]) -> dict[str, MemoryRecord]:
        every = MemoryFilter(as_of=self.now(), include_superseded=True, include_forgotten=True)
        return {r.id: r for r in self._store.get_many(list(dict.fromkeys(memory_ids)), every)}

    def _touched_since(self, before: RowChanges, placed: _Placed) -> bool:
        """Whether a record of those ids was written (or any deleted) since ``before``."""
        changes = self._store.row_changes(before.last_seq, before.last_change)
        if changes is None or changes.deleted:
            return True
        ids = {r.id for r in placed[0]} | placed[2].keys()
        return any(record.id in ids for _, record in changes.rows)

    def _own_ids(
        self,
        records: builtins.list[MemoryRecord],
        user: str,
        *,
        private: bool,
        known: dict[str, MemoryRecord],
    ) -> tuple[builtins.list[MemoryRecord], int]:
        """``records`` under ids ``user`` may hold (see :meth:`import_`), with the references
        between them (``parent_id``, ``derived_from``) following; and how many were renamed.
        ``known``: stored records of the ids, as far as fetched already."""
        decided: dict[str, str] = {}

        def own(memory_id: str) -> str:
            if memory_id not in decided:
                chosen = memory_id
                for _ in range(4):  # a derived id taken too (only ever by a planted record)
                    existing = known[chosen] if chosen in known else self._store.get(chosen)
                    if existing is not None and existing.user == user:
                        break
                    if existing is None and (not private or chosen != memory_id):
                        break
                    chosen = ulid_for(user, chosen)
                else:
                    raise ConflictError(f"no id of {user!r}'s own is free for an imported record")
                decided[memory_id] = chosen
            return decided[memory_id]

        placed = []
        for r in records:
            parent = None if r.parent_id is None else own(r.parent_id)
            derived = tuple(own(d) for d in r.derived_from)
            same = own(r.id) == r.id and parent == r.parent_id and derived == r.derived_from
            placed.append(
                r if same else replace(r, id=own(r.id), parent_id=parent, derived_from=derived)
            )
        return placed, sum(1 for old, new in zip(records, placed, strict=True) if old.id != new.id)

    def _screen_import(self, record: MemoryRecord, line: int, scope: str | None) -> MemoryRecord:
        """Redact an imported record; a secret in any of its text fields, or a record of
        another user than ``scope``, refuses the whole import."""
        if scope is not None and record.user != scope:
            raise ImportFormatError(
                f"the record is user {record.user!r}'s; this import is for {scope!r}",
                line=line,
                field="user",
            )
        fields = {name: getattr(record, name) for name in _SCANNED_ON_IMPORT}
        fields["entities"] = " ".join(record.entities)
        from salience.write.gates.pipeline import screen  # (the gates compile on first use)

        screened = screen(record.content, title=record.title, tags=record.tags, fields=fields)
        if screened.rejected:
            raise ImportFormatError(str(screened.reason), line=line, field="content")
        return replace(record, content=screened.content, title=screened.title, tags=screened.tags)

    def _embed_all(
        self, texts: builtins.list[str], progress: Callable[[int, int], None] | None
    ) -> Matrix | None:
        """Embed ``texts`` a chunk at a time, reporting progress after each chunk."""
        if progress is None or len(texts) <= _PROGRESS_CHUNK:
            return self.vectors.embed(texts)
        import numpy as np

        parts = []
        for start in range(0, len(texts), _PROGRESS_CHUNK):
            part = self.vectors.embed(texts[start : start + _PROGRESS_CHUNK])
            assert part is not None
            parts.append(part)
            progress(min(start + _PROGRESS_CHUNK, len(texts)), len(texts))
        return np.concatenate(parts)


def _approved(existing: MemoryRecord, record: MemoryRecord) -> bool:
    """Whether ``existing`` is the held ``record`` as a person approved it (it stays so)."""
    from salience.write import quarantine

    return replace(existing, updated_at=record.updated_at) == quarantine.released(record)


_Placed = tuple[builtins.list[MemoryRecord], int, dict[str, MemoryRecord]]
_SCANNED_ON_IMPORT = ("type", "user", "project", "topic_key", "session_id", "forget_reason")
_PROGRESS_CHUNK = 256
SETTLE_AFTER = 1_000
"""Rows an import writes from which the store settles its full-text index after it."""
