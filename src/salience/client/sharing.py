"""The Client's verbs beyond memories: decisions, the duplicate lookup, the open session,
layers, knowledge packs, reindexing and export to a file (as :class:`salience.Memory` has
them)."""

from __future__ import annotations

import builtins
import io
import os
import tempfile
import zipfile
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import TextIO

from salience.client.transport import Transport
from salience.errors import InvalidInputError, PackError
from salience.models import (
    Decision,
    LayerMount,
    MemoryRecord,
    MigrationReport,
    PackIdentity,
    PackImport,
    PackManifest,
    Session,
    WriteResult,
)
from salience.wire import decode as wire


class Sharing(Transport):
    """decide, decisions, duplicate_of, current_session, layers, mount, unmount, packs,
    imports from other systems, reindex, export."""

    def export_lines(self, *, space: str | None = None) -> Iterator[str]:
        """The user's memories (a space's: its admin's) as JSON Lines."""
        params = {} if space is None else {"space": space}
        stream = self._http.stream("GET", "/v1/export", headers=self._headers, params=params)
        with stream as response:
            if response.status_code >= 400:
                response.read()
                raise wire.error(response, "/v1/export")
            yield from (line for line in response.iter_lines() if line)

    def export(self, out: TextIO, *, space: str | None = None) -> int:
        """Write :meth:`export_lines` to ``out``; return how many records were written."""
        count = 0
        for line in self.export_lines(space=space):
            out.write(line + "\n")
            count += 1
        return count

    # -- decisions ------------------------------------------------------------------------------

    def decide(
        self, topic: str, decision: str, *, rationale: str | None = None, precedence: int = 0
    ) -> WriteResult:
        """Record the decision on ``topic``; a current one is superseded."""
        body = {"topic": topic, "decision": decision, "precedence": precedence}
        if rationale is not None:
            body["rationale"] = rationale
        return self._write("POST", "/v1/decisions", json=body)

    def decision(self, topic: str) -> Decision:
        """The current decision on ``topic``; :class:`NotFoundError` if there is none."""
        return wire.decision(self._json("GET", "/v1/decision", params={"topic": topic}))

    def decision_history(self, topic: str) -> builtins.list[Decision]:
        """Every decision on ``topic``, oldest first; the last is current."""
        found = self._json("GET", "/v1/decision/history", params={"topic": topic})
        return [wire.decision(d) for d in found]

    def decisions(self) -> builtins.list[Decision]:
        """The current decision of every topic, by topic."""
        return [wire.decision(d) for d in self._json("GET", "/v1/decisions")]

    def duplicate_of(self, content: str) -> MemoryRecord | None:
        """The user's current memory with this content, if any."""
        found = self._json("POST", "/v1/duplicate", json={"content": content})["memory"]
        return None if found is None else wire.record(found)

    def current_session(self) -> Session | None:
        """The user's open session if it was active in the last 24 h, else None."""
        found = self._json("GET", "/v1/sessions/current")["session"]
        return None if found is None else wire.session(found)

    # -- layers ---------------------------------------------------------------------------------

    def layers(self) -> builtins.list[LayerMount]:
        """The read-only layers mounted beside the server's store (paths for admins only)."""
        return [wire.layer(x) for x in self._json("GET", "/v1/layers")]

    def unavailable_layers(self) -> dict[str, str]:
        """Mounted layers that cannot be opened now (name -> why)."""
        return {
            x["name"]: x["unavailable"] for x in self._json("GET", "/v1/layers") if x["unavailable"]
        }

    def mount(self, path: str | Path, *, kind: str, name: str | None = None) -> LayerMount:
        """Mount a store on the server (``path`` is the server's) as a layer (admin)."""
        body = wire.present({"path": str(path), "kind": kind, "name": name})
        return wire.layer(self._json("POST", "/v1/layers", json=body))

    def unmount(self, name: str) -> LayerMount:
        """Stop searching a mounted layer (admin)."""
        return wire.layer(self._json("DELETE", f"/v1/layers/{name}"))

    # -- packs ----------------------------------------------------------------------------------

    def export_pack(
        self,
        path: str | Path,
        *,
        tags: Iterable[str] = (),
        type: str | None = None,
        project: str | None = None,
        key: bytes | None = None,
        identity: PackIdentity | None = None,
        space: str | None = None,
    ) -> PackManifest:
        """Write the user's current memories matching the filters as a pack at ``path`` (a
        local file). With ``key`` it is signed here: the key is never sent."""
        from salience.engine.memory import Memory  # (pack files are read and signed here)

        if key is not None:
            Memory.check_pack_key(key)
        params = wire.present({"type": type, "project": project, "space": space})
        params["tag"] = builtins.list(tags)
        if identity is not None:
            params |= {f"pack_{k}": v for k, v in identity.to_json().items()}
        data = self._send("GET", "/v1/packs/export", params=params).content
        target = Path(path)
        _write_atomically(target, data)
        return Memory.sign_pack(target, key) if key is not None else Memory.pack_manifest(target)

    def import_pack(
        self,
        path: str | Path,
        *,
        mount_as: str | None = None,
        name: str | None = None,
        key: bytes | None = None,
        progress: Callable[[int, int], None] | None = None,
    ) -> PackImport:
        """Import the local pack at ``path`` into the user's memories on the server, or
        (admin) mount it there as a layer. With ``key`` the signature is verified here first
        (the key is never sent); the server checks the checksums again."""
        from salience.engine.memory import Memory

        manifest = Memory.pack_manifest(path, key=key)  # a damaged or unsigned pack: refused
        if progress is not None:
            progress(0, manifest.records)
        params = wire.present({"mount_as": mount_as, "name": name})
        data = self._job(
            "POST",
            "/v1/packs/import",
            progress=progress,
            params=params,
            content=Path(path).read_bytes(),
            headers={"Content-Type": "application/zip"},
        )
        if progress is not None:
            progress(manifest.records, manifest.records)
        return wire.pack_import(data)

    def import_from(
        self,
        system: str,
        path: str | Path,
        *,
        dry_run: bool = False,
        progress: Callable[[int, int], None] | None = None,
    ) -> MigrationReport:
        """Bring another memory system's store or export (a file, or a folder: sent as a
        zip) over as the user's memories on the server (see
        :meth:`salience.Memory.import_from`); a long one is followed as a job."""
        source = Path(path)
        if source.is_dir():
            content, kind = _zipped(source), "application/zip"
        elif source.is_file():
            content = source.read_bytes()
            kind = UPLOAD_KINDS.get(source.suffix.lower(), "application/octet-stream")
        else:
            raise InvalidInputError(f"{source} is neither a file nor a folder", field="path")
        data = self._job(
            "POST",
            f"/v1/import/{system}",
            progress=progress,
            params={"dry_run": "true" if dry_run else "false"},
            content=content,
            headers={"Content-Type": kind},
        )
        return wire.migration(data)

    def reindex(self, *, progress: Callable[[int, int], None] | None = None) -> int:
        """Embed every memory on the server that lacks a vector (admin)."""
        done: int = self._job("POST", "/v1/reindex", progress=progress)["embedded"]
        if progress is not None:
            progress(done, done)
        return done


UPLOAD_KINDS = {".csv": "text/csv", ".md": "text/markdown", ".json": "application/json"}
"""How a file is sent to ``POST /v1/import/{system}`` by its suffix (a store otherwise)."""


def _zipped(folder: Path) -> bytes:
    """A folder's files as a zip (links left out: the server refuses them anyway)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for file in sorted(folder.rglob("*")):
            if file.is_file() and not file.is_symlink():
                archive.write(file, file.relative_to(folder).as_posix())
    return buffer.getvalue()


def _write_atomically(target: Path, data: bytes) -> None:
    try:
        handle, temporary = tempfile.mkstemp(prefix=".pack-", dir=target.parent or ".")
    except OSError as exc:
        raise PackError(f"cannot write the pack to {target}: {exc.strerror}") from None
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data)
        os.replace(temporary, target)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
