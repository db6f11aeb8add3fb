"""Stores written by the real programs (installed from PyPI into a venv of their own, pinned),
imported, and compared field by field with what the program itself returns. Slow: each
installs its program (about 30 s)."""

from __future__ import annotations

import json
import subprocess
import sys
from datetime import datetime
from pathlib import Path

import pytest

from salience import Config, Memory
from salience.models import ALL_USERS

pytestmark = pytest.mark.slow
REAL = Path(__file__).parent / "real"
MEM0 = "mem0ai==2.2.1"


def _venv(folder: Path, package: str, python: str = sys.executable) -> Path:
    """A venv at ``folder`` (made by ``python``) holding ``package``; its interpreter."""
    subprocess.run([python, "-m", "venv", str(folder)], check=True)
    interpreter = folder / "bin" / "python"
    installed = subprocess.run(
        [str(interpreter), "-m", "pip", "install", "--quiet", package],
        check=False,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert installed.returncode == 0, installed.stderr[-2000:]
    return interpreter


def test_a_store_mem0_wrote_imports_as_mem0_lists_it(tmp_path: Path) -> None:
    python = _venv(tmp_path / "venv", MEM0)
    made = subprocess.run(
        [str(python), str(REAL / "mem0_store.py"), str(tmp_path / "out")],
        check=False,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert made.returncode == 0, made.stderr[-2000:]
    store = tmp_path / "out" / "store"
    listed = json.loads((store / "get_all.json").read_text())["results"]
    changed = json.loads((tmp_path / "out" / "ids.json").read_text())
    assert len(listed) == 46  # (50 added, 4 deleted)
    with Memory.open(config=Config(home=tmp_path / "home", embedder="none")) as memory:
        report = memory.import_from("mem0", store, user=ALL_USERS)
        records = memory.list(user=ALL_USERS, include_superseded=True, include_forgotten=True)
        again = memory.import_from("mem0", store, user=ALL_USERS)
    by_origin = {t.removeprefix("origin:"): r for r in records for t in r.tags if "origin:" in t}
    for row in listed:  # every memory mem0 lists, as mem0 lists it
        record = by_origin[f"mem0:{row['id']}"]
        assert record.content == row["memory"]
        assert record.user == row["user_id"]
        assert record.created_at == datetime.fromisoformat(row["created_at"])
        assert record.updated_at == datetime.fromisoformat(row["updated_at"])
        assert record.is_current(datetime.fromisoformat(row["updated_at"]))
        for tag in (row.get("metadata") or {}).get("tags") or []:
            assert tag in record.tags
    for user, memory_id in changed["updated"]:  # the text each update replaced, dated
        old = by_origin[f"mem0:{memory_id}~0"]
        new = by_origin[f"mem0:{memory_id}"]
        assert (old.user, new.parent_id) == (user, old.id)
        assert old.created_at <= old.updated_at < (old.valid_until or old.created_at)
        assert old.valid_until == new.updated_at
    deleted = {f"mem0:{memory_id}" for _, memory_id in changed["deleted"]}
    assert deleted.isdisjoint(by_origin)  # (their owner is unknown: never handed to anyone)
    assert {what for what, _ in report.skipped} == deleted
    assert (report.created, again.created, again.unchanged) == (52, 0, 52)
