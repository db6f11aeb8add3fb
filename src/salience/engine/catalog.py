"""What the faces ask of the engine besides a :class:`~salience.engine.memory.Memory`'s verbs:
the scoring profiles, what kind of store a URL names, and copying one store into another."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from salience.profiles import PROFILES, Profile, get_profile
from salience.stores.base import Store
from salience.stores.copy import CopyReport, copy_store
from salience.stores.postgres import is_postgres_url
from salience.stores.scratch import scratch
from salience.stores.scratch import sweep as sweep_scratch
from salience.write.authority import Authority

__all__ = [
    "CopyReport",
    "Profile",
    "copy",
    "get_profile",
    "is_postgres_url",
    "profiles",
    "scratch",
    "store_kind",
    "sweep_scratch",
]


def profiles() -> Mapping[str, Profile]:
    """Every scoring profile, by name."""
    return PROFILES


def store_kind(location: str) -> str:
    """``postgresql`` or ``sqlite``: the kind of store at ``location``."""
    return "postgresql" if is_postgres_url(location) else "sqlite"


def copy(
    source: Store, target: Store, progress: Callable[[int, int], None] | None = None
) -> CopyReport:
    """Copy everything in ``source`` into the empty ``target`` (see :mod:`salience.stores.copy`)."""
    with Authority(target).copying():
        return copy_store(source, target, progress)
