"""Knowledge packs: a versioned, checksummed file of memories (and their vectors) to share.

A pack is a zip file holding three members (written in the order records, vectors,
manifest, signature, so that a pack of any size is written as its records are read):

* ``manifest.json`` — ``format`` ("salience-pack"), ``version``, when it was made, the filters
  it was exported with, counts (records, by type), the embedder identity and dimensions of the
  vectors (or null), and the SHA-256 of every other member;
* ``records.jsonl`` — one record per line, exactly as ``salience export`` writes them (ids
  kept);
* ``vectors.f32`` — only when every record has a vector of one embedder: the vectors as
  little-endian float32 rows, in the order of the records.

and, when exported with a key, ``signature`` — the HMAC-SHA256 of ``manifest.json`` (which
holds every other member's checksum) under that key, in hex.

A pack whose checksums do not match, whose version is unknown, or that is not a pack at all is
refused before anything is written. Checksums detect damage, not tampering: whoever edits a
pack can recompute them. A signature detects tampering by anyone who lacks the key; an import
given the key refuses a pack that is unsigned or signed otherwise. Members are stored with
fixed timestamps, so exporting the same memories at the same time gives the same bytes.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from salience.errors import PackError
from salience.models.reports import PACK_FORMAT, PackIdentity, PackManifest

if TYPE_CHECKING:
    from salience.embeddings.arrays import Matrix

PACK_VERSION = 1
MANIFEST = "manifest.json"
RECORDS = "records.jsonl"
VECTORS = "vectors.f32"
SIGNATURE = "signature"
MIN_KEY_BYTES = 16
_EPOCH = (1980, 1, 1, 0, 0, 0)  # zip's earliest time: members carry no real timestamps
_MAX_MEMBER_BYTES = 2 << 30  # refuse absurd members (a damaged or hostile file) up front


@dataclass(frozen=True)
class Pack:
    """A pack read and verified: its manifest, its record lines, its vectors (or None)."""

    manifest: PackManifest
    lines: list[str]
    vectors: Matrix | None
    signed: bool = False  # verified against the key the reader gave


def pack_name(path: str | Path) -> str:
    """A layer name from a pack's file name: its stem, other characters turned into ``-``."""
    stem = Path(path).name.split(".")[0]
    cleaned = "".join(c if c.isascii() and (c.isalnum() or c in "_-") else "-" for c in stem)
    return cleaned.strip("-_")[:64] or "pack"


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def check_key(key: bytes) -> bytes:
    """A signing key: at least :data:`MIN_KEY_BYTES` bytes (a shared secret, e.g. a file of
    random bytes)."""
    if len(key) < MIN_KEY_BYTES:
        raise PackError(f"a pack key must be at least {MIN_KEY_BYTES} bytes long")
    return key


def signature_of(key: bytes, manifest: bytes) -> str:
    """The HMAC-SHA256 of ``manifest`` under ``key``, in hex."""
    return hmac.new(check_key(key), manifest, hashlib.sha256).hexdigest()


def read_pack(path: str | Path, *, key: bytes | None = None) -> Pack:
    """Read and verify a pack; :class:`PackError` says what is wrong with a bad one. With
    ``key``, the pack must carry a signature made with it."""
    source = Path(path)
    try:
        archive = zipfile.ZipFile(source)
    except FileNotFoundError:
        raise PackError(f"no pack at {source}") from None
    except (zipfile.BadZipFile, OSError) as exc:
        raise PackError(f"{source} is not a salience pack ({exc})") from None
    with archive:
        names = set(archive.namelist())
        if MANIFEST not in names:
            raise PackError(f"{source} is not a salience pack (no {MANIFEST})")
        document = _member(archive, MANIFEST, source)
        if key is not None:
            _verify(archive, document, key, source)
        manifest = _manifest(document, source)
        members = {}
        for name, expected in manifest.checksums.items():
            if name not in (RECORDS, VECTORS):
                raise PackError(f"{source}: the manifest names an unknown member {name!r}")
            if name not in names:
                raise PackError(f"{source}: {name} is missing from the pack")
            data = _member(archive, name, source)
            if _sha256(data) != expected:
                raise PackError(
                    f"{source}: the checksum of {name} does not match the manifest "
                    "(the pack is damaged or was altered)"
                )
            members[name] = data
    if RECORDS not in members:
        raise PackError(f"{source}: the manifest has no checksum for {RECORDS}")
    lines = members[RECORDS].decode("utf-8").splitlines()
    if len(lines) != manifest.records:
        raise PackError(
            f"{source}: the manifest counts {manifest.records} records, the pack holds {len(lines)}"
        )
    vectors = None
    if manifest.embedder is not None:
        vectors = _vectors(members.get(VECTORS), manifest, source)
    return Pack(manifest, lines, vectors, signed=key is not None)


