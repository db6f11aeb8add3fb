"""Files of arrays beside a store: round trip, room to grow as holes, damage refused."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from salience.stores import arrays
from salience.stores.arrays import Stored

MAGIC = b"TESTARR1"


def _write(path: Path) -> tuple[np.ndarray, np.ndarray]:
    matrix = np.arange(30, dtype=np.float32).reshape(10, 3)
    codes = np.array([3, -1, 7], dtype=np.int32)
    arrays.write(
        path,
        MAGIC,
        {"kept": "as given"},
        [Stored("matrix", matrix, 10, 14), Stored("codes", codes, 3, 3)],
    )
    return matrix, codes


def test_round_trip_with_room_to_grow(tmp_path: Path) -> None:
    path = tmp_path / "f"
    matrix, codes = _write(path)
    found = arrays.read(path, MAGIC)
    assert found is not None
    header, read = found
    assert header["kept"] == "as given"
    assert read["matrix"].shape == (14, 3)
    assert np.array_equal(read["matrix"][:10], matrix)
    assert not read["matrix"][10:].any()  # room: holes, read as zeros
    assert np.array_equal(read["codes"], codes)
    assert path.stat().st_mode & 0o777 == 0o600
    assert [p.name for p in tmp_path.iterdir()] == ["f"]  # (the temporary file renamed)
    read["matrix"][12] = 1.0  # writable, privately: the file is unchanged
    assert arrays.read(path, MAGIC)[1]["matrix"][12].sum() == 0  # type: ignore[index]


def test_a_missing_or_empty_file_is_none(tmp_path: Path) -> None:
    assert arrays.read(tmp_path / "nothing", MAGIC) is None
    (tmp_path / "empty").write_bytes(b"")
    assert arrays.read(tmp_path / "empty", MAGIC) is None


@pytest.mark.parametrize(
    ("damage", "message"),
    [
        ("one byte short", "truncated"),
        ("magic", "not a file of this kind"),
        ("header", "codec can.t decode"),
    ],
)
def test_a_damaged_file_raises(tmp_path: Path, damage: str, message: str) -> None:
    path = tmp_path / "f"
    _write(path)
    data = path.read_bytes()
    path.write_bytes(
        {
            "one byte short": data[:-1],
            "magic": b"OTHERAR1" + data[8:],
            "header": data[:16] + b"\xff{" + data[18:],
        }[damage]
    )
    with pytest.raises(ValueError, match=message):  # (header: JSON's own message)
        arrays.read(path, MAGIC)
