"""Another system's store read as untrusted (``sharing/importers/base.py``, ``qdrant.py``):
tables only, no value past the limit, every record and byte charged to the work's budget, and
every malformed store refused as bad input, never a traceback."""

from __future__ import annotations

import pickle
import shutil
import sqlite3
from dataclasses import replace
from pathlib import Path

import pytest

from salience.budget import MB, UNLIMITED, Budget, spending
from salience.errors import InvalidInputError, OverLimitError
from salience.sharing.importers import harvest

DATA = Path(__file__).parent.parent / "data" / "importers"


def _talome(tmp_path: Path, *extra: str) -> Path:
    path = tmp_path / "talome.db"
    shutil.copy(DATA / "talome" / "talome.db", path)
    with sqlite3.connect(path) as conn:
        for statement in extra:
            conn.execute(statement)
    return path


def _harvest(system: str, path: Path, **limits: int) -> object:
    with spending(Budget(replace(UNLIMITED, **limits))):
        return harvest(system, path)


def test_a_table_swapped_for_a_view_is_refused(tmp_path: Path) -> None:
    """A view computes what the file says on every read (3M rows, an endless query...): an
    import reads tables only."""
    path = _talome(
        tmp_path,
        "ALTER TABLE memories RENAME TO real_memories",
        "CREATE VIEW memories AS SELECT * FROM real_memories",
    )
    with pytest.raises(InvalidInputError, match="through a view") as refused:
        harvest("talome", path)
    assert str(tmp_path) not in str(refused.value)


def test_a_generated_column_is_never_computed(tmp_path: Path) -> None:
    """An engram store with a generated column (here 100 MB of zeros on each read): it reads
    as NULL, and the store imports as it would without it."""
    path = tmp_path / "engram.db"
    shutil.copy(DATA / "engram" / "engram.db", path)
    with sqlite3.connect(path) as conn:
        conn.execute(
            "ALTER TABLE observations ADD COLUMN bomb BLOB "
            "GENERATED ALWAYS AS (zeroblob(100000000)) VIRTUAL"
        )
    plain = harvest("engram", DATA / "engram" / "engram.db")
    found = _harvest("engram", path, read_bytes=2 * MB)  # (the zeros would pass 2 MB)
    assert [i.content for i in found.items] == [i.content for i in plain.items]  # type: ignore[attr-defined]


def test_a_value_past_the_limit_is_refused_not_held(tmp_path: Path) -> None:
    path = _talome(
        tmp_path,
        "INSERT INTO memories (type, content, created_at, updated_at) "
        "VALUES ('fact', zeroblob(17000000), '2026-01-01', '2026-01-01')",
    )
    with pytest.raises(InvalidInputError, match="larger than 16,777,216 bytes"):
        _harvest("talome", path, read_bytes=64 * MB)  # (the file itself is within)


def test_records_past_the_limit_stop_the_read(tmp_path: Path) -> None:
    path = _talome(tmp_path)
    with pytest.raises(OverLimitError) as over:
        _harvest("talome", path, rows=3)
    assert over.value.field == "job_rows"
    _harvest("talome", path, rows=100)  # (the fixture itself is well within)


def test_a_source_larger_than_the_read_limit_is_refused_before_reading(tmp_path: Path) -> None:
    big = tmp_path / "get_all.json"
    big.write_text('{"results": []}' + " " * (2 * MB))
    with pytest.raises(OverLimitError) as over:
        _harvest("mem0", big, read_bytes=MB)
    assert over.value.field == "job_read_mb"
    folder = tmp_path / "notes"
    folder.mkdir()
    for n in range(3):
        (folder / f"{n}.md").write_text("- a note\n" * 60_000)
    with pytest.raises(OverLimitError):
        _harvest("basic-memory", folder, read_bytes=MB)


def test_a_stopped_job_stops_a_long_read(tmp_path: Path) -> None:
    """A read checks its job at every 100,000 steps of SQLite: a cancel (or the time) stops
    it there with the job's own reason, not "damaged"."""
    path = _talome(tmp_path)

    class Cancelled(InvalidInputError):
        pass

    def stop() -> None:
        raise Cancelled("the job was cancelled")

    with spending(Budget(UNLIMITED, stop=stop)), pytest.raises(Cancelled):
        harvest("talome", path)


def _pickled_point(payload: object) -> bytes:
    """A pickle as Qdrant writes a point: a PointStruct built from its state."""
    state = pickle.dumps({"id": "x", "payload": payload, "vector": [0.1]}, protocol=2)
    point = b"cqdrant_client.http.models.models\nPointStruct\n)\x81"  # (class, (), NEWOBJ)
    return b"\x80\x02" + point + state[2:-1] + b"b."  # (its state, BUILD, STOP)


ODD_DATA = {"data": {"not": "text"}, "user_id": 7, "created_at": "2026-01-01T00:00:00Z"}


@pytest.mark.parametrize(
    "blob",
    [
        pickle.dumps([1, 2, 3]),  # not a point
        b"\x80\x04\x95",  # cut short
        b"(" * 100_000 + b".",  # marks and nothing else
        pickle.dumps({"deep": [[[[[[]]]]]]}) * 2,
        "payload-not-an-object",
        "data-not-text",
    ],
    ids=["list", "truncated", "marks", "two pickles", "payload", "data"],
)
def test_an_odd_qdrant_point_is_bad_input(tmp_path: Path, blob: bytes | str) -> None:
    folder = tmp_path / "qdrant" / "collection" / "mem0"
    folder.mkdir(parents=True)
    shutil.copy(DATA / "mem0" / "qdrant" / "collection" / "mem0" / "storage.sqlite", folder)
    if blob == "payload-not-an-object":
        blob = _pickled_point(["not", "a", "payload"])
    elif blob == "data-not-text":
        blob = _pickled_point(ODD_DATA)
    with sqlite3.connect(folder / "storage.sqlite") as conn:
        conn.execute("UPDATE points SET point = ? WHERE rowid = 1", (blob,))
    if blob == _pickled_point(ODD_DATA):  # (a point, of a record mem0 never writes: named)
        [(what, why)] = harvest("mem0", tmp_path / "qdrant").skipped
        assert what.startswith("mem0:")  # (the point's id, as Qdrant keeps it)
        assert why == "its memory is not a text"
        return
    with pytest.raises(InvalidInputError) as refused:
        harvest("mem0", tmp_path / "qdrant")
    assert str(tmp_path) not in str(refused.value)


def test_a_schema_calling_a_pure_built_in_is_read_without_computing_it(tmp_path: Path) -> None:
    """basic-memory's index has generated columns over ``json_extract``, which SQLite before
    3.45 calls unsafe in a schema when ``trusted_schema`` is off: the store is still read (its
    generated columns as NULL), as the real program's index was."""
    path = _talome(
        tmp_path,
        "ALTER TABLE memories ADD COLUMN meta TEXT",
        "ALTER TABLE memories ADD COLUMN kind TEXT "
        "GENERATED ALWAYS AS (json_extract(meta, '$.kind')) VIRTUAL",
    )
    plain = harvest("talome", DATA / "talome" / "talome.db")
    assert [i.content for i in harvest("talome", path).items] == [i.content for i in plain.items]
