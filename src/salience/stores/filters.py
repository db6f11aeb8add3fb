"""Which memories a read considers: the filter every store applies the same way."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime


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
