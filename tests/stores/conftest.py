"""Store tests write memory rows themselves: they test the store below the write authority,
so each runs with its grant (:mod:`salience.stores.grant`)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from salience.stores.grant import granted


@pytest.fixture(autouse=True)
def _granted() -> Iterator[None]:
    with granted("store test"):
        yield
