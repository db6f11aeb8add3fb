"""Sharing verbs of :class:`~salience.engine.memory.Memory`: JSON Lines export (import is in
:mod:`salience.engine.importing`), mounted layers (:mod:`salience.sharing.layers`) and
knowledge packs (:mod:`salience.sharing.packs`)."""

from __future__ import annotations

import builtins
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from salience.errors import LayerError
from salience.models import LayerMount, MemoryRecord, UserScope
from salience.sharing import jsonl
from salience.sharing.layers import check_kind, check_name, new_mount, open_layer
from salience.sharing.packs import (
    PackIdentity,
    PackImport,
    PackManifest,
    pack_name,
    read_pack,
    write_pack,
)
from salience.stores.base import MemoryFilter
from salience.stores.postgres import is_postgres_url

if TYPE_CHECKING:
    from salience.embeddings.arrays import Matrix

from salience.engine.migrating import Migrating


class Sharing(Migrating):
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

    def export_pack(
        self,
        path: str | Path,
        *,
        tags: Iterable[str] = (),
        type: str | None = None,
        project: str | None = None,
        user: UserScope = None,
        key: bytes | None = None,
        identity: PackIdentity | None = None,
    ) -> PackManifest:
        """Write the current memories matching the filters as a knowledge pack.

        See :mod:`salience.sharing.packs`; vectors go along when all have vectors of one model.
        Only the user's memories go in (every user's with :data:`ALL_USERS`). With ``key``
        the manifest is signed (HMAC-SHA256), so an importer holding the key can tell the
        pack was not changed by anyone without it. ``identity`` names the pack (its id, name
        and version) in the manifest.
        """
        tags = tuple(tags)
        now = self.now()
        flt = MemoryFilter(as_of=now, user=self._scope(user), project=project, type=type, tags=tags)
        records = sorted(self._store.list(flt, None), key=lambda r: r.id)
        matrix, model = self._pack_vectors(records)
        filters = {"tags": list(tags), "type": type, "project": project}
        return write_pack(
            path,
            [jsonl.dump(r) for r in records],
            [r.type for r in records],
            vectors=matrix,
            embedder=model,
            filters={k: v for k, v in filters.items() if v},
            now=now,
            key=key,
            identity=identity,
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
        # Beside the store file; a PostgreSQL store's layers live in the home directory
        # (its location is a URL, not a place on this machine).
        postgres = is_postgres_url(self._store.location)
        beside = self._config.home if postgres else Path(self._store.location).parent
        target = beside / "layers" / f"{name}.db"
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
