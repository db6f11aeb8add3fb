"""Importers: the memories another system keeps, read from its own store or export, as
:class:`~salience.sharing.importers.base.Item` values for ``Memory.import_from``.

Each reads files only (a database is opened read-only) and never runs the other system."""

from __future__ import annotations

import contextlib
import os
import sqlite3
from collections.abc import Callable
from pathlib import Path

from salience import budget
from salience.errors import InvalidInputError, SalienceError
from salience.sharing.importers import (
    aide,
    basic_memory,
    claude_code,
    eidet,
    engram,
    hindsight,
    letta,
    mem0,
    rae,
    talome,
    zep,
)
from salience.sharing.importers.base import MALFORMED, Harvest, Item, unsafe

READERS: dict[str, Callable[[Path], Harvest]] = {
    "aide": aide.read,
    "basic-memory": basic_memory.read,
    "claude-code": claude_code.read,
    "eidet": eidet.read,
    "engram": engram.read,
    "graphiti": zep.read,  # (Zep's open-source graph: the same models)
    "hindsight": hindsight.read,
    "ilab": lambda path: engram.read(path, "ilab"),
    "letta": letta.read,
    "mem0": mem0.read,
    "rae": rae.read,
    "talome": talome.read,
    "zep": zep.read,
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
    spend = budget.active()
    try:
        _charge(path, spend)
        found = reader(path)
        _some_read(found)
        spend.row(max(0, len(found.items) - spend.rows))  # (a store's rows are charged as read)
        return found
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
        if spend.tripped is not None:  # (the budget stopped the read)
            raise spend.tripped from None
        raise InvalidInputError(f"the {system} store could not be read: {unsafe(exc)}") from None
    except MALFORMED as exc:  # a record of a shape the source never writes (hostile or broken)
        raise InvalidInputError(
            f"the {system} data is malformed: a record is not the shape {system} writes "
            f"({type(exc).__name__})"
        ) from None


def _some_read(found: Harvest) -> None:
    """A source none of whose records could be read is refused, with the first reason."""
    if found.skipped and not found.items:
        what, why = found.skipped[0]
        more = f" (and {len(found.skipped) - 1} more)" if len(found.skipped) > 1 else ""
        raise InvalidInputError(
            f"the {found.system} data is malformed: no record of it could be read; "
            f"{what.removeprefix(found.system + ':')}: {why}{more}"
        )


def _charge(path: Path, spend: budget.Budget) -> None:
    """Charge the source's size to the budget before anything is read: the file's, or every
    file's under the folder (each entry counted as a record, so an endless tree stops)."""
    if not path.is_dir():
        spend.bytes_read(path.stat().st_size)
        return
    for folder, dirs, files in os.walk(path):
        spend.row(len(dirs) + len(files))
        for name in files:
            with contextlib.suppress(OSError):
                spend.bytes_read(os.lstat(os.path.join(folder, name)).st_size)
    spend.rows = 0  # (the entries were a bound on the walk; records are counted as read)


__all__ = ["SYSTEMS", "Harvest", "Item", "harvest"]
