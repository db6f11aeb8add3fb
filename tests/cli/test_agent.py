"""``salience mcp`` (cli/agent.py) as it runs: a stdio server in a process of its own."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = [pytest.mark.process]

ENV = {**os.environ, "SALIENCE_EMBEDDER": "none", "SALIENCE_SIGNAL_GATE": "0"}
MARKER = "qzvstdiomarker"


def _salience(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "salience", *args],
        env=ENV,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def _pending(home: Path) -> object:
    stats = _salience("stats", "--home", str(home), "--json")
    assert stats.returncode == 0, stats.stderr
    return json.loads(stats.stdout)["erasure_pending"]


def test_a_stdio_server_finishes_an_erasure_a_reader_held_back(tmp_path: Path) -> None:
    """A purge while another process holds a read stays pending after the reader closes
    until a process that knows tries again: a running ``salience mcp`` does, by itself,
    within seconds, with no request (before, only the HTTP server did)."""
    home = tmp_path / "home"
    made = _salience("remember", f"the loading bay code is {MARKER}", "--home", str(home), "--json")
    assert made.returncode == 0, made.stderr
    reader = sqlite3.connect(home / "salience.db", isolation_level=None)
    reader.execute("BEGIN")
    reader.execute("SELECT count(*) FROM memories").fetchone()
    try:
        purged = _salience("forget", json.loads(made.stdout)["id"], "--purge", "--home", str(home))
        assert purged.returncode == 0, purged.stderr
        assert "erasure pending" in purged.stdout + purged.stderr
    finally:
        reader.close()
    assert _pending(home) is not None  # (no process has tried again yet)
    server = subprocess.Popen(
        [sys.executable, "-m", "salience", "mcp", "--home", str(home)],
        env=ENV,
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + 60
        while _pending(home) is not None:
            assert server.poll() is None, server.stderr.read() if server.stderr else ""
            assert time.monotonic() < deadline, "the MCP server did not finish the erasure"
            time.sleep(0.2)
    finally:
        assert server.stdin is not None
        server.stdin.close()  # (the end of its input: the server stops)
        try:
            server.wait(timeout=30)
        finally:
            server.kill()
            if server.stderr is not None:
                server.stderr.close()
    found = [p.name for p in home.rglob("*") if p.is_file() and MARKER.encode() in p.read_bytes()]
    assert found == []
