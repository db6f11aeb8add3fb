"""Which memories a read considers: the filter every store applies the same way."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt


@dataclass(frozen=True)
class MemoryFilter:
    """Which memories a list or search considers. ``as_of`` decides what is still current."""

    as_of: datetime
    user: str | None = None
    spaces: tuple[str, ...] = ()  # owners (``space:<name>``) seen beside ``user``'s own
    agent: str | None = None  # written by this agent
    project: str | None = None
    type: str | None = None
    types: tuple[str, ...] = ()  # any of these types (empty: no restriction)
    types_exclude: tuple[str, ...] = ()  # none of these types
    tags: tuple[str, ...] = ()
    session_id: str | None = None
    topic_key: str | None = None
    content_hash: str | None = None
    entity: str | None = None
    include_superseded: bool = False
    include_forgotten: bool = False
    enabled_only: bool = False
    depends_on: str | None = None  # records naming this id among their sources or in their text


Passing = Callable[
    ["npt.NDArray[np.int64]", MemoryFilter, int], "tuple[list[int], list[str]] | None"
]
"""What a process knows, without asking the store, of which rows pass a filter: of the row
numbers given, the positions of the first ``limit`` that pass and their memories' ids; None
when it cannot say (the engine's columns: :mod:`salience.briefing.passing`). A store uses it
where it saves a query."""
