"""``salience doctor``: checks what an agent relies on, and says how to fix each finding: the
store opens and is whole, the model loads and embeds, the full-text and vector indexes hold
every memory, the MCP server answers a real handshake, the session-start hook answers within
its budget (and whether a warm server serves it), each connected host points at this install
and this store, and the server's mode fits how it may be started."""

from __future__ import annotations

import asyncio
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from salience.cli import render
from salience.cli.app import UserError, cli, json_option, store_options

HOOK_BUDGET_S = 2.0
"""How long a session-start hook may take: the agent waits for it before its first turn."""
SAMPLE = 25
"""How many recent memories the full-text check looks for."""


@dataclass(frozen=True)
class Finding:
    """One check: ``ok``, ``warn`` (works, but not as well as it could) or ``fail``."""

    check: str
    status: str
    detail: str
    fix: str = ""


def _ok(check: str, detail: str) -> Finding:
    return Finding(check, "ok", detail)


@cli.command()
@store_options
@json_option
def doctor(home: Path | None, profile: str | None, as_json: bool) -> None:
    """Check the store, the model, the indexes, MCP, the hook, connected hosts and the
    server's mode; each finding says how to fix it. Exit code 1 if a check fails."""
    from salience.cli.app import open_memory

    findings: list[Finding] = []
    from salience.errors import SalienceError

    try:
        memory = open_memory(home, profile, create=False)
    except (UserError, SalienceError) as exc:
        said = exc.message if isinstance(exc, UserError) else str(exc)
        findings.append(Finding("store", "fail", said, "as the message says"))
        _report(findings, as_json)
        return
    with memory:
        for check in (_store, _model, _indexes, _mode):
            findings += check(memory)
    config_home = memory.config.home
    findings.append(_mcp(config_home))
    findings.append(_hook(config_home))
    findings += _hosts(config_home)
    _report(findings, as_json)


def _report(findings: list[Finding], as_json: bool) -> None:
    if as_json:
        render.emit_json([asdict(f) for f in findings])
    else:
        marks = {"ok": "ok  ", "warn": "warn", "fail": "FAIL"}
        for f in findings:
            render.say(
                f"{marks[f.status]} {f.check}: {f.detail}" + (f" — {f.fix}" if f.fix else "")
            )
    failed = [f.check for f in findings if f.status == "fail"]
    if failed:
        raise UserError(f"{len(failed)} check(s) failed: {', '.join(failed)}")


def _store(memory: Any) -> list[Finding]:
    location = memory.store.location
    stats = memory.stats(user=_all())
    found = [_ok("store", f"{location} opens: {stats.total} memories, schema {stats.schema}")]
    if Path(location).is_file():
        try:
            with sqlite3.connect(f"{Path(location).resolve().as_uri()}?mode=ro", uri=True) as conn:
                answer = conn.execute("PRAGMA quick_check").fetchone()[0]
        except sqlite3.Error as exc:
            answer = str(exc)
        if answer != "ok":
            found.append(
                Finding(
                    "integrity",
                    "fail",
                    f"SQLite's quick_check says: {answer}",
                    "copy out what reads with salience export, then restore a backup",
                )
            )
        else:
            found.append(_ok("integrity", "SQLite's quick_check passes"))
    return found


def _model(memory: Any) -> list[Finding]:
    embedder = memory.vectors.embedder
    if embedder is None:
        return [
            Finding(
                "model",
                "warn",
                "no embedder: recall is full text only",
                "SALIENCE_EMBEDDER=minilm (bundled, offline), then salience reindex",
            )
        ]
    try:
        started = time.perf_counter()
        vector = embedder.embed(["salience doctor checks that the model embeds"])[0]
        took = (time.perf_counter() - started) * 1000
    except Exception as exc:  # (any embedder failure is the finding itself)
        return [
            Finding(
                "model",
                "fail",
                f"{embedder.identity} cannot embed: {type(exc).__name__}",
                "check SALIENCE_EMBEDDER and its URL or model (docs/configuration.md)",
            )
        ]
    return [_ok("model", f"{embedder.identity} embeds ({len(vector)} dimensions, {took:.0f} ms)")]


