"""Writing a knowledge pack (:mod:`salience.sharing.packs` says what one holds) as its records
are read: the records member is written row by row, the vectors wait in a temporary file, and
the manifest (every member's checksum) comes last, so memory stays bounded whatever the size
of the pack."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
import zipfile
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO

from salience.clock import format_time
from salience.errors import PackError
from salience.models import PackIdentity, PackManifest
from salience.sharing.packs import (
    _EPOCH,
    MANIFEST,
    PACK_VERSION,
    RECORDS,
    SIGNATURE,
    VECTORS,
    signature_of,
)

if TYPE_CHECKING:
    from salience.embeddings.arrays import Matrix, Vector


def write_pack(
    path: str | Path,
    lines: Sequence[str],
    types: Sequence[str],
    *,
    vectors: Matrix | None,
    embedder: str | None,
    filters: dict[str, Any],
    now: datetime,
    key: bytes | None = None,
    identity: PackIdentity | None = None,
) -> PackManifest:
    """:func:`stream_pack` of records given whole: ``lines`` (JSON), ``types``, and their
    ``vectors`` (one row per record, stored only with the ``embedder`` identity)."""
    if vectors is not None and embedder is not None and vectors.shape[0] != len(lines):
        raise PackError("internal: one vector per record is needed to store vectors")
    rows = (
        (line, kind, None if vectors is None else vectors[i])
        for i, (line, kind) in enumerate(zip(lines, types, strict=True))
    )
    made_by = embedder if vectors is not None else None
    return stream_pack(
        path, rows, lambda: made_by, filters=filters, now=now, key=key, identity=identity
    )


PackRow = tuple[str, str, "Vector | None"]
"""A record's JSON line, its type, and its vector (None: it has none)."""


def stream_pack(
    path: str | Path,
    rows: Iterable[PackRow],
    made_by: Callable[[], str | None],
    *,
    filters: dict[str, Any],
    now: datetime,
    key: bytes | None = None,
    identity: PackIdentity | None = None,
) -> PackManifest:
    """Write a pack atomically (a temporary file renamed into place) and return its manifest,
    reading ``rows`` once, as they come: memory stays bounded whatever their number (the
    vectors wait in a temporary file until the records are written).

    Vectors are stored when every row has one and ``made_by()`` (asked once every row was
    read) names the embedder that made them. With ``key`` the manifest is signed. The file is
    readable by its owner only.
    """
    target = Path(path)
    try:
        handle, temporary = tempfile.mkstemp(prefix=".pack-", dir=target.parent or ".")
    except OSError as exc:
        raise PackError(f"cannot write the pack to {target}: {exc.strerror}") from None
    try:
        with (
            os.fdopen(handle, "wb") as raw,
            zipfile.ZipFile(raw, "w") as archive,
            tempfile.TemporaryFile() as spill,
        ):
            written = _write_rows(archive, rows, spill)
            checksums = {RECORDS: written.records}
            embedder, dimensions = made_by(), written.dimensions
            if embedder is not None and written.vectors is not None and written.count:
                spill.seek(0)
                with archive.open(_member_info(VECTORS), "w", force_zip64=True) as out:
                    shutil.copyfileobj(spill, out, 1 << 20)
                checksums[VECTORS] = written.vectors
            else:
                embedder = dimensions = None
            manifest = PackManifest(
                version=PACK_VERSION,
                created_at=format_time(now),
                records=written.count,
                by_type=dict(sorted(written.types.items())),
                embedder=embedder,
                dimensions=dimensions,
                filters=filters,
                checksums=checksums,
                identity=identity,
            )
            document = json.dumps(manifest.to_json(), indent=2, ensure_ascii=False) + "\n"
            archive.writestr(_member_info(MANIFEST), document.encode())
            if key is not None:
                signature = signature_of(key, document.encode())
                archive.writestr(_member_info(SIGNATURE), signature.encode())
        os.replace(temporary, target)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    return manifest


@dataclass
class _Written:
    count: int = 0
    types: Counter[str] = field(default_factory=Counter)
    records: str = ""  # the records member's SHA-256
    vectors: str | None = None  # the vectors' SHA-256 (None: not every row had one)
    dimensions: int | None = None


def _write_rows(archive: zipfile.ZipFile, rows: Iterable[PackRow], spill: BinaryIO) -> _Written:
    """Write the records member from ``rows``, and their vectors to ``spill``."""
    import numpy as np

    written = _Written()
    records, vectors = hashlib.sha256(), hashlib.sha256()
    complete = True
    with archive.open(_member_info(RECORDS), "w", force_zip64=True) as out:
        for line, kind, vector in rows:
            data = (line + "\n").encode()
            out.write(data)
            records.update(data)
            written.count += 1
            written.types[kind] += 1
            if not complete:
                continue
            if vector is None or (written.dimensions or len(vector)) != len(vector):
                complete = False  # (vectors of two lengths: not of one embedder)
                continue
            written.dimensions = len(vector)
            row = np.ascontiguousarray(vector, dtype="<f4").tobytes()
            spill.write(row)
            vectors.update(row)
    written.records = records.hexdigest()
    written.vectors = vectors.hexdigest() if complete else None
    return written


def _member_info(name: str) -> zipfile.ZipInfo:
    """A member with a fixed time (the same memories give the same bytes), compressed."""
    info = zipfile.ZipInfo(name, date_time=_EPOCH)
    info.compress_type = zipfile.ZIP_DEFLATED
    info.external_attr = 0o644 << 16
    return info