def sign_pack(path: str | Path, key: bytes) -> PackManifest:
    """Sign an unsigned pack in place with ``key`` (what a client does with a pack a server
    exported: the key never leaves the machine); the pack is verified first."""
    source = Path(path)
    manifest = read_pack(source).manifest
    with zipfile.ZipFile(source) as archive:
        if SIGNATURE in archive.namelist():
            raise PackError(f"{source} is signed already")
        document = archive.read(MANIFEST)
    with zipfile.ZipFile(source, "a") as archive:
        info = zipfile.ZipInfo(SIGNATURE, date_time=_EPOCH)
        info.external_attr = 0o644 << 16
        archive.writestr(info, signature_of(key, document).encode())
    return manifest


def _verify(archive: zipfile.ZipFile, manifest: bytes, key: bytes, source: Path) -> None:
    """Refuse a pack whose signature is missing or was not made with ``key``."""
    if SIGNATURE not in archive.namelist():
        raise PackError(f"{source} is not signed; it cannot be verified with the key")
    signature = _member(archive, SIGNATURE, source).decode("ascii", "replace").strip()
    if not hmac.compare_digest(signature, signature_of(key, manifest)):
        raise PackError(
            f"{source}: the signature does not match the key (the pack was altered, "
            "or signed with another key)"
        )


def _member(archive: zipfile.ZipFile, name: str, source: Path) -> bytes:
    info = archive.getinfo(name)
    if info.file_size > _MAX_MEMBER_BYTES:
        raise PackError(f"{source}: {name} is too large ({info.file_size} bytes)")
    try:
        return archive.read(name)
    except (zipfile.BadZipFile, OSError, EOFError) as exc:
        raise PackError(f"{source}: {name} cannot be read ({exc})") from None


def _manifest(data: bytes, source: Path) -> PackManifest:
    try:
        document = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise PackError(f"{source}: {MANIFEST} is not valid JSON ({exc})") from None
    return manifest_from_json(document, source)


def manifest_from_json(document: Any, source: str | Path) -> PackManifest:
    """The manifest a ``manifest.json`` document describes (:class:`PackError` if it is not
    one this version reads); ``source`` names where it came from in the error."""
    if not isinstance(document, dict) or document.get("format") != PACK_FORMAT:
        raise PackError(f"{source} is not a salience pack (format is not {PACK_FORMAT!r})")
    version = document.get("version")
    if version != PACK_VERSION:
        raise PackError(
            f"{source}: pack version {version!r} is not supported "
            f"(this salience reads version {PACK_VERSION}); upgrade salience"
        )
    try:
        counts = document["counts"]
        embedder = document["embedder"]
        manifest = PackManifest(
            version=PACK_VERSION,
            created_at=str(document["created_at"]),
            records=int(counts["records"]),
            by_type={str(k): int(v) for k, v in dict(counts["by_type"]).items()},
            embedder=None if embedder is None else str(embedder["identity"]),
            dimensions=None if embedder is None else int(embedder["dimensions"]),
            filters=dict(document.get("filters") or {}),
            checksums={str(k): str(v) for k, v in dict(document["checksums"]).items()},
            identity=_identity(document.get("pack")),
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise PackError(f"{source}: {MANIFEST} is incomplete ({exc!r})") from None
    return manifest


def _identity(named: Any) -> PackIdentity | None:
    if named is None:
        return None
    return PackIdentity(str(named["id"]), str(named["name"]), str(named["version"]))


def _vectors(data: bytes | None, manifest: PackManifest, source: Path) -> Matrix:
    import numpy as np

    dimensions = manifest.dimensions or 0
    if data is None or dimensions < 1:
        raise PackError(f"{source}: the manifest names an embedder but the pack has no vectors")
    if len(data) != manifest.records * dimensions * 4:
        raise PackError(
            f"{source}: {VECTORS} holds {len(data)} bytes, not {manifest.records} vectors of "
            f"{dimensions} float32"
        )
    matrix: Matrix = np.frombuffer(data, dtype="<f4").reshape(manifest.records, dimensions)
    return matrix.astype(np.float32)
