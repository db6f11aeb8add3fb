"""The file of vector rows kept beside the store: round trip, room to grow, damage."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from salience.search import saved
from salience.search.rowids import RowIds
from salience.search.saved import Snapshot

IDS = [f"01J{(i * 7919) % 1000:023d}" for i in range(300)]  # (not in sorted order)


def _snapshot(size: int = 300, dims: int = 8) -> Snapshot:
    rng = np.random.default_rng(2)
    matrix = np.zeros((size + 5, dims), dtype=np.float32)  # (rows past size: room, zeros)
    matrix[:size] = rng.standard_normal((size, dims))
    values = rng.integers(-127, 128, (size + 5, dims)).astype(np.int8)
    return Snapshot(
        key="k",
        order="o1",
        last_vseq=size + 40,
        size=size,
        unit=True,
        ids=_ids(IDS[:size]),
        sessions=[None if i % 7 == 0 else f"séance\n{i // 10}" for i in range(size)],
        matrix=matrix,
        neighbours=(np.arange(size) - 1, np.arange(size) + 1),
        mixed_norms={0.5: rng.random(size).astype(np.float32)},
        int8=(
            values,
            rng.random(size + 5).astype(np.float32),
            rng.random(size + 5).astype(np.float32),
        ),
    )


def _ids(ids: list[str]) -> RowIds:
    rows = RowIds()
    rows.extend(ids)
    return rows


def test_round_trip(tmp_path: Path) -> None:
    path = tmp_path / "v.vectors"
    before = _snapshot()
    saved.save(path, before)
    after = saved.load(path, "k")
    assert after is not None
    assert (after.key, after.order, after.last_vseq, after.size, after.unit) == (
        "k",
        "o1",
        340,
        300,
        True,
    )
    assert list(after.ids) == IDS
    assert after.ids[7] == IDS[7]
    assert after.ids[-1] == IDS[-1]
    assert after.sessions == before.sessions  # (names with newlines and accents, and None)
    assert np.array_equal(after.matrix[:300], before.matrix[:300])
    assert after.neighbours is not None
    assert before.neighbours is not None
    for a, b in zip(after.neighbours, before.neighbours, strict=True):
        assert np.array_equal(a, b)
    assert list(after.mixed_norms) == [0.5]
    assert np.array_equal(after.mixed_norms[0.5], before.mixed_norms[0.5])
    assert after.int8 is not None
    assert before.int8 is not None
    for a, b in zip(after.int8, before.int8, strict=True):
        assert np.array_equal(a[:300], b[:300])
    assert path.stat().st_mode & 0o777 == 0o600
    assert not list(tmp_path.glob("*.tmp"))


def test_room_to_grow_is_zeros_and_writable(tmp_path: Path) -> None:
    path = tmp_path / "v.vectors"
    saved.save(path, _snapshot())
    after = saved.load(path, "k")
    assert after is not None
    assert len(after.matrix) == 300 + 64 + 1  # (at least 64 rows of room, and a zero row)
    assert not after.matrix[300:].any()
    assert after.int8 is not None
    assert len(after.int8[0]) == 364
    on_disk = path.read_bytes()
    after.matrix[301] = 1.0  # a private copy of the page: the file is unchanged
    assert path.read_bytes() == on_disk


@pytest.mark.parametrize("damage", ["truncated", "magic", "header", "empty", "length"])
def test_a_damaged_file_is_refused(tmp_path: Path, damage: str) -> None:
    path = tmp_path / "v.vectors"
    saved.save(path, _snapshot())
    data = path.read_bytes()
    damaged = {
        "truncated": data[: len(data) // 2],
        "magic": b"SALVECS0" + data[8:],
        "header": data[:20] + b"{{{" + data[23:],
        "empty": b"",
        "length": data[:8] + (10**12).to_bytes(8, "little") + data[16:],
    }[damage]
    path.write_bytes(damaged)
    assert saved.load(path, "k") is None


def test_another_store_key_or_a_missing_file_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "v.vectors"
    assert saved.load(path, "k") is None
    saved.save(path, _snapshot())
    assert saved.load(path, "another") is None


def test_discard_zeroes_before_it_deletes(tmp_path: Path) -> None:
    path = tmp_path / "v.vectors"
    saved.save(path, _snapshot())
    witness = tmp_path / "witness"
    witness.hardlink_to(path)
    assert saved.discard(path)
    assert not path.exists()
    assert not witness.read_bytes().strip(b"\0")
    assert not saved.discard(path)


def test_only_a_sqlite_file_has_a_place_beside_it() -> None:
    assert saved.saved_vectors("/x/salience.db") == Path("/x/salience.db.vectors")
    assert saved.saved_vectors("postgresql://h/db") is None
    assert saved.saved_vectors(":memory:") is None
