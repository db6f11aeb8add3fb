"""``salience mcp`` (the MCP server over stdio) and ``salience hook session-start|session-end``
(what a Claude Code hook runs)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import click

from salience.cli import render
from salience.cli.app import cli, open_memory, store_options


@cli.command()
@click.option("--tools", default="salience", show_default=True, help="The tool set to offer.")
@click.option("--project", default=None, help="The project the tools default to.")
@store_options
def mcp(tools: str, project: str | None, home: Path | None, profile: str | None) -> None:
    """Serve MCP over stdio (for Claude Code, Claude Desktop, Cursor, ...)."""
    from salience.mcp_server import create_mcp_server

    with open_memory(home, profile) as memory:
        server = create_mcp_server(memory, tools=tools, profile=profile, project=project)
        server.run()


@cli.group()
def hook() -> None:
    """Commands for an agent host's hooks (Claude Code's SessionStart and SessionEnd)."""


@hook.command(name="session-start")
@click.option("--project", default=None, help="The project the session works on.")
@store_options
def session_start(project: str | None, home: Path | None, profile: str | None) -> None:
    """Print the JSON a SessionStart hook returns: the briefing as additional context."""
    with open_memory(home, profile) as memory:
        text = memory.briefing(profile, project=project).text
    out = {
        "continue": True,
        "hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": text},
    }
    click.echo(json.dumps(out, ensure_ascii=False))


def _last_assistant_text(transcript: Path) -> str | None:
    """The last thing the assistant said in a Claude Code transcript (JSON Lines)."""
    last = None
    try:
        lines = transcript.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return None
    for line in lines:
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        message = entry.get("message") if isinstance(entry, dict) else None
        if not isinstance(message, dict) or message.get("role") != "assistant":
            continue
        content = message.get("content")
        texts = (
            [c.get("text", "") for c in content if isinstance(c, dict)]
            if isinstance(content, list)
            else [str(content)]
        )
        text = " ".join(t for t in texts if t).strip()
        if text:
            last = text
    return last


def _summary(data: dict[str, Any]) -> str:
    given = data.get("summary")
    if isinstance(given, str) and given.strip():
        return given.strip()
    path = data.get("transcript_path")
    said = _last_assistant_text(Path(path)) if isinstance(path, str) else None
    reason = data.get("reason") or "ended"
    head = f"Session ended ({reason})."
    return f"{head} Last: {' '.join(said.split())[:600]}" if said else head


@hook.command(name="session-end")
@store_options
def session_end(home: Path | None, profile: str | None) -> None:
    """Store a session summary from the hook's input (JSON on stdin: a summary, or the
    transcript's last assistant message)."""
    raw = sys.stdin.buffer.read()
    try:
        data = json.loads(raw.decode("utf-8")) if raw.strip() else {}
    except (UnicodeDecodeError, ValueError) as exc:
        raise click.UsageError(f"the hook input is not JSON: {exc}") from None
    if not isinstance(data, dict):
        raise click.UsageError("the hook input must be a JSON object")
    with open_memory(home, profile) as memory:
        memory.session_start()
        result = memory.session_end(None, _summary(data))
    render.emit_write(result, as_json=False)
