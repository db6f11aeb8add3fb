"""Importers: the memories another system keeps, read from its own store or export, as
:class:`~salience.sharing.importers.base.Item` values for ``Memory.import_from``.

Each reads files only (a database is opened read-only) and never runs the other system."""

from __future__ import annotations

import sqlite3
import struct
from collections.abc import Callable
from pathlib import Path

from salience.errors import InvalidInputError, SalienceError
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
    except InvalidInputError as exc:
        if type(exc) is not InvalidInputError:
            raise
        said = str(exc)  # (named by the file, not where it lies: a server's uploads folder)
        for folder in {str(path.parent), str(path.resolve().parent)}:
            said = said.replace(folder + "/", "")
        raise InvalidInputError(said, field=exc.field) from None
    except SalienceError:
        raise
    except sqlite3.Error as exc:  # (an untrusted store: see base.open_read_only)
        raise InvalidInputError(f"the {system} store could not be read: {unsafe(exc)}") from None
    except MALFORMED as exc:  # a record of a shape the source never writes (hostile or broken)
        raise InvalidInputError(
            f"the {system} data is malformed: a record is not the shape {system} writes "
            f"({type(exc).__name__})"
        ) from None


MALFORMED = (AttributeError, TypeError, KeyError, IndexError, ValueError, struct.error)
"""What a reader meets in data its source never writes (a list of numbers where objects
belong, a point without a payload): every upload of it is bad input (422), never a 500."""


__all__ = ["SYSTEMS", "Harvest", "Item", "harvest"]
