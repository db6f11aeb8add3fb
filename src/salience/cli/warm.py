"""``salience hook session-start`` answered by a running ``salience serve``, no engine loaded.

A local-mode ``salience serve`` (no API key: one user, loopback) writes ``serving.json`` in its
home: its address, process id, store, user and settings. A session-start hook for the default
store of the same home, with the same user and settings, asks that server for the briefing
over loopback (a short timeout) and prints what it would have computed: the same briefing,
recorded as the cold hook records it. Anything else (no server, another store, user or
settings, a server gone, an error, a timeout) answers None and the hook computes the briefing
in its own process. This module imports nothing of the engine: the point is a hook that
costs a Python start and one request.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from salience.config import Config

SERVING = "serving.json"
TIMEOUT_S = 2.0
OPTIONS = ("--project", "--home", "--profile", "--user")


def announce(home: Path, url: str, store: str, config: Config) -> Path:
    """Say that this process serves ``store`` for ``config.user`` at ``url``, with these
    settings (owner only)."""
    path = home / SERVING
    data = {
        "pid": os.getpid(),
        "url": url,
        "store": store,
        "user": config.user,
        "settings": fingerprint(config),
    }
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        json.dump(data, handle)
    return path


def fingerprint(config: Config) -> str:
    """The settings a briefing may read, hashed (not the home, store, user or profile, which
    are compared or sent apart; no secret): a hook run with other settings than the server's
    (another budget, say) computes its own briefing."""
    import hashlib
    from dataclasses import fields

    apart = ("home", "store_url", "user", "profile")
    shown = sorted(
        (f.name, repr(getattr(config, f.name)))
        for f in fields(config)
        if f.repr and f.name not in apart
    )
    return hashlib.sha256(repr(shown).encode()).hexdigest()


def withdraw(path: Path) -> None:
    """Take the announcement back (if it is still this process's)."""
    found = _read(path)
    if found is not None and found.get("pid") == os.getpid():
        path.unlink(missing_ok=True)


def warm_hook(args: list[str]) -> str | None:
    """The hook's output from a running server, or None (compute it here)."""
    given = _options(args)
    if given is None or os.environ.get("SALIENCE_STORE_URL"):
        return None
    from salience.config import Config  # (light: no engine)

    try:
        config = Config.for_home(given["--home"]) if "--home" in given else Config.from_env()
    except Exception:  # a bad setting: the cold hook says what is wrong
        return None
    found = _read(config.home / SERVING)
    user = given.get("--user", config.user)
    if (
        found is None
        or found.get("user") != user
        or found.get("settings") != fingerprint(config)
        or not _same_file(found.get("store"), config.db_path)
        or not _alive(found.get("pid"))
    ):
        return None
    body: dict[str, object] = {
        "profile": given.get("--profile", config.profile),
        "project": given.get("--project"),
        "manifest": False,  # (the text alone: at 10k memories the manifest is a megabyte)
    }
    answer = _post(str(found.get("url", "")) + "/v1/briefing", body)
    if answer is None or not isinstance(answer.get("context"), str):
        return None
    return hook_output(answer["context"])


def hook_output(context: str) -> str:
    """What a SessionStart hook prints: the briefing as additional context."""
    out = {
        "continue": True,
        "hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": context},
    }
    return json.dumps(out, ensure_ascii=False)


def _options(args: list[str]) -> dict[str, str] | None:
    """``--name value`` pairs of the hook's own options; None for anything else."""
    given: dict[str, str] = {}
    rest = list(args)
    while rest:
        name = rest.pop(0)
        value = None
        if "=" in name:
            name, value = name.split("=", 1)
        elif rest:
            value = rest.pop(0)
        if name not in OPTIONS or value is None or name in given:
            return None
        given[name] = value
    return given


def _read(path: Path) -> dict[str, Any] | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def _same_file(store: object, path: Path) -> bool:
    try:
        return isinstance(store, str) and Path(store).resolve() == path.resolve()
    except OSError:
        return False


def _alive(pid: object) -> bool:
    if not isinstance(pid, int) or pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except OSError:
        return False
    return True


def _post(url: str, body: dict[str, object]) -> dict[str, Any] | None:
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    if parts.scheme != "http" or parts.hostname not in ("127.0.0.1", "localhost", "::1"):
        return None  # (loopback only: the announcement is trusted no further)
    import http.client

    try:
        conn = http.client.HTTPConnection(parts.hostname, parts.port or 80, timeout=TIMEOUT_S)
        conn.request("POST", parts.path, json.dumps(body), {"Content-Type": "application/json"})
        response = conn.getresponse()
        data = json.loads(response.read()) if response.status == 200 else None
        conn.close()
    except (OSError, ValueError, http.client.HTTPException):
        return None
    return data if isinstance(data, dict) else None
