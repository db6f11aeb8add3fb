"""``salience mcp`` (the MCP server over stdio) and ``salience hook session-start|session-end``
(what a Claude Code hook runs)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import click

from salience.cli import render
from salience.cli.app import UserError, cli, open_memory, store_options
from salience.cli.newstore import keep_new_store
from salience.cli.warm import hook_output
from salience.mcp_server.registry import DEFAULT as DEFAULT_TOOLS
from salience.mcp_server.registry import TOOL_SETS


@cli.command()
@click.option(
    "--tools",
    type=click.Choice(list(TOOL_SETS)),
    default=DEFAULT_TOOLS,
    show_default=True,
    help="salience's tools, or an original's (same names, parameters and results).",
)
@click.option("--project", default=None, help="The project the tools default to.")
@store_options
def mcp(tools: str, project: str | None, home: Path | None, profile: str | None) -> None:
    """Serve MCP over stdio (for Claude Code, Claude Desktop, Cursor, ...)."""
    from salience.mcp_server import create_mcp_server

    with open_memory(home, profile) as memory:
        server = create_mcp_server(memory, tools=tools, profile=profile, project=project)
        memory.long_running()
        keep_new_store()  # (stopping the server never takes back what it acknowledged)
        server.run()


@cli.group()
def hook() -> None:
    """Commands for an agent host's hooks (Claude Code's SessionStart and SessionEnd)."""


@hook.command(name="session-start")
@click.option("--project", default=None, help="The project the session works on.")
@store_options
def session_start(project: str | None, home: Path | None, profile: str | None) -> None:
    """Print the JSON a SessionStart hook returns: the briefing as additional context (empty,
    with a note on stderr, when there is no store yet: reading never creates one)."""
    try:
        memory = open_memory(home, profile, create=False)
    except UserError as exc:
        render.say(str(exc), err=True)
        text = ""
    else:
        with memory:
            text = memory.briefing(profile, project=project).context
    click.echo(hook_output(text))


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


def _summary(data: dict[str, Any]) -> str | None:
    """The hook input's summary, else the transcript's last assistant message (None: there
    is nothing to say, and a bare "Session ended" would be a memory of nothing)."""
    given = data.get("summary")
    if isinstance(given, str) and given.strip():
        return given.strip()
    path = data.get("transcript_path")
    said = _last_assistant_text(Path(path)) if isinstance(path, str) else None
    if not said:
        return None
    reason = data.get("reason") or "ended"
    return f"Session ended ({reason}). Last: {' '.join(said.split())[:600]}"


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
    summary = _summary(data)
    if summary is None:
        render.say(
            "nothing stored: the hook input has no summary and no readable transcript",
            err=True,
        )
        return
    with open_memory(home, profile) as memory:
        memory.session_start()
        result = memory.session_end(summary)
    render.emit_write(result, as_json=False)


@cli.group()
def decision() -> None:
    """Decisions (aide's record): per topic, append-only, the latest wins."""


@decision.command(name="set")
@click.argument("topic")
@click.argument("text")
@click.option("--rationale", default=None, help="Why.")
@click.option("--precedence", type=click.IntRange(-1_000_000, 1_000_000), default=0)
@store_options
def decision_set(
    topic: str,
    text: str,
    rationale: str | None,
    precedence: int,
    home: Path | None,
    profile: str | None,
) -> None:
    """Decide TEXT on TOPIC (kebab-case); the topic's current decision is superseded."""
    with open_memory(home, profile) as memory:
        result = memory.decide(topic, text, rationale=rationale, precedence=precedence)
    render.emit_write(result, as_json=False)


@decision.command(name="get")
@click.argument("topic")
@store_options
def decision_get(topic: str, home: Path | None, profile: str | None) -> None:
    """The current decision on TOPIC."""
    from salience.mcp_server.aide import decision_markdown

    with open_memory(home, profile, create=False) as memory:
        found = memory.decision(topic)
    render.say(decision_markdown(found, f"# Decision: {topic}"))


@decision.command(name="history")
@click.argument("topic")
@store_options
def decision_history(topic: str, home: Path | None, profile: str | None) -> None:
    """Every decision on TOPIC, oldest first (the last is current)."""
    with open_memory(home, profile, create=False) as memory:
        history = memory.decision_history(topic)
    for d in history:
        why = f"  ({d.rationale})" if d.rationale else ""
        render.say(f"{d.memory.created_at:%Y-%m-%d %H:%M}  {d.decision}{why}")


@decision.command(name="list")
@store_options
def decision_list(home: Path | None, profile: str | None) -> None:
    """The current decision of every topic."""
    with open_memory(home, profile, create=False) as memory:
        found = memory.decisions()
    if not found:
        render.say("no decisions")
    for d in found:
        render.say(f"{d.topic}: {d.decision}")
