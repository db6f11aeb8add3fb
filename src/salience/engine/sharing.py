"""Sharing verbs of :class:`~salience.engine.memory.Memory`: JSON Lines export and import, mounted
layers (:mod:`salience.sharing.layers`) and knowledge packs (:mod:`salience.sharing.packs`)."""

from __future__ import annotations

import builtins
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from salience.errors import (
    ConflictError,
    ImportFormatError,
    LayerError,
)
from salience.ids import ulid_for
from salience.models import (
    AuditEntry,
    ImportResult,
    LayerMount,
    MemoryRecord,
    UserScope,
)
from salience.sharing import jsonl
from salience.sharing.layers import check_kind, check_name, new_mount, open_layer
from salience.sharing.packs import PackImport, PackManifest, pack_name, read_pack, write_pack
from salience.stores.base import NOW_ON, MemoryFilter, RowChanges
from salience.write.gates.pipeline import screen

if TYPE_CHECKING:
    from salience.embeddings.arrays import Matrix, Vector

from salience.engine.core import EngineCore, changed_fields


class Sharing(EngineCore):
    """Memories in and out of a store: export, import, layers, packs."""

    def layers(self) -> builtins.list[LayerMount]:
        """The read-only layers mounted beside the local store, by name."""
        return self._store.layers()

    def mount(self, path: str | Path, *, kind: str, name: str | None = None) -> LayerMount:
        """Mount another salience store read-only as a ``shared`` or ``base`` layer.

        The name defaults to the kind. The store must open (read-only) now; recall and
        briefings search it from then on, in every process that opens this store.
        """
        with self._store.transaction():
            mount = new_mount(
                path,
                kind,
                name,
                local=self._store.location,
                mounted=self._store.layers(),
                now=self.now(),
            )
            open_layer(mount, self._config.busy_timeout_ms).close()
            self._store.mount_layer(mount)
            self._audit(
                "mount", None, "caller", None, name=mount.name, kind=mount.kind, path=mount.path
            )
        return mount

    def unmount(self, name: str) -> LayerMount:
        """Stop searching a mounted layer (its file is left as it is)."""
        with self._store.transaction():
            mounts = {m.name: m for m in self._store.layers()}
            if name not in mounts:
                known = ", ".join(mounts) or "none"
                raise LayerError(f"no layer named {name!r} is mounted (mounted: {known})")
            self._store.unmount_layer(name)
            self._audit("unmount", None, "caller", None, name=name, path=mounts[name].path)
        opened = self._open_layers.pop(name, None)
        if opened is not None:
            opened.close()
        return mounts[name]

    def export_lines(self, *, user: UserScope = None) -> Iterator[str]:
        """Every record of the user (superseded and forgotten too; every user's with
        :data:`ALL_USERS`) as one JSON line each, in id order."""
        scope = self._scope(user)
        for record in self._store.iter_all():
            if scope is None or record.user == scope:
                yield jsonl.dump(record)

    def export(self, out: TextIO, *, user: UserScope = None) -> int:
        """Write :meth:`export_lines` to ``out``; return how many records were written."""
        count = 0
        for line in self.export_lines(user=user):
            out.write(line + "\n")
            count += 1
        return count

    def import_(
        self,
        lines: Iterable[str] | Iterable[bytes],
        *,
        user: UserScope = None,
        progress: Callable[[int, int], None] | None = None,
        private_ids: bool = False,
    ) -> ImportResult:
        """Import JSON Lines, all or nothing: a bad line refuses the whole import.

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
        return self._import(
            lines, None, scope=self._scope(user), progress=progress, private_ids=private_ids
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
    ) -> ImportResult:
        """:meth:`import_`, with the vectors of the lines (row i for line i + 1) if known;
        ``owner`` re-owns every record (a pack imported by a user becomes theirs)."""
        parsed = jsonl.parse(
            lines,
            now=self.now(),
            max_bytes=self._config.max_content_bytes,
            user=self._config.user if scope is None else scope,
            owner=owner,
        )
        records = [self._screen_import(record, line, scope) for line, record in parsed]
        total = len(records)
        if progress is not None:
            progress(0, total)
        embedded: Matrix | Sequence[Vector] | None = None
        if self._embedder is not None and vectors is not None:
            embedded = [vectors[line - 1] for line, _ in parsed]
        elif self._embedder is not None:
            embedded = self._embed_all([r.content for r in records], progress)
        created = updated = unchanged = 0
        entries: builtins.list[AuditEntry] = []
        now = self.now()
        # Ids and the records they replace are looked up before the write lock is taken, and
        # looked up again under it only if one of them was written meanwhile: the lock is
        # held to write, not to read (all or nothing still: one transaction).
        before = self._store.row_changes(NOW_ON, NOW_ON)
        placed = self._place(records, scope, private_ids)
        with self._store.transaction():
            if before is None or self._touched_since(before, placed):
                placed = self._place(records, scope, private_ids)
            records, renamed, known = placed
            pairs: builtins.list[tuple[str, Vector]] = []
            for at, record in enumerate(records):
                vector = None if embedded is None else embedded[at]
                existing = known.get(record.id)
                if existing is None:
                    self._store.insert(record)
                    if vector is not None:
                        pairs.append((record.id, vector))
                    entries.append(
                        AuditEntry(
                            now, record.id, "import", "import", {"created": True}, user=record.user
                        )
                    )
                    created += 1
                elif existing == record:
                    unchanged += 1
                else:
                    self._store.replace(record)
                    if existing.content != record.content and vector is not None:
                        pairs.append((record.id, vector))
                    detail = {"created": False, **changed_fields(existing, record)}
                    entries.append(
                        AuditEntry(now, record.id, "import", "import", detail, user=record.user)
                    )
                    updated += 1
            if pairs:
                self.vectors.put_many(pairs)
            self._store.append_audit(entries)
        if progress is not None:
            progress(total, total)
        return ImportResult(created=created, updated=updated, unchanged=unchanged, renamed=renamed)

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

    def export_pack(
        self,
        path: str | Path,
        *,
        tags: Iterable[str] = (),
        type: str | None = None,
        project: str | None = None,
        user: UserScope = None,
        key: bytes | None = None,
    ) -> PackManifest:
        """Write the current memories matching the filters as a knowledge pack.

        See :mod:`salience.sharing.packs`; vectors go along when all have vectors of one model.
        Only the user's memories go in (every user's with :data:`ALL_USERS`). With ``key``
        the manifest is signed (HMAC-SHA256), so an importer holding the key can tell the
        pack was not changed by anyone without it.
        """
        tags = tuple(tags)
        now = self.now()
        flt = MemoryFilter(as_of=now, user=self._scope(user), project=project, type=type, tags=tags)
        records = sorted(self._store.list(flt, None), key=lambda r: r.id)
        matrix, identity = self._pack_vectors(records)
        filters = {"tags": list(tags), "type": type, "project": project}
        return write_pack(
            path,
            [jsonl.dump(r) for r in records],
            [r.type for r in records],
            vectors=matrix,
            embedder=identity,
            filters={k: v for k, v in filters.items() if v},
            now=now,
            key=key,
        )

    def _pack_vectors(self, records: Sequence[MemoryRecord]) -> tuple[Matrix | None, str | None]:
        """Every record's vector and the model that made them, or (None, None) if not all
        of them can have one (missing ones are embedded when the configured model made the
        rest)."""
        if not records:
            return None, None
        import numpy as np

        identity = self.vectors.stored_identity()
        if identity is None and self._embedder is None:
            return None, None
        found = self.vectors.stored([r.id for r in records])
        missing = [r for r in records if r.id not in found]
        if missing:
            if self._embedder is None or identity not in (None, self._embedder.identity):
                return None, None
            embedded = self.vectors.embed([r.content for r in missing])
            assert embedded is not None
            found.update(zip((r.id for r in missing), embedded, strict=True))
            identity = self._embedder.identity
        return np.stack([found[r.id] for r in records]), identity

    def import_pack(
        self,
        path: str | Path,
        *,
        mount_as: str | None = None,
        name: str | None = None,
        user: UserScope = None,
        key: bytes | None = None,
        progress: Callable[[int, int], None] | None = None,
    ) -> PackImport:
        """Import a knowledge pack into the local store (ids kept; the memories become the
        user's), or with ``mount_as`` (``base`` or ``shared``) into a new store beside this
        one, mounted read-only.

        The pack's vectors are kept when its embedder identity is this engine's; otherwise
        the memories are re-embedded. A damaged or unknown pack changes nothing; with
        ``key``, so does a pack that is not signed with it.
        """
        pack = read_pack(path, key=key)
        configured = None if self._embedder is None else self._embedder.identity
        keep = pack.vectors is not None and pack.manifest.embedder == configured
        vectors = pack.vectors if keep else None
        fate = "kept" if keep else "none" if configured is None else "embedded"
        if mount_as is None:
            owner = self._one_user(user, "a pack import")
            result = self._import(pack.lines, vectors, scope=owner, owner=owner, progress=progress)
            return PackImport(result, pack.manifest, fate)
        check_kind(mount_as)
        name = check_name(pack_name(path) if name is None else name)
        if any(m.name == name for m in self._store.layers()):
            raise LayerError(
                f"a layer named {name!r} is already mounted; choose another name with --name"
            )
        target = Path(self._store.location).parent / "layers" / f"{name}.db"
        if target.exists():
            raise LayerError(f"{target} exists already; choose another name with --name")
        from salience.stores.sqlite import SQLiteStore

        try:
            store = SQLiteStore(target, busy_timeout_ms=self._config.busy_timeout_ms)
            with type(self)(
                store, config=self._config, clock=self._clock, embedder=self._embedder
            ) as m:
                result = m._import(pack.lines, vectors, scope=None, progress=progress)
            mount = self.mount(target, kind=mount_as, name=name)
        except BaseException:
            for leftover in (target, Path(f"{target}-wal"), Path(f"{target}-shm")):
                leftover.unlink(missing_ok=True)
            raise
        return PackImport(result, pack.manifest, fate, mount)

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


_Placed = tuple[builtins.list[MemoryRecord], int, dict[str, MemoryRecord]]
_SCANNED_ON_IMPORT = ("type", "user", "project", "topic_key", "session_id", "forget_reason")
_PROGRESS_CHUNK = 256
