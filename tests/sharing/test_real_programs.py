"""Stores written by the real programs (installed from PyPI into a venv of their own, pinned),
imported, and compared field by field with what the program itself returns. Slow: each
installs its program (about 30 s)."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import pytest

from salience import Config, Memory
from salience.models import ALL_USERS

pytestmark = [pytest.mark.slow, pytest.mark.real]
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


BASIC_MEMORY = "basic-memory==0.24.1"
NOTES = {
    "Coffee": (
        "notes",
        ["drinks"],
        "# Coffee\n\n- [preference] Drinks espresso in the morning #coffee\n"
        "- [fact] The grinder is set to 12 (burr grinder)\n- pairs_with [[Croissant]]\n",
    ),
    "Croissant": (
        "notes",
        [],
        "# Croissant\n\nBought at the corner bakery.\n\n- [fact] Best before 10am #bakery\n",
    ),
    "Deploys": (
        "work",
        ["ops"],
        "# Deploys\n\n- [decision] Deploys happen on Tuesdays #release\n"
        "- [technique] Roll back with the previous image tag\n",
    ),
}


def _python_312() -> str | None:
    """An interpreter of Python 3.12 or newer (basic-memory 0.24 needs one), if any."""
    import shutil

    pyenv = sorted((Path.home() / ".pyenv" / "versions").glob("3.1[2-9]*/bin/python3"))
    for found in [shutil.which("python3.13"), shutil.which("python3.12"), *map(str, pyenv)]:
        if (
            found
            and subprocess.run([found, "-c", "1"], check=False, capture_output=True).returncode == 0
        ):
            return found
    return None


def test_a_project_basic_memory_wrote_imports_as_its_index_holds_it(tmp_path: Path) -> None:
    python = _python_312()
    if python is None:
        pytest.skip("basic-memory 0.24 needs Python 3.12 or newer, and this machine has none")
    interpreter = _venv(tmp_path / "venv", BASIC_MEMORY, python)
    home = tmp_path / "home"
    home.mkdir()

    def tool(*args: str) -> None:
        ran = subprocess.run(
            [str(interpreter.parent / "basic-memory"), "tool", *args, "--local"],
            env={"HOME": str(home), "PATH": str(interpreter.parent)},
            check=False,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert ran.returncode == 0, ran.stderr[-2000:]

    for title, (folder, tags, content) in NOTES.items():
        tool(
            "write-note",
            "--title",
            title,
            "--folder",
            folder,
            "--content",
            content,
            *(a for tag in tags for a in ("--tags", tag)),
        )
    edited = NOTES["Coffee"][2] + "- [fact] Switched to oat milk in June #coffee\n"
    tool(
        "write-note",
        "--title",
        "Coffee",
        "--folder",
        "notes",
        "--content",
        edited,
        "--tags",
        "drinks",
        "--overwrite",
    )
    project = home / "basic-memory"
    (project / ".basic-memory").mkdir()
    index = project / ".basic-memory" / "memory.db"
    index.write_bytes((home / ".basic-memory" / "memory.db").read_bytes())
    with sqlite3.connect(index) as conn:
        observations = conn.execute(
            "SELECT o.content, o.category, o.context, o.tags, e.file_path, e.created_at "
            "FROM observation o JOIN entity e ON e.id = o.entity_id"
        ).fetchall()
    with Memory.open(config=Config(home=tmp_path / "salience", embedder="none")) as memory:
        report = memory.import_from("basic-memory", project)
        records = memory.list()
    assert report.skipped == ()
    assert len(observations) == 6  # (what basic-memory itself indexed)
    for content, category, context, tags, file_path, created in observations:
        text = f"{content} ({context})" if context else content
        [record] = [r for r in records if r.content == text]
        assert f"kind:{category}" in record.tags
        assert all(tag in record.tags for tag in json.loads(tags or "[]") or [])
        assert record.project == "main"
        assert record.created_at == datetime.fromisoformat(created).replace(tzinfo=UTC)
        assert record.title == Path(file_path).stem
