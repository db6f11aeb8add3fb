"""Where each agent host keeps its MCP servers (and Claude Code its hooks), and how
``salience connect`` merges salience into those files: JSON (keeping every other entry) or,
for Codex, TOML (its ``[mcp_servers.salience]`` table replaced or appended, the rest of the
file as written). A file that cannot be read as it must be is refused, untouched."""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

NAME = "salience"
HOOK_EVENTS = (("SessionStart", "session-start"), ("SessionEnd", "session-end"))


class HostConfigError(Exception):
    """The host's file is not what the host itself writes: left as it is."""


@dataclass(frozen=True)
class Launch:
    """How a host starts salience: the executable, its arguments and the environment that
    names the store (a host may pass no environment of its own)."""

    command: str
    args: tuple[str, ...]
    env: dict[str, str]
    prefix: tuple[str, ...] = ()  # (``-m salience`` when started through Python)

    def shell(self, *args: str) -> str:
        """The launch as one shell command line (a hook's ``command``)."""
        import shlex

        assigned = [f"{k}={shlex.quote(v)}" for k, v in self.env.items()]
        words = [self.command, *self.prefix, *args]
        return " ".join([*assigned, *map(shlex.quote, words)])


@dataclass(frozen=True)
class Host:
    """One agent host: its MCP file per scope, the key its servers sit under, the shape of
    an entry, and whether it has session hooks (and where)."""

    name: str
    files: dict[str, Callable[[Path, Path], Path]]  # scope -> (home, project) -> file
    default_scope: str
    key: str
    entry: Callable[[Launch], dict[str, Any]]
    hooks: dict[str, Callable[[Path, Path], Path]] | None = None
    toml: bool = False


def _stdio(launch: Launch) -> dict[str, Any]:
    return {"command": launch.command, "args": list(launch.args), "env": dict(launch.env)}


def _vscode(launch: Launch) -> dict[str, Any]:
    return {"type": "stdio", **_stdio(launch)}


def _desktop(home: Path, project: Path) -> Path:
    if sys.platform == "darwin":
        return home / "Library" / "Application Support" / "Claude" / "claude_desktop_config.json"
    return home / ".config" / "Claude" / "claude_desktop_config.json"


def _vscode_user(home: Path, project: Path) -> Path:
    if sys.platform == "darwin":
        return home / "Library" / "Application Support" / "Code" / "User" / "mcp.json"
    return home / ".config" / "Code" / "User" / "mcp.json"


HOSTS: dict[str, Host] = {
    "claude-code": Host(
        "claude-code",
        {"user": lambda h, p: h / ".claude.json", "project": lambda h, p: p / ".mcp.json"},
        "user",
        "mcpServers",
        _stdio,
        hooks={
            "user": lambda h, p: h / ".claude" / "settings.json",
            "project": lambda h, p: p / ".claude" / "settings.json",
        },
    ),
    "claude-desktop": Host("claude-desktop", {"user": _desktop}, "user", "mcpServers", _stdio),
    "cursor": Host(
        "cursor",
        {
            "user": lambda h, p: h / ".cursor" / "mcp.json",
            "project": lambda h, p: p / ".cursor" / "mcp.json",
        },
        "user",
        "mcpServers",
        _stdio,
    ),
    "vscode": Host(
        "vscode",
        {"project": lambda h, p: p / ".vscode" / "mcp.json", "user": _vscode_user},
        "project",
        "servers",
        _vscode,
    ),
    "codex": Host(
        "codex",
        {"user": lambda h, p: h / ".codex" / "config.toml"},
        "user",
        "mcp_servers",
        _stdio,
        toml=True,
    ),
}
"""Every host ``salience connect`` writes to (any other: ``--print``)."""


# -- JSON -------------------------------------------------------------------------------------


