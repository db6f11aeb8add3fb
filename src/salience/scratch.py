"""Scratch folders: where salience copies a store (an evaluation's twin) or unpacks an upload
(a pack, another system's store), privately and never for longer than its process lives.

A scratch folder is made owner-only (0700) under the system's temporary folder, named
``salience-<kind>-…``, and holds a marker naming its process (pid and start time, so a
reused pid is not mistaken for it). On exit its files are overwritten with zeros, then
removed. A process killed before that (``kill -9``, a power cut) leaves it behind:
:func:`sweep` removes, the same way, every scratch folder whose process is provably gone,
and every salience process runs it when it opens a store.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

PREFIX = "salience-"
MARKER = ".salience-owner"
ZEROS = 1 << 20


@contextlib.contextmanager
def scratch(kind: str) -> Iterator[Path]:
    """A private scratch folder for ``kind`` (``eval``, ``pack``, ``import``), zeroed and
    removed on exit."""
    folder = Path(tempfile.mkdtemp(prefix=f"{PREFIX}{kind}-"))  # (0700: owner only)
    (folder / MARKER).write_text(_me(), encoding="utf-8")
    try:
        yield folder
    finally:
        erase(folder)


def is_scratch(path: Path) -> bool:
    """Whether ``path`` lies in a scratch folder this process made (and has not erased)."""
    for folder in Path(path).resolve().parents:
        if folder.name.startswith(PREFIX):
            with contextlib.suppress(OSError):
                return (folder / MARKER).read_text(encoding="utf-8") == _me()
            return False
    return False


def private(path: Path) -> None:
    """Make ``path`` readable by its owner only (a SQLite file's journal and WAL then take
    the same mode)."""
    with contextlib.suppress(OSError):
        path.chmod(0o600)


def erase(folder: Path) -> None:
    """Overwrite every file below ``folder`` with zeros (as SQLite's ``secure_delete`` zeroes
    freed pages: the text is not left in blocks the file system frees), then remove it."""
    for path in sorted(folder.rglob("*"), reverse=True):
        with contextlib.suppress(OSError):
            if path.is_file() and not path.is_symlink():
                _zero(path)
    shutil.rmtree(folder, ignore_errors=True)


def sweep(root: Path | None = None) -> int:
    """Erase the scratch folders under ``root`` (the temporary folder) whose process is gone;
    how many. A folder without a readable marker, or of another user, is left alone."""
    base = Path(root or tempfile.gettempdir())
    swept = 0
    try:
        candidates = [p for p in base.iterdir() if p.name.startswith(PREFIX)]
    except OSError:
        return 0
    for folder in candidates:
        try:
            owner = (folder / MARKER).read_text(encoding="utf-8")
            mine = folder.stat().st_uid == os.getuid()
        except OSError:
            continue
        if mine and not _alive(owner):
            erase(folder)
            swept += 1
    return swept


def _zero(path: Path) -> None:
    size = path.stat().st_size
    with path.open("r+b") as out:
        for _ in range(0, size, ZEROS):
            out.write(bytes(min(ZEROS, size - out.tell())))
        out.flush()
        os.fsync(out.fileno())


def _me() -> str:
    return f"{os.getpid()} {_started(os.getpid())}"


def _started(pid: int) -> str:
    """The process's start time in clock ticks since boot (Linux), or "" where unknown."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text(encoding="utf-8")
    except OSError:
        return ""
    return stat.rsplit(")", 1)[1].split()[19]


def _alive(owner: str) -> bool:
    """Whether the process a marker names still runs (the same one: its start time too)."""
    pid_text, _, started = owner.strip().partition(" ")
    try:
        pid = int(pid_text)
        os.kill(pid, 0)
    except (ValueError, ProcessLookupError):
        return False
    except PermissionError:
        return True  # (another user's process with that pid: not provably gone)
    return not started or _started(pid) in ("", started)
