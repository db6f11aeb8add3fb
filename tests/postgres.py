"""A real PostgreSQL 16 with pgvector for the tests, started once per test session.

The server is the one the PyPI package ``pgserver`` ships (its binaries only: nothing of the
package runs). PostgreSQL refuses to run as root, so under root (as in CI) it runs as the
unprivileged ``nobody`` through ``runuser``, in a temporary directory the fixture owns, on a
unix socket there (no TCP port); it is stopped and the directory removed at the end.

``SALIENCE_TEST_POSTGRES_URL`` points the same tests at any server instead (it must have
pgvector installed, and the user must be allowed to create schemas). Every test gets a schema
of its own (``search_path``), dropped afterwards.
"""

from __future__ import annotations

import contextlib
import importlib.util
import itertools
import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import quote

import psycopg

_counter = itertools.count()


def _binaries() -> Path | None:
    spec = importlib.util.find_spec("pgserver")  # found, not imported
    if spec is None or not spec.submodule_search_locations:
        return None
    found = Path(next(iter(spec.submodule_search_locations))) / "pginstall" / "bin"
    return found if (found / "postgres").exists() else None


class Server:
    """A PostgreSQL server: the URL of its ``postgres`` database."""

    def __init__(self) -> None:
        self.url = os.environ.get("SALIENCE_TEST_POSTGRES_URL", "")
        self._dir: Path | None = None
        self._run: list[str] = []
        if not self.url:
            self._start()
        with psycopg.connect(self.url, autocommit=True) as admin:
            admin.execute("CREATE EXTENSION IF NOT EXISTS vector")

    def _start(self) -> None:
        bin_dir = _binaries()
        if bin_dir is None:
            raise RuntimeError("pgserver is not installed: pip install -e '.[dev]'")
        self._dir = Path(tempfile.mkdtemp(prefix="salience-pg-"))
        if os.geteuid() == 0:  # PostgreSQL will not run as root
            shutil.chown(self._dir, "nobody", "nogroup")
            self._run = ["runuser", "-u", "nobody", "--"]
        data = self._dir / "data"
        self._call(
            bin_dir / "initdb",
            "-D",
            str(data),
            "-U",
            "postgres",
            "--auth=trust",
            "-E",
            "UTF8",
            "--no-locale",
        )
        options = (
            f"-c listen_addresses='' -c unix_socket_directories={self._dir} -c fsync=off "
            "-c synchronous_commit=off -c full_page_writes=off -c max_connections=300"
        )
        self._pg_ctl = bin_dir / "pg_ctl"
        self._call(
            self._pg_ctl,
            "-D",
            str(data),
            "-o",
            options,
            "-l",
            str(self._dir / "log"),
            "-w",
            "start",
        )
        self.url = f"postgresql://postgres@/postgres?host={quote(str(self._dir))}"

    def _call(self, *args: object) -> None:
        subprocess.run([*self._run, *map(str, args)], check=True, capture_output=True)

    @contextmanager
    def schema(self) -> Iterator[str]:
        """A URL whose tables go into a new, empty schema; the schema is dropped afterwards."""
        name = f"t{os.getpid()}_{next(_counter)}"
        with psycopg.connect(self.url, autocommit=True) as admin:
            admin.execute(f"CREATE SCHEMA {name}")
        joiner = "&" if "?" in self.url else "?"
        try:
            yield f"{self.url}{joiner}options=-csearch_path%3D{name},public"
        finally:
            with psycopg.connect(self.url, autocommit=True) as admin:
                admin.execute(f"DROP SCHEMA {name} CASCADE")

    def stop(self) -> None:
        if self._dir is None:
            return
        self._call(self._pg_ctl, "-D", str(self._dir / "data"), "-m", "immediate", "stop")
        shutil.rmtree(self._dir, ignore_errors=True)


class Replicated:
    """A primary PostgreSQL and a streaming replica of it (``pg_basebackup -R``), from the
    same binaries, each on a unix socket of its own: ``url`` and ``replica_url``, both of the
    ``postgres`` database. The replica can be stopped and started again."""

    def __init__(self) -> None:
        bin_dir = _binaries()
        if bin_dir is None:
            raise RuntimeError("pgserver is not installed: pip install -e '.[dev]'")
        self._bin = bin_dir
        self._dir = Path(tempfile.mkdtemp(prefix="salience-pgrep-"))
        self._run: list[str] = []
        if os.geteuid() == 0:
            shutil.chown(self._dir, "nobody", "nogroup")
            self._run = ["runuser", "-u", "nobody", "--"]
        primary, replica = self._dir / "primary", self._dir / "replica"
        for socket in (self._dir / "p", self._dir / "r"):
            socket.mkdir()
            if self._run:
                shutil.chown(socket, "nobody", "nogroup")
        self._call(
            "initdb", "-D", primary, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-locale"
        )
        self._start(primary, self._dir / "p")
        self.url = f"postgresql://postgres@/postgres?host={quote(str(self._dir / 'p'))}"
        with psycopg.connect(self.url, autocommit=True) as admin:
            admin.execute("CREATE EXTENSION IF NOT EXISTS vector")
        self._call(
            "pg_basebackup",
            "-D",
            replica,
            "-R",
            "-X",
            "stream",
            "-U",
            "postgres",
            "-h",
            self._dir / "p",
        )
        self._replica = replica
        self._start(replica, self._dir / "r")
        self.replica_url = f"postgresql://postgres@/postgres?host={quote(str(self._dir / 'r'))}"

    def _call(self, program: str, *args: object) -> None:
        subprocess.run(
            [*self._run, str(self._bin / program), *map(str, args)], check=True, capture_output=True
        )

    def _start(self, data: Path, socket: Path) -> None:
        options = (
            f"-c listen_addresses='' -c unix_socket_directories={socket} -c max_connections=100"
        )
        self._call(
            "pg_ctl", "-D", data, "-o", options, "-l", self._dir / f"{data.name}.log", "-w", "start"
        )

    def stop_replica(self) -> None:
        self._call("pg_ctl", "-D", self._replica, "-m", "immediate", "stop")

    def start_replica(self) -> None:
        self._start(self._replica, self._dir / "r")

    def stop(self) -> None:
        for data in (self._replica, self._dir / "primary"):
            with contextlib.suppress(subprocess.CalledProcessError):
                self._call("pg_ctl", "-D", data, "-m", "immediate", "stop")
        shutil.rmtree(self._dir, ignore_errors=True)


def with_schema(url: str, name: str) -> str:
    """``url`` with its tables in the schema ``name``."""
    joiner = "&" if "?" in url else "?"
    return f"{url}{joiner}options=-csearch_path%3D{name},public"