def read_json(path: Path) -> dict[str, Any]:
    """The file's JSON object ({} if the file does not exist)."""
    if not path.exists():
        return {}
    text = path.read_text(encoding="utf-8")
    if not text.strip():
        return {}
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        if re.search(r"^\s*//|/\*", text, re.MULTILINE):
            raise HostConfigError(
                f"{path} has comments, which rewriting it would lose: add the entry by hand "
                "(salience connect --print shows it)"
            ) from None
        raise HostConfigError(f"{path} is not valid JSON ({exc.msg}, line {exc.lineno})") from None
    if not isinstance(data, dict):
        raise HostConfigError(f"{path} is not a JSON object")
    return data


def dump_json(data: dict[str, Any]) -> str:
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def with_server(data: dict[str, Any], key: str, entry: dict[str, Any] | None) -> dict[str, Any]:
    """``data`` with salience's server set to ``entry`` (None: removed) under ``key``."""
    servers = data.get(key, {})
    if not isinstance(servers, dict):
        raise HostConfigError(f"its {key!r} is not an object")
    servers = {k: v for k, v in servers.items() if k != NAME}
    if entry is not None:
        servers[NAME] = entry
    changed = {**data, key: servers}
    if not servers:
        changed.pop(key)
    return changed


def with_hooks(data: dict[str, Any], launch: Launch | None) -> dict[str, Any]:
    """``data`` (Claude Code's settings) with salience's session hooks (None: removed),
    every other hook kept."""
    hooks = data.get("hooks", {})
    if not isinstance(hooks, dict):
        raise HostConfigError("its 'hooks' is not an object")
    changed = dict(hooks)
    for event, verb in HOOK_EVENTS:
        groups = hooks.get(event, [])
        if not isinstance(groups, list):
            raise HostConfigError(f"its hooks.{event} is not a list")
        kept = [g for g in (_without_ours(g, verb) for g in groups) if g is not None]
        if launch is not None:
            kept.append({"hooks": [{"type": "command", "command": launch.shell("hook", verb)}]})
        if kept:
            changed[event] = kept
        else:
            changed.pop(event, None)
    result = {**data, "hooks": changed}
    if not changed:
        result.pop("hooks")
    return result


def _without_ours(group: object, verb: str) -> object | None:
    """A hook group without salience's hook of ``verb`` (None if nothing else is left)."""
    if not isinstance(group, dict) or not isinstance(group.get("hooks"), list):
        return group
    rest = [h for h in group["hooks"] if not _is_ours(h, verb)]
    return {**group, "hooks": rest} if rest else None


def _is_ours(hook: object, verb: str) -> bool:
    command = str(hook.get("command", "")) if isinstance(hook, dict) else ""
    return NAME in command and f"hook {verb}" in command


# -- TOML (Codex) -----------------------------------------------------------------------------

_TABLE = re.compile(r"^\s*\[([^\[\]]+)\]\s*(#.*)?$")


def toml_with_server(text: str, entry: dict[str, Any] | None) -> str:
    """Codex's config.toml with its ``[mcp_servers.salience]`` table (and sub-tables) set to
    ``entry`` (None: removed); every other line as written. Checked to read as TOML."""
    import tomllib

    try:
        tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise HostConfigError(f"it is not valid TOML ({exc})") from None
    lines = text.splitlines(keepends=True)
    kept: list[str] = []
    ours = False
    for line in lines:
        table = _TABLE.match(line)
        if table:
            name = table.group(1).strip().replace('"', "")
            ours = name == f"mcp_servers.{NAME}" or name.startswith(f"mcp_servers.{NAME}.")
        if not ours:
            kept.append(line)
    result = "".join(kept)
    if entry is not None:
        if result and not result.endswith("\n"):
            result += "\n"
        if result.strip():
            result = result.rstrip("\n") + "\n\n"
        result += f"[mcp_servers.{NAME}]\n"
        result += f"command = {json.dumps(entry['command'])}\n"
        result += f"args = {json.dumps(entry['args'])}\n"
        pairs = ", ".join(f"{k} = {json.dumps(v)}" for k, v in entry["env"].items())
        result += f"env = {{ {pairs} }}\n" if pairs else ""
    tomllib.loads(result)  # (what is written reads back)
    return result
