"""Scratch folders: private, zeroed on exit, and swept once their process is provably gone
(a ``kill -9`` leaves one behind; the next salience command erases it)."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from click.testing import CliRunner

from salience.cli.app import cli
from salience.scratch import MARKER, erase, scratch, sweep

SECRET_TEXT = b"the whole store, every user's text"


@pytest.fixture
def tmp_root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "tmp"
    root.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(root))
    return root


def test_a_scratch_folder_is_private_and_leaves_nothing(tmp_root: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    with scratch("eval") as folder:
        assert folder.parent == tmp_root
        assert folder.name.startswith("salience-eval-")
        assert folder.stat().st_mode & 0o777 == 0o700
        assert (folder / MARKER).read_text().split()[0] == str(os.getpid())
        (folder / "copy.db").write_bytes(SECRET_TEXT * 100)
        os.link(folder / "copy.db", outside)  # (sees the blocks the file had)
    assert not folder.exists()
    assert outside.read_bytes() == bytes(len(SECRET_TEXT) * 100)  # zeroed before removal


def test_sweep_erases_only_the_folders_of_processes_that_are_gone(tmp_root: Path) -> None:
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True).stdout.strip()  # fmt: skip
    gone = tmp_root / "salience-eval-gone"
    gone.mkdir()
    (gone / MARKER).write_text(f"{dead} 1")
    (gone / "copy.db").write_bytes(SECRET_TEXT)
    with scratch("pack") as live:
        unmarked = tmp_root / "salience-eval-unmarked"  # (not provably ours: left alone)
        unmarked.mkdir()
        other = tmp_root / "unrelated"
        other.mkdir()
        assert sweep() == 1
        assert not gone.exists()
        assert live.exists()
        assert unmarked.exists()
        assert other.exists()


@pytest.mark.process
def test_a_killed_process_copy_is_erased_by_the_next_command(
    tmp_root: Path, tmp_path: Path
) -> None:
    code = (
        "import sys, time\n"
        "from salience.scratch import scratch\n"
        "with scratch('eval') as folder:\n"
        "    (folder / 'salience.db').write_bytes(b'the whole store, every user' + b\"'s text\")\n"
        "    print(folder, flush=True)\n"
        "    sys.stdin.read()\n"  # (until killed)
    )
    env = {**os.environ, "TMPDIR": str(tmp_root)}
    child = subprocess.Popen(
        [sys.executable, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env,
        text=True,
    )  # fmt: skip
    assert child.stdout is not None
    folder = Path(child.stdout.readline().strip())
    assert (folder / "salience.db").exists()
    child.kill()  # kill -9: no finally runs
    child.wait()
    child.stdout.close()
    assert child.stdin is not None
    child.stdin.close()
    assert folder.exists()
    home = tmp_path / "home"
    done = CliRunner().invoke(
        cli, ["remember", "the dock closes at six tonight", "--home", str(home)]
    )
    assert done.exit_code == 0, done.output
    assert not folder.exists()
    left = [p for p in tmp_root.rglob("*") if p.is_file() and b"every user" in p.read_bytes()]
    assert left == []


def test_erase_removes_nested_files(tmp_path: Path) -> None:
    folder = tmp_path / "salience-x"
    (folder / "a" / "b").mkdir(parents=True)
    (folder / "a" / "b" / "f").write_bytes(SECRET_TEXT)
    erase(folder)
    assert not folder.exists()


def test_a_path_is_scratch_only_inside_a_folder_this_process_made(tmp_path: Path) -> None:
    from salience.scratch import is_scratch

    with scratch("eval") as folder:
        assert is_scratch(folder / "salience.db")
    assert not is_scratch(folder / "salience.db")  # (erased: gone)
    assert not is_scratch(tmp_path / "salience.db")
    foreign = tmp_path / "salience-eval-x"
    foreign.mkdir()
    (foreign / MARKER).write_text("1 2", encoding="utf-8")  # another process's
    assert not is_scratch(foreign / "salience.db")