def _indexes(memory: Any) -> list[Finding]:
    found = []
    if memory.vectors.embedder is not None:
        missing = memory.missing_vectors()
        if missing:
            found.append(
                Finding("vectors", "warn", f"{missing} memories have no vector", "salience reindex")
            )
        else:
            found.append(_ok("vectors", "every memory has its vector"))
    unfound, looked = memory.unfound_by_text(SAMPLE)
    if unfound:
        found.append(
            Finding(
                "full text",
                "fail",
                f"the full-text index misses {unfound} of the {looked} newest memories",
                "salience reindex (adds what the index lacks)",
            )
        )
    else:
        found.append(_ok("full text", f"finds each of the {looked} newest memories"))
    return found


def _mode(memory: Any) -> list[Finding]:

    if memory.has_keys():
        return [_ok("server", "keys mode: salience serve may listen on any address")]
    return [
        _ok(
            "server",
            "local mode: salience serve listens on loopback only (make a key "
            "with salience keys create to serve other hosts)",
        )
    ]


SALIENCE = (sys.executable, "-m", "salience")


def _mcp(home: Path, command: tuple[str, ...] = SALIENCE) -> Finding:
    """A real MCP handshake with ``salience mcp`` over stdio, through the official SDK."""
    from mcp import Client, StdioServerParameters

    params = StdioServerParameters(
        command=command[0], args=[*command[1:], "mcp", "--home", str(home)]
    )

    async def handshake() -> int:
        async with Client(params) as client:
            return len((await client.list_tools()).tools)

    try:
        tools = asyncio.run(asyncio.wait_for(handshake(), timeout=60))
    except Exception as exc:  # (the failure to connect is the finding)
        return Finding(
            "mcp",
            "fail",
            f"salience mcp did not complete a handshake ({type(exc).__name__})",
            "run salience mcp by hand and read what it says",
        )
    return _ok("mcp", f"salience mcp answers the handshake with {tools} tools")


def _hook(home: Path, runner: Callable[..., Any] = subprocess.run) -> Finding:
    from salience.cli.warm import warm_hook

    started = time.perf_counter()
    if warm_hook(["--home", str(home)]) is not None:
        took = time.perf_counter() - started
        return _ok("hook", f"a warm server answers the session-start hook in {took * 1000:.0f} ms")
    started = time.perf_counter()
    ran = runner(
        [sys.executable, "-m", "salience", "hook", "session-start", "--home", str(home)],
        input="{}",
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    took = time.perf_counter() - started
    if ran.returncode != 0:
        return Finding(
            "hook",
            "fail",
            "salience hook session-start failed",
            "run it by hand: salience hook session-start",
        )
    if took > HOOK_BUDGET_S:
        return Finding(
            "hook",
            "warn",
            f"the session-start hook took {took:.1f} s (its budget: {HOOK_BUDGET_S:g} s)",
            "run salience serve: the hook asks a warm server first",
        )
    return _ok("hook", f"the session-start hook answers in {took * 1000:.0f} ms (no warm server)")


def _hosts(home: Path) -> list[Finding]:
    """Each host whose configuration names salience: does it start this install, on this
    store?"""
    from salience.cli.connect import launch_for
    from salience.cli.hosts import HOSTS, HostConfigError, read_json

    here = launch_for(home)
    found = []
    seen: set[Path] = set()
    for name, host in sorted(HOSTS.items()):
        for scope, where in host.files.items():
            path = where(Path.home(), Path.cwd())
            if not path.is_file() or path in seen:
                continue
            seen.add(path)
            try:
                entry = _entry(path, host.key, host.toml, read_json)
            except (HostConfigError, ValueError) as exc:
                found.append(Finding(f"{name} ({scope})", "warn", f"{path} cannot be read: {exc}"))
                continue
            if entry is None:
                continue
            command = str(entry.get("command", ""))
            store = (entry.get("env") or {}).get("SALIENCE_HOME")
            if command != here.command or store != str(home):
                found.append(
                    Finding(
                        f"{name} ({scope})",
                        "warn",
                        f"{path} starts {command or '?'} on {store or 'its default store'}",
                        f"salience connect {name}"
                        + (" --scope project" if scope == "project" else ""),
                    )
                )
            else:
                found.append(_ok(f"{name} ({scope})", f"{path} starts this install on this store"))
    return found


def _entry(
    path: Path, key: str, toml: bool, read_json: Callable[[Path], dict[str, Any]]
) -> dict[str, Any] | None:
    if toml:
        import tomllib

        data: dict[str, Any] = tomllib.loads(path.read_text(encoding="utf-8"))
    else:
        data = read_json(path)
    entry = (data.get(key) or {}).get("salience")
    return entry if isinstance(entry, dict) else None


def _all() -> Any:
    from salience.models import ALL_USERS

    return ALL_USERS
