"""``salience doctor``: a healthy install passes every check; each failure planted on
purpose is found, and says how to fix it."""

from __future__ import annotations

import json
import sqlite3
import subprocess
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from salience.cli import cli, doctor
from tests.running import run


@pytest.fixture
def place(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A home of its own (hosts' files), a store in it, and the slow checks (the MCP
    handshake, the hook's subprocess) stood in for: they have their own tests below."""
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("SALIENCE_HOME", str(tmp_path / "store"))
    monkeypatch.setenv("SALIENCE_EMBEDDER", "none")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(doctor, "_mcp", lambda home: doctor._ok("mcp", "stood in"))
    monkeypatch.setattr(doctor, "_hook", lambda home: doctor._ok("hook", "stood in"))
    made = CliRunner().invoke(cli, ["remember", "Deploys go through ops/deploy.sh", "--force"])
    assert made.exit_code == 0, made.output
    return tmp_path


def _doctor() -> tuple[Result, dict[str, dict[str, str]]]:
    ran = CliRunner().invoke(cli, ["doctor", "--json"])
    found = json.loads(ran.stdout) if ran.stdout.startswith("[") else []
    return ran, {f["check"]: f for f in found}


def test_a_healthy_store_passes(place: Path) -> None:
    ran, found = _doctor()
    assert ran.exit_code == 0, ran.output
    assert found["store"]["status"] == "ok"
    assert found["integrity"]["status"] == "ok"
    assert found["full text"]["status"] == "ok"
    assert found["model"]["status"] == "warn"  # (SALIENCE_EMBEDDER=none: full text only)
    assert "SALIENCE_EMBEDDER=minilm" in found["model"]["fix"]


def test_no_store_fails_saying_so(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SALIENCE_HOME", str(tmp_path / "nowhere"))
    ran, found = _doctor()
    assert ran.exit_code == 1
    assert found["store"]["status"] == "fail"


def test_a_damaged_store_fails(place: Path) -> None:
    path = place / "store" / "salience.db"
    data = bytearray(path.read_bytes())
    data[4096 : 4096 * 12] = b"\xff" * (4096 * 11)  # (eleven pages of the file overwritten)
    path.write_bytes(bytes(data))
    ran, found = _doctor()
    assert ran.exit_code == 1
    failed = [f for f in found.values() if f["status"] == "fail"]
    assert failed
    assert all(f["fix"] for f in failed)


def test_a_stale_full_text_index_fails(place: Path) -> None:
    with sqlite3.connect(place / "store" / "salience.db") as conn:
        conn.execute("DELETE FROM memory_fts")
    ran, found = _doctor()
    assert ran.exit_code == 1
    assert found["full text"]["status"] == "fail"
    assert "misses 1 of the 1" in found["full text"]["detail"]


def test_memories_without_vectors_ask_for_a_reindex(
    place: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SALIENCE_EMBEDDER", "minilm")
    _, found = _doctor()
    assert found["vectors"]["status"] == "warn"
    assert found["vectors"]["fix"] == "salience reindex"
    assert found["model"]["status"] == "ok"


def test_a_host_pointing_elsewhere_is_named_with_its_fix(place: Path) -> None:
    cursor = place / ".cursor" / "mcp.json"
    cursor.parent.mkdir()
    old = {"command": "/opt/old/bin/salience", "args": ["mcp"]}
    cursor.write_text(json.dumps({"mcpServers": {"salience": old}}))
    _, found = _doctor()
    assert found["cursor (user)"]["status"] == "warn"
    assert "/opt/old/bin/salience" in found["cursor (user)"]["detail"]
    assert found["cursor (user)"]["fix"] == "salience connect cursor"
    assert CliRunner().invoke(cli, ["connect", "cursor"]).exit_code == 0
    _, fixed = _doctor()
    assert fixed["cursor (user)"]["status"] == "ok"


def test_the_servers_mode_is_told(place: Path) -> None:
    _, found = _doctor()
    assert "local mode" in found["server"]["detail"]
    assert CliRunner().invoke(cli, ["keys", "create", "--user", "alice"]).exit_code == 0
    _, keyed = _doctor()
    assert "keys mode" in keyed["server"]["detail"]


def test_an_mcp_server_that_does_not_answer_fails(tmp_path: Path) -> None:
    found = doctor._mcp(tmp_path, command=("false",))
    assert found.status == "fail"
    assert "handshake" in found.detail


def test_a_hook_that_fails_or_is_slow_is_found(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("salience.cli.warm.warm_hook", lambda args: None)  # (no warm server)

    def ran(code: int) -> Any:
        return lambda *a, **k: subprocess.CompletedProcess([], code, "", "")

    assert doctor._hook(tmp_path, runner=ran(1)).status == "fail"
    monkeypatch.setattr(doctor, "HOOK_BUDGET_S", -1.0)  # (any run is past a negative budget)
    slow = doctor._hook(tmp_path, runner=ran(0))
    assert slow.status == "warn"
    assert "salience serve" in slow.fix


@pytest.mark.process
def test_the_real_checks_pass_on_a_real_store(tmp_path: Path) -> None:
    """The MCP handshake (the official SDK against ``salience mcp``) and the hook, for real."""
    import os
    import sys

    env = {
        **os.environ,
        "HOME": str(tmp_path),
        "SALIENCE_HOME": str(tmp_path / "store"),
        "SALIENCE_EMBEDDER": "none",
    }
    salience = [sys.executable, "-m", "salience"]
    run(*salience, "remember", "Backups run nightly", "--force", env=env, cwd=tmp_path)
    report = run(*salience, "doctor", "--json", env=env, cwd=tmp_path, timeout=180)
    found = {f["check"]: f for f in json.loads(report)}
    assert found["mcp"]["status"] == "ok"
    assert "tools" in found["mcp"]["detail"]
    assert found["hook"]["status"] == "ok"
