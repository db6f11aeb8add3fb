"""The writes the tests of a tenant's vector state make, the same on both stores: memories of
four owners written by two processes in turn, some embedded again, some deleted, and one
owner erased."""

from __future__ import annotations

import random
from collections.abc import Iterator

import numpy as np

from salience.stores.base import Store
from tests.factory import record

OWNERS = ("ana", "space:team")
"""The tenant whose vectors are counted: a user and a space it reads."""
USERS = ("ana", "bo", "space:team", "cy")


def _vector(rng: random.Random) -> bytes:
    return np.array([rng.random() for _ in range(4)], dtype=np.float32).tobytes()


def churn(store: Store, other: Store, steps: int, erase_at: int) -> Iterator[int]:
    """Write step by step (``other`` is another process on the same store), yielding each
    step's number after its writes."""
    rng = random.Random(3)
    ids: list[str] = []
    for step in range(steps):
        writer = other if step % 3 == 0 else store
        made = record(f"memory {step}", user=USERS[step % 4])
        writer.insert(made)
        writer.set_vector(made.id, _vector(rng))
        ids.append(made.id)
        there = {r.id for r in store.iter_all()}
        if step % 7 == 6 and ids[step - 4] in there:  # (embedded again: a new vseq)
            writer.set_vector(ids[step - 4], _vector(rng))
        if step % 11 == 10 and ids[step - 2] in there:
            writer.delete(ids[step - 2])
        if step == erase_at:
            writer.erase_user("space:team")
        yield step
