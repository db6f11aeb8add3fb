"""What the faces ask of a store besides its memories: the scoring profiles, the kind of
store it is and where its file is, copying it into another, and what ``salience doctor``
checks of its indexes."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from salience.clock import Clock
from salience.config import Config
from salience.engine.core import EngineCore
from salience.errors import InvalidInputError
from salience.models import UserScope
from salience.profiles import PROFILES, Profile, ProfileSettings
from salience.scratch import is_scratch
from salience.stores.base import MemoryFilter
from salience.stores.registry import backend_of, local_file

if TYPE_CHECKING:
    from salience.models.reports import CopyReport


class Catalog(EngineCore):
    """The store as a whole, and the profiles it may be read with."""

    @property
    def clock(self) -> Clock:
        """What this engine reads the time from."""
        return self._clock

    @property
    def settings(self) -> ProfileSettings:
        """The profiles' settings in force (from the configuration)."""
        return self._settings

    def owner(self, user: UserScope, verb: str) -> str:
        """The one user a verb acts for (the configured one by default); ``ALL_USERS`` is
        refused, naming ``verb``."""
        return self._one_user(user, verb)

    def hold_out(self, memory_ids: Sequence[str]) -> None:
        """Leave those memories' titles and entities out (their text and vectors stay): on a
        scratch copy only (an evaluation's, :mod:`salience.evaluation.twin`), so that a probe
        drawn from them finds the memory by what else it holds. Refused on any other store."""
        here = local_file(self._store.location, self._config.db_path)
        if here is None or not is_scratch(here):
            raise InvalidInputError("titles and entities are held out of a scratch copy only")
        with self._store.transaction(), self._authority.copying():
            for memory_id in memory_ids:
                record = self._store.get(memory_id)
                if record is not None:
                    self._store.replace(replace(record, title=None, entities=()))

    @staticmethod
    def profiles() -> Mapping[str, Profile]:
        """Every scoring profile, by name (the registry: :mod:`salience.profiles`)."""
        return PROFILES

    @staticmethod
    def store_file(target: str | Path | None, config: Config) -> Path | None:
        """The file the store ``target`` names is (None: the configured store), or None when
        it is not a file on this machine (a database's URL)."""
        return local_file(target if target is not None else config.store_url, config.db_path)

    @property
    def store_kind(self) -> str:
        """The name of the store's backend (``sqlite``, ``postgresql``)."""
        return backend_of(self._store.location).name

    def copy_into(
        self, target: Catalog, progress: Callable[[int, int], None] | None = None
    ) -> CopyReport:
        """Copy everything in this store into ``target``'s, which must be empty (see
        :mod:`salience.stores.copy`)."""
        from salience.stores.copy import copy_store

        with target._authority.copying():
            return copy_store(self._store, target._store, progress)

    def missing_vectors(self) -> int:
        """How many memories have no vector (``salience reindex`` embeds them)."""
        return self._store.count_without_vectors()

    def unfound_by_text(self, sample: int) -> tuple[int, int]:
        """Whether full-text search finds the ``sample`` newest memories by their own words:
        (how many it did not find, how many were looked for). A stale or damaged index misses
        some; recall then says nothing of them."""
        as_of = self.now()
        recent = self._store.list(MemoryFilter(as_of=as_of), sample)
        unfound = 0
        for record in recent:
            mine = MemoryFilter(as_of=as_of, user=record.user)
            hits = self._store.search(record.content[:300], mine, 50)
            unfound += not any(hit.id == record.id for hit, _ in hits)
        return unfound, len(recent)
