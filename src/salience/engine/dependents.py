"""What depends on a memory: the memories built on it, transitively, and how.

A memory **quotes** its source when it was built from the source's text: an insight or any
memory that lists the source in ``derived_from`` (consolidation sets it; a caller may too),
and the ``summary`` that closed the source's session (:mod:`salience.briefing.sessions`). A
memory **cites** its source when its text names the source's id (a decision written "per
01J…"): it carries the id, not the words. Quoting passes down a chain only through quoting
links; a summary of an insight of a memory quotes it, a decision citing that summary cites it.

When the source changes (superseded, rewritten, forgotten) every dependent goes stale; when it
is purged the ones that quote it are erased with it (they may hold its text) and the ones that
only cite it go stale. Each lookup is one scan inside the database per memory reached, never
every record built in Python: this runs inside supersede, update, forget and purge.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, replace
from datetime import datetime

from salience.briefing.sessions import SUMMARY_TYPE
from salience.models import MemoryRecord
from salience.stores.base import MemoryFilter, Store


@dataclass(frozen=True, slots=True)
class Dependent:
    """A memory that depends on the source, and whether it quotes it (else it cites it)."""

    record: MemoryRecord
    quotes: bool


def dependents(store: Store, source: MemoryRecord, now: datetime) -> list[Dependent]:
    """Every memory of the source's user that depends on ``source``, transitively, each once
    (quoting if any chain of quoting links reaches it), in the order they were reached."""
    found: dict[str, Dependent] = {}
    frontier = [Dependent(source, True)]
    while frontier:
        step: dict[str, Dependent] = {}
        for parent in frontier:
            for record, quotes in _direct(store, parent.record, now):
                if record.id == source.id:
                    continue
                reached = Dependent(record, parent.quotes and quotes)
                seen = step.get(record.id) or found.get(record.id)
                if seen is None or (reached.quotes and not seen.quotes):
                    step[record.id] = reached
        found |= step
        frontier = [*step.values()]
    return [*found.values()]


def _direct(
    store: Store, parent: MemoryRecord, now: datetime
) -> Iterator[tuple[MemoryRecord, bool]]:
    """The memories that depend on ``parent`` itself, with whether each quotes it."""
    every = MemoryFilter(
        as_of=now, user=parent.user, include_superseded=True, include_forgotten=True
    )
    for record in store.list(replace(every, depends_on=parent.id), None):
        if parent.id in record.derived_from:
            yield record, True
        elif parent.id in record.content:  # (the store's match may ignore case: this does not)
            yield record, False
    if parent.session_id and parent.type != SUMMARY_TYPE:
        flt = replace(every, session_id=parent.session_id, type=SUMMARY_TYPE)
        for record in store.list(flt, None):
            yield record, True


def versions(store: Store, record: MemoryRecord) -> list[MemoryRecord]:
    """Every version of the supersession chain ``record`` belongs to, newest first
    (cycle-safe); only its owner's versions (a chain never crosses users)."""
    owner, newest = record.user, record
    seen = {newest.id}
    while successors := [
        s for s in store.successors(newest.id) if s.id not in seen and s.user == owner
    ]:
        newest = successors[-1]
        seen.add(newest.id)
    chain = [newest]
    visited = {newest.id}
    while chain[-1].parent_id and chain[-1].parent_id not in visited:
        parent = store.get(chain[-1].parent_id)
        if parent is None or parent.user != owner:
            break
        visited.add(parent.id)
        chain.append(parent)
    return chain
