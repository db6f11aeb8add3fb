"""The generated store every full-text copy test starts from."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from salience.stores.sqlite import SQLiteStore
from tests.stores.sqlite.corpus import corpus


@pytest.fixture
def store(tmp_path: Path) -> Iterator[SQLiteStore]:
    store = SQLiteStore(tmp_path / "s.db")
    for r in corpus():
        store.insert(r)
    yield store
    store.close()
