"""The probes of ``salience eval`` that are drawn from the store's memories alone (recorded
probes come from the record: :mod:`.evaluation`)."""

from __future__ import annotations

import builtins
from collections.abc import Sequence

from salience.models import MemoryRecord
from salience.models.evaluation import Probe
from salience.stores.base import Store

QUERY_WORDS = 12
"""A supersession probe asks with the old version's first words, as a short query would."""


def supersession(
    store: Store, current: Sequence[MemoryRecord], per_kind: int
) -> builtins.list[Probe]:
    found: builtins.list[Probe] = []
    for record in current:
        if record.parent_id and len(found) < per_kind:
            parent = store.get(record.parent_id)
            if parent is not None and parent.user == record.user:
                words = " ".join(parent.content.split()[:QUERY_WORDS])  # asked as a person asks
                found.append(Probe("supersession", words, (record.id,)))
    return found


def decisions(current: Sequence[MemoryRecord], per_kind: int) -> builtins.list[Probe]:
    found: builtins.list[Probe] = []
    for record in current:
        if record.type == "decision" and record.topic_key and len(found) < per_kind:
            words = record.topic_key.replace("-", " ").replace("_", " ").replace(":", " ")
            found.append(Probe("decision", words, (record.id,)))
    return found


def entities(current: Sequence[MemoryRecord], per_kind: int) -> builtins.list[Probe]:
    named: dict[str, builtins.list[str]] = {}
    spelled: dict[str, str] = {}
    for record in current:
        for name in record.entities:
            named.setdefault(name.casefold(), []).append(record.id)
            spelled.setdefault(name.casefold(), name)
    few = [(key, ids) for key, ids in named.items() if len(ids) <= 3]
    return [Probe("entity", spelled[key], tuple(ids)) for key, ids in few[:per_kind]]


def titles(current: Sequence[MemoryRecord], per_kind: int) -> builtins.list[Probe]:
    titled = [r for r in current if r.title and r.title.strip()]
    return [Probe("title", r.title or "", (r.id,)) for r in titled[:per_kind]]
