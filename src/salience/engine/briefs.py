"""Opening a store, and briefings: what a session-start hook needs, in a class of its own.

:class:`Briefs` opens a store and briefs; :class:`~salience.engine.memory.Memory` is made of
it and every other verb. A process that only briefs (the hook computed in its own process,
:mod:`salience.cli.hookstart`) opens a :class:`Briefs`, and so loads neither the other verbs'
modules nor what they import: the same briefing, recorded the same way.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Literal, Self

from salience import telemetry
from salience.briefing.policies import BriefingRequest
from salience.briefing.source import Vanished
from salience.clock import Clock, system_clock
from salience.config import Config
from salience.embeddings import Embedder
from salience.engine.reading import person_reads
from salience.engine.updating import Updating
from salience.errors import InvalidInputError
from salience.models import Briefing, UserScope
from salience.models.spaces import READ
from salience.stores.reads import look_again
from salience.stores.registry import open_store

if TYPE_CHECKING:
    from salience.lifecycle.llm import Summarizer


class Briefs(Updating):
    """Opening a store, and the briefing verb."""

    @classmethod
    def open(
        cls,
        path_or_url: str | Path | None = None,
        *,
        config: Config | None = None,
        clock: Clock = system_clock,
        embedder: Embedder | Literal["config"] | None = "config",
        llm: Summarizer | Literal["config"] | None = "config",
        create: bool = True,
    ) -> Self:
        """Open the store at a path, a directory, a ``sqlite://`` URL or a
        ``postgresql://`` URL (creating it, owner only, unless ``create`` is false: then a
        missing store is an error).

        With no argument, the configured store (``SALIENCE_STORE_URL``) or else the default
        file ``$SALIENCE_HOME/salience.db`` is used. The embedder comes from the
        configuration unless one (or None) is given.
        """
        cfg = config or Config.from_env()
        target = path_or_url if path_or_url is not None else (cfg.store_url or None)
        store = open_store(
            target,
            default=cfg.db_path,
            busy_timeout_ms=cfg.busy_timeout_ms,
            create=create,
            read_url=cfg.store_read_url or None,
            read_max_lag_s=cfg.read_max_lag_s,
        )
        return cls(store, config=cfg, clock=clock, embedder=embedder, llm=llm)

    @telemetry.traced("briefing")
    @person_reads
    def briefing(
        self,
        profile: str | None = None,
        *,
        user: UserScope = None,
        project: str | None = None,
        session_id: str | None = None,
        budget: int | None = None,
        as_of: datetime | None = None,
        record: bool | None = None,
        space: str | None = None,
    ) -> Briefing:
        """The text to inject at session start, with a manifest of every candidate's fate:
        the user's memories and those of every space it reads (``space``: that space's
        only). It is recorded (``briefing_log``) unless ``record`` is False or it is ``as_of``
        another time (a preview)."""
        if budget is not None and budget < 1:
            raise InvalidInputError("budget must be at least 1 token", field="budget")
        rules = self.profile(profile)
        user = self._one_user(user, "a briefing")
        spaces = self._readable(user)
        if space is not None:
            user, spaces = self._space_owner(user, space, READ), ()
        now = self._at(as_of)
        request = BriefingRequest(now, user, project, session_id, budget)
        telemetry.note(profile=rules.name, tenant=user, budget=budget, spaces=len(spaces))
        for attempt in range(3):
            candidates = self._briefings.candidates(user, self._mounted(), now, spaces)
            candidates = self._briefed(candidates, rules.name, user, spaces)
            try:
                given = rules.briefing(candidates, request, self._settings)
            except Vanished:
                if attempt == 2:
                    raise
                look_again()  # (the store changed under it: read it as it is now)
                continue
            if record if record is not None else as_of is None:
                self._record_briefing(given, user, session_id, budget, now)
            if telemetry.active():
                telemetry.note(candidates=len(candidates), tokens=given.tokens, tries=attempt + 1)
            return given
        raise AssertionError("unreachable")
