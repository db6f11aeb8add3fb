"""Importers: the memories another system keeps, read from its own store or export, as
:class:`~salience.sharing.importers.base.Item` values for ``Memory.import_from``.

Each reads files only (a database is opened read-only) and never runs the other system."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path

from salience.errors import InvalidInputError
from salience.sharing.importers import (
    aide,
    basic_memory,
    claude_code,
    eidet,
    engram,
    mem0,
    rae,
    talome,
)
from salience.sharing.importers.base import Harvest, Item, unsafe

READERS: dict[str, Callable[[Path], Harvest]] = {
    "aide": aide.read,
    "basic-memory": basic_memory.read,
    "claude-code": claude_code.read,
    "eidet": eidet.read,
    "engram": engram.read,
    "ilab": lambda path: engram.read(path, "ilab"),
    "mem0": mem0.read,
    "rae": rae.read,
    "talome": talome.read,
}
"""Every system ``salience import --from`` reads (iLAB Memory keeps Engram's store)."""

SYSTEMS = tuple(sorted(READERS))


def harvest(system: str, path: Path | str) -> Harvest:
    """What ``system``'s store or export at ``path`` holds (for RAE, a ``postgresql://``
    URL too)."""
    reader = READERS.get(system)
    if reader is None:
        raise InvalidInputError(
            f"no importer for {system!r}; one of: {', '.join(SYSTEMS)}", field="from"
        )
    if isinstance(path, str) and path.startswith(("postgresql://", "postgres://")):
        if system != "rae":
            raise InvalidInputError(f"{system} keeps no PostgreSQL database; give a file")
        return rae.read(path)
    path = Path(path).expanduser()
    if not path.exists():
        raise InvalidInputError(f"{path} does not exist", field="path")
    try:
        return reader(path)
    except sqlite3.Error as exc:  # (an untrusted store: see base.open_read_only)
        raise InvalidInputError(f"the {system} store could not be read: {unsafe(exc)}") from None


__all__ = ["SYSTEMS", "Harvest", "Item", "harvest"]
