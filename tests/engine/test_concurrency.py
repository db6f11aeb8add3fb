"""Several processes on one file: no lost write, no "database is locked" reaching anyone."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from salience import Memory

pytestmark = [pytest.mark.process]

_WRITER = """
import sys
from salience import Memory
name, count, path = sys.argv[1], int(sys.argv[2]), sys.argv[3]
with Memory.open(path) as memory:
    for i in range(count):
        result = memory.remember(f"{name} wrote memory number {i}", tags=[f"writer:{name}"])
        assert result.ok, result
print("done")
"""

_UPDATER = """
import sys
from salience import Memory
memory_id, count, path = sys.argv[1], int(sys.argv[2]), sys.argv[3]
with Memory.open(path) as memory:
    for _ in range(count):
        with memory.store.transaction():
            record = memory.get(memory_id)
            memory.update(memory_id, priority=record.priority + 1)
print("done")
"""


def _run_parallel(script: str, args: list[list[str]]) -> None:
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", script, *a], stdout=subprocess.PIPE, stderr=subprocess.PIPE
        )
        for a in args
    ]
    try:
        results = [proc.communicate(timeout=300) for proc in procs]
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.kill()
                proc.communicate()
    for proc, (out, err) in zip(procs, results, strict=True):
        assert proc.returncode == 0, err.decode()
        assert out.decode().strip() == "done"


def test_two_processes_writing_500_each_lose_nothing(tmp_path: Path) -> None:
    path = str(tmp_path / "shared.db")
    _run_parallel(_WRITER, [["a", "500", path], ["b", "500", path]])
    with Memory.open(path) as memory:
        assert memory.stats().total == 1000
        assert len(memory.list(tags=["writer:a"])) == 500
        assert len(memory.list(tags=["writer:b"])) == 500
        assert len(memory.search("wrote memory number 499", limit=1000)) == 1000


def test_read_modify_write_in_a_transaction_is_never_lost(tmp_path: Path) -> None:
    path = str(tmp_path / "shared.db")
    with Memory.open(path) as memory:
        counter = memory.remember("a counter kept in the priority field", source="user")
        memory_id = counter.id or ""  # (only the user's own memories keep a priority)
    _run_parallel(_UPDATER, [[memory_id, "100", path], [memory_id, "100", path]])
    with Memory.open(path) as memory:
        assert memory.get(memory_id).priority == 200.0
