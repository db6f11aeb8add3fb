"""Mounted layers: other salience stores, opened read-only and searched beside the local one.

eidet's layer model: the *local* layer is the store's own memories and takes
every write; a *shared* layer is a sibling project's or a team's store, a *base* layer an
imported knowledge pack. Mounts are recorded in the local store (table ``layers``), so every
process that opens it sees the same layers. Memories read from a layer carry the layer's name
in ``layer``; recall and briefings weigh them by 0.8 (:func:`~salience.profiles.scoring.signals.
layer_weight`), and a write aimed at one is refused with :class:`ReadOnlyLayerError`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from salience.config import DB_FILENAME
from salience.errors import InvalidInputError, LayerError, ReadOnlyLayerError, StoreError
from salience.models import LAYER_KINDS, LOCAL_LAYER, MemoryRecord, relabel
from salience.stores.base import Store
from salience.stores.registry import open_file

if TYPE_CHECKING:
    from salience.models import LayerMount
    from salience.search.vectors import Vectors

_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")
T = TypeVar("T")


def store_file(path: str | Path) -> Path:
    """The database file a mount path names: the file itself, or ``salience.db`` in a directory."""
    resolved = Path(path).expanduser().resolve()
    return resolved / DB_FILENAME if resolved.is_dir() else resolved


def check_kind(kind: str) -> str:
    """``shared`` or ``base``; anything else is an error naming both."""
    if kind not in LAYER_KINDS:
        raise InvalidInputError(
            f"unknown layer kind {kind!r}; a mounted layer is one of: {', '.join(LAYER_KINDS)}",
            field="kind",
        )
    return kind


def check_name(name: str) -> str:
    """A layer name: letters, digits, ``_ . -``, at most 64, and not ``local``."""
    if name == LOCAL_LAYER:
        raise InvalidInputError(
            "'local' is the store's own layer; choose another name", field="name"
        )
    if not _NAME.fullmatch(name):
        raise InvalidInputError(
            f"bad layer name {name!r}: use letters, digits, '_', '.' or '-' (at most 64, "
            "starting with a letter or digit)",
            field="name",
        )
    return name


def new_mount(
    path: str | Path,
    kind: str,
    name: str | None,
    *,
    local: str,
    mounted: Sequence[LayerMount],
    now: datetime,
) -> LayerMount:
    """Validate a mount request against the local store and the layers already mounted."""
    from salience.models.store_records import LayerMount

    check_kind(kind)
    name = check_name(kind if name is None else name)
    file = store_file(path)
    if not file.is_file():
        raise LayerError(f"no salience store at {file}")
    if file == Path(local).expanduser().resolve():
        raise LayerError(f"{file} is this store's own file: it cannot be mounted onto itself")
    for other in mounted:
        if other.name == name:
            raise LayerError(
                f"a layer named {name!r} is already mounted ({other.path}); "
                "choose another name with --name"
            )
        if Path(other.path) == file:
            raise LayerError(f"{file} is already mounted as layer {other.name!r}")
    return LayerMount(name, kind, str(file), now)


def open_layer(mount: LayerMount, busy_timeout_ms: int) -> Store:
    """The mounted store, opened read-only; a clear :class:`LayerError` if it cannot be."""
    try:
        return open_file(mount.path, busy_timeout_ms=busy_timeout_ms, read_only=True)
    except StoreError as exc:
        raise LayerError(
            f"layer {mount.name!r} cannot be opened: {exc} "
            f"(`salience layer unmount {mount.name}` removes it)"
        ) from None


@dataclass
class Layer:
    """A mounted layer, open: its mount, its read-only store, and (lazily) its vectors."""

    mount: LayerMount
    store: Store
    vectors: Vectors | None = None

    @property
    def name(self) -> str:
        """The layer's name (what its memories carry in ``layer``)."""
        return self.mount.name

    def records(self, records: Iterable[MemoryRecord]) -> list[MemoryRecord]:
        """Records read from this layer, labelled with its name."""
        return [relabel(r, self.name) for r in records]

    def pairs(self, pairs: Iterable[tuple[MemoryRecord, T]]) -> list[tuple[MemoryRecord, T]]:
        """(record, score) pairs read from this layer, labelled with its name."""
        return [(relabel(r, self.name), value) for r, value in pairs]

    def refuse(self, memory_id: str, verb: str) -> ReadOnlyLayerError:
        """The error for a write aimed at one of this layer's memories."""
        return ReadOnlyLayerError(
            f"cannot {verb} memory {memory_id}: it belongs to the read-only {self.mount.kind} "
            f"layer {self.name!r} ({self.mount.path}); writes go to the local layer"
        )

    def close(self) -> None:
        """Close the layer's store."""
        self.store.close()
