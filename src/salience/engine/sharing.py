"""Sharing verbs of :class:`~salience.engine.memory.Memory`: JSON Lines export (import is in
:mod:`salience.engine.importing`), mounted layers (:mod:`salience.sharing.layers`) and
knowledge packs (:mod:`salience.sharing.packs`)."""

from __future__ import annotations

import builtins
import itertools
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from salience.errors import LayerError
from salience.models import (
    CEILING,
    LayerMount,
    MemoryRecord,
    UserScope,
    channel,
)
from salience.models.spaces import ADMIN
from salience.sharing.layers import check_kind, check_name, new_mount, open_layer
from salience.stores.base import PAGE, MemoryFilter
from salience.stores.registry import local_file, open_file

if TYPE_CHECKING:
    from salience.embeddings.arrays import Vector
    from salience.models.reports import PackIdentity, PackImport, PackManifest
    from salience.sharing.packwrite import PackRow

# Export and pack writing are imported by their verbs (a process that only briefs never packs).

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

    def export_lines(
        self, *, user: UserScope = None, key: bytes | None = None, space: str | None = None
    ) -> Iterator[str]:
        """Every record of the user (superseded and forgotten too; every user's with
        :data:`ALL_USERS`; a space's with ``space``, its admin's) as one JSON line each, in
        id order; with ``key``, then the line that signs them (an import verified with the
        key keeps their sources)."""
        from salience.sharing import jsonl

        scope = self._acting_on(self._scope(user), space, ADMIN)
        lines = (
            jsonl.dump(record)
            for record in self._store.iter_all()
            if scope is None or record.user == scope
        )
        return lines if key is None else jsonl.signed(lines, key)

    def export(
        self,
        out: TextIO,
        *,
        user: UserScope = None,
        key: bytes | None = None,
        space: str | None = None,
    ) -> int:
        """Write :meth:`export_lines` to ``out``; return how many records were written."""
        count = 0
        for line in self.export_lines(user=user, key=key, space=space):
            out.write(line + "\n")
            count += 1
        return count - (key is not None)  # (the signature line is no record)

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
        space: str | None = None,
    ) -> PackManifest:
        """Write the current memories matching the filters as a knowledge pack (a space's
        with ``space``: its admin's).

        See :mod:`salience.sharing.packs`; vectors go along when all have vectors of one model.
        Only the user's memories go in (every user's with :data:`ALL_USERS`). With ``key``
        the manifest is signed (HMAC-SHA256), so an importer holding the key can tell the
        pack was not changed by anyone without it. ``identity`` names the pack (its id, name
        and version) in the manifest.
        """
        from salience.sharing.packwrite import stream_pack

        tags = tuple(tags)
        now = self.now()
        owner = self._acting_on(self._scope(user), space, ADMIN)
        flt = MemoryFilter(as_of=now, user=owner, project=project, type=type, tags=tags)
        filters = {"tags": list(tags), "type": type, "project": project}
        vectors = _PackVectors(self)
        return stream_pack(
            path,
            vectors.rows(self._store.iter_all(flt)),
            vectors.made_by,
            filters={k: v for k, v in filters.items() if v},
            now=now,
            key=key,
            identity=identity,
        )

    @staticmethod
    def pack_manifest(path: str | Path, *, key: bytes | None = None) -> PackManifest:
        """The manifest of the pack file at ``path``, once its checksums (and, with ``key``,
        its signature) are verified: a damaged or unsigned pack is a :class:`PackError`."""
        from salience.sharing.packs import read_pack

        return read_pack(path, key=key).manifest

    @staticmethod
    def sign_pack(path: str | Path, key: bytes) -> PackManifest:
        """Sign the pack file at ``path`` with ``key`` (HMAC-SHA256 over its manifest)."""
        from salience.sharing.packs import check_key, sign_pack

        check_key(key)
        return sign_pack(path, key)

    @staticmethod
    def check_pack_key(key: bytes) -> None:
        """Refuse a signing key too short to sign with (before any work is done)."""
        from salience.sharing.packs import check_key

        check_key(key)

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
        from salience.models.reports import PackImport
        from salience.sharing.packs import pack_name, read_pack

        pack = read_pack(path, key=key)
        configured = None if self._embedder is None else self._embedder.identity
        keep = pack.vectors is not None and pack.manifest.embedder == configured
        vectors = pack.vectors if keep else None
        fate = "kept" if keep else "none" if configured is None else "embedded"
        # An unsigned pack stands as a pack: a stranger's memories, whatever they claim.
        ceiling = "pack" if key is None else CEILING.get()
        if mount_as is None:
            owner = self._one_user(user, "a pack import")
            with channel(ceiling):
                result = self._import(
                    pack.lines, vectors, scope=owner, owner=owner, progress=progress
                )
            return PackImport(result, pack.manifest, fate)
        check_kind(mount_as)
        name = check_name(pack_name(path) if name is None else name)
        if any(m.name == name for m in self._store.layers()):
            raise LayerError(
                f"a layer named {name!r} is already mounted; choose another name with --name"
            )
        # Beside the store file; the layers of a store that is not a file on this machine
        # (a database's: its location is a URL) live in the home directory.
        here = local_file(self._store.location, self._config.db_path)
        beside = self._config.home if here is None else here.parent
        target = beside / "layers" / f"{name}.db"
        if target.exists():
            raise LayerError(f"{target} exists already; choose another name with --name")
        try:
            store = open_file(target, busy_timeout_ms=self._config.busy_timeout_ms)
            with (
                type(self)(
                    store, config=self._config, clock=self._clock, embedder=self._embedder
                ) as m,
                channel(ceiling),
            ):
                result = m._import(pack.lines, vectors, scope=None, progress=progress)
            mount = self.mount(target, kind=mount_as, name=name)
        except BaseException:
            for leftover in (target, Path(f"{target}-wal"), Path(f"{target}-shm")):
                leftover.unlink(missing_ok=True)
            raise
        return PackImport(result, pack.manifest, fate, mount)


class _PackVectors:
    """The rows of a pack as records come (a page at a time), each with its vector while
    every record so far has one of one model (missing ones are embedded when the configured
    model made the rest); then which model made them, or None."""

    def __init__(self, engine: Sharing) -> None:
        self._engine = engine
        self._model = engine.vectors.stored_identity()
        self._embedder = engine._embedder
        self._complete = not (self._model is None and self._embedder is None)
        self._count = 0

    def made_by(self) -> str | None:
        return self._model if self._complete and self._count else None

    def rows(self, records: Iterable[MemoryRecord]) -> Iterator[PackRow]:
        """The records as pack rows, their vectors read a page at a time."""
        from salience.sharing import jsonl

        source = iter(records)
        while page := list(itertools.islice(source, PAGE)):
            self._count += len(page)
            found = self._vectors(page) if self._complete else {}
            for record in page:
                yield jsonl.dump(record), record.type, found.get(record.id)

    def _vectors(self, page: list[MemoryRecord]) -> dict[str, Vector]:
        import numpy as np

        stored = self._engine._store.vectors_of([r.id for r in page])  # (not the index)
        found = {i: np.frombuffer(v, dtype=np.float32) for i, v in stored.items()}
        missing = [r for r in page if r.id not in found]
        if missing:
            embedder = self._embedder
            if embedder is None or self._model not in (None, embedder.identity):
                self._complete = False
                return {}
            embedded = self._engine.vectors.embed([r.content for r in missing])
            assert embedded is not None
            found.update(zip((r.id for r in missing), embedded, strict=True))
            self._model = embedder.identity
        return found
