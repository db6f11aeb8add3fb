"""The store backends, by URL scheme: the one place that names them.

A backend is a package under :mod:`salience.stores` with an ``open_store(location, *,
busy_timeout_ms, create, read_only)`` function that answers a :class:`~.base.Store`. The
registry says which URL schemes it serves, which extra it needs (imported only when such a URL
is opened), whether its store is a file on this machine (then indexes, saved columns and
layers live beside it), and which nearest-neighbour index it keeps inside itself, if any. No
module outside ``stores/`` names a backend: it asks this one (``tests/stores/test_registry.py``
fails on a backend, or a list of them, written anywhere else).

Adding a backend: its package, one :class:`Backend` line below, and its extra in
``pyproject.toml`` (docs/architecture.md walks it).
"""

from __future__ import annotations

import importlib
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from salience.config import DB_FILENAME
from salience.errors import ConfigError

if TYPE_CHECKING:
    from salience.stores.base import Store


@dataclass(frozen=True)
class Backend:
    """A kind of store, and what the engine needs to know of it."""

    name: str
    title: str
    """Its name as a person writes it (in messages)."""
    schemes: tuple[str, ...]
    """URL schemes that name it (the first is its own); the default backend also takes a
    plain path."""
    module: str
    """The package whose ``open_store`` opens it (imported when a store of it is opened)."""
    local: bool
    """Its store is one file on this machine (its location is that path)."""
    vector_index: str | None = None
    """The nearest-neighbour index the store keeps itself (``SALIENCE_VECTOR_INDEX``'s name
    for it), if any."""
    extra: str | None = None
    """The pip extra it needs, and the modules that extra provides (checked on open)."""
    needs: tuple[str, ...] = ()
    replicas: bool = False
    """It can send reads to a streaming replica (``SALIENCE_STORE_READ_URL``)."""

    def open(
        self,
        location: str,
        *,
        busy_timeout_ms: int,
        create: bool = True,
        read_only: bool = False,
        read_url: str | None = None,
        read_max_lag_s: float = 10.0,
    ) -> Store:
        """Its store at ``location`` (reading from the replica ``read_url``, if given); a
        :class:`ConfigError` naming the install command if its extra is missing."""
        if read_url and not self.replicas:
            raise ConfigError(
                f"a read replica (SALIENCE_STORE_READ_URL) needs a PostgreSQL store, not "
                f"{self.title}"
            )
        for needed in self.needs:
            try:
                importlib.import_module(needed)
            except ImportError:
                raise ConfigError(
                    f"{self.title} stores need the {self.extra} extra: "
                    f"pip install 'salience[{self.extra}]'"
                ) from None
        opener = importlib.import_module(self.module).open_store
        more = {"read_url": read_url, "read_max_lag_s": read_max_lag_s} if read_url else {}
        store: Store = opener(
            location, busy_timeout_ms=busy_timeout_ms, create=create, read_only=read_only, **more
        )
        return store


BACKENDS: tuple[Backend, ...] = (
    Backend("sqlite", "SQLite", ("sqlite",), "salience.stores.sqlite", local=True),
    Backend(
        "postgresql",
        "PostgreSQL",
        ("postgresql", "postgres"),
        "salience.stores.postgres",
        local=False,
        vector_index="pgvector",
        extra="postgres",
        needs=("psycopg", "psycopg_pool"),
        replicas=True,
    ),
)
DEFAULT = BACKENDS[0]
"""The embedded default: what a plain path (or no store at all) names."""

_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*)://")


@runtime_checkable
class FileCopy(Protocol):
    """A store that can copy itself whole into a new file (row numbers, indexes, vectors)."""

    def copy_file(self, path: Path) -> None:
        """Write a consistent copy of the store to ``path``."""


def scheme_of(target: str | Path | None) -> str | None:
    """The URL scheme ``target`` names (lower case), or None for a path."""
    found = _SCHEME.match(str(target)) if target is not None else None
    return found.group(1).lower() if found else None


def backend_of(target: str | Path | None) -> Backend:
    """The backend a location names: by its URL scheme, else the default (a path)."""
    scheme = scheme_of(target)
    if scheme is None:
        return DEFAULT
    for backend in BACKENDS:
        if scheme in backend.schemes:
            return backend
    known = ", ".join(s for b in BACKENDS for s in b.schemes[:1])
    raise ConfigError(f"unsupported store URL scheme {scheme!r}; supported: {known}")


def local_file(target: str | Path | None, default: Path) -> Path | None:
    """The file a local backend's store at ``target`` is (a directory names its
    ``salience.db``; None names ``default``); None when the store is not a file here."""
    if target is None or str(target) == "":
        return default
    if not backend_of(target).local:
        return None
    text = str(target)
    if scheme_of(text) is not None:
        text = text.split("://", 1)[1]
    path = Path(text).expanduser()
    return path / DB_FILENAME if path.is_dir() else path


def open_store(
    target: str | Path | None,
    *,
    default: Path,
    busy_timeout_ms: int,
    create: bool = True,
    read_only: bool = False,
    read_url: str | None = None,
    read_max_lag_s: float = 10.0,
) -> Store:
    """The store ``target`` names (None: the file ``default``), by its backend; its reads
    for people go to the replica ``read_url`` when one is given."""
    backend = backend_of(target)
    path = local_file(target, default)
    location = str(target) if path is None else str(path)
    return backend.open(
        location,
        busy_timeout_ms=busy_timeout_ms,
        create=create,
        read_only=read_only,
        read_url=read_url,
        read_max_lag_s=read_max_lag_s,
    )


def open_file(path: str | Path, *, busy_timeout_ms: int, read_only: bool = False) -> Store:
    """A store in the file ``path`` (a layer, a scratch copy): the default backend's."""
    return DEFAULT.open(str(path), busy_timeout_ms=busy_timeout_ms, read_only=read_only)


def keeper_of(vector_index: str) -> Backend | None:
    """The backend whose stores keep the nearest-neighbour index ``vector_index``."""
    return next((b for b in BACKENDS if b.vector_index == vector_index), None)


def is_local(location: str) -> bool:
    """Whether the store at ``location`` is a file on this machine."""
    return backend_of(location).local
