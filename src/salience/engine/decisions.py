"""Decisions (aide's record): per topic, append-only, the latest wins.

A decision is a memory of type ``decision`` whose ``topic_key`` is its topic; deciding again
on a topic supersedes the current decision, so :meth:`~Decisions.decision_history` is the
memory's version chain. The text holds the decision and, after a ``Rationale:`` line, why;
a ``precedence:N`` tag keeps aide's precedence (100 or more marks an overriding decision).
"""

from __future__ import annotations

import builtins
import re
from typing import TYPE_CHECKING

from salience.engine.writes import Writes
from salience.errors import InvalidInputError, NotFoundError
from salience.models import MemoryRecord, UserScope, WriteResult
from salience.stores.base import MemoryFilter

if TYPE_CHECKING:  # (decisions are read by their verbs only)
    from salience.models.reports import Decision

DECISION = "decision"
_RATIONALE = "\nRationale: "
_TOPIC = re.compile(r"[a-z0-9][a-z0-9._/-]{0,127}")


def as_decision(record: MemoryRecord) -> Decision:
    """The decision a memory of type ``decision`` records."""
    from salience.models.reports import Decision

    text, _, rationale = record.content.partition(_RATIONALE)
    precedence = next(
        (int(t.split(":", 1)[1]) for t in record.tags if re.fullmatch(r"precedence:-?\d+", t)), 0
    )
    return Decision(record.topic_key or "", text, rationale or None, precedence, record)


class Decisions(Writes):
    """decide, decision, decision_history, decisions."""

    if TYPE_CHECKING:  # defined by Memory, beside these verbs

        def history(
            self, memory_id: str, *, user: UserScope = None
        ) -> builtins.list[MemoryRecord]: ...

    def decide(
        self,
        topic: str,
        decision: str,
        *,
        rationale: str | None = None,
        precedence: int = 0,
        user: UserScope = None,
    ) -> WriteResult:
        """Record the decision on ``topic`` (kebab-case); a current one is superseded."""
        if not isinstance(topic, str) or not _TOPIC.fullmatch(topic):
            raise InvalidInputError(
                "a topic is kebab-case: lowercase letters, digits, '-', '.', '/'", field="topic"
            )
        if not -1_000_000 <= precedence <= 1_000_000:
            raise InvalidInputError("precedence must be within ±1,000,000", field="precedence")
        content = decision if not rationale else f"{decision}{_RATIONALE}{rationale}"
        tags = [f"precedence:{precedence}"] if precedence else []
        current = self._current_decision(topic, self._one_user(user, "a decision"))
        if current is not None:
            return self.supersede(current.id, content, user=user, tags=tags)
        return self.remember(
            content, user=user, type=DECISION, topic_key=topic, tags=tags, force=True
        )

    def _current_decision(self, topic: str, user: str) -> MemoryRecord | None:
        flt = MemoryFilter(as_of=self.now(), user=user, type=DECISION, topic_key=topic)
        found = self._store.list(flt, 1)
        return found[0] if found else None

    def decision(self, topic: str, *, user: UserScope = None) -> Decision:
        """The current decision on ``topic``; :class:`NotFoundError` if there is none."""
        current = self._current_decision(topic, self._one_user(user, "a decision"))
        if current is None:
            shown = topic if len(topic) <= 80 else topic[:79] + "…"
            raise NotFoundError(topic, f"no decision on the topic {shown!r}")
        return as_decision(current)

    def decision_history(self, topic: str, *, user: UserScope = None) -> builtins.list[Decision]:
        """Every decision on ``topic``, oldest first; the last is current."""
        current = self.decision(topic, user=user)
        chain = self.history(current.memory.id, user=user)
        return [as_decision(r) for r in reversed(chain)]

    def decisions(self, *, user: UserScope = None) -> builtins.list[Decision]:
        """The current decision of every topic, by topic."""
        flt = MemoryFilter(as_of=self.now(), user=self._scope(user), type=DECISION)
        records = self._store.list(flt, None)
        return sorted((as_decision(r) for r in records if r.topic_key), key=lambda d: d.topic)
