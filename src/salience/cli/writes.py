"""``salience remember|update|supersede|forget``: the commands that write memories."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import click

from salience.cli import render
from salience.cli.app import UserError, cli, json_option, open_memory, read_text, store_options
from salience.models import SOURCES

if TYPE_CHECKING:
    from salience.engine.memory import Memory

F = TypeVar("F", bound=Callable[..., Any])

_FIELD_OPTIONS: tuple[tuple[str, str, Any, str], ...] = (
    ("--type", "type", str, "Memory type (e.g. observation, insight, decision)."),
    ("--title", "title", str, "A one-line title or summary."),
    ("--project", "project", str, "Project the memory belongs to."),
    ("--topic-key", "topic_key", str, "Stable topic key (e.g. auth/session-storage)."),
    ("--source", "source", click.Choice(SOURCES), "Where the memory came from."),
    ("--importance", "importance", float, "Importance in [0, 1] (default 0.5)."),
    ("--confidence", "confidence", float, "Confidence in [0, 1]."),
    ("--priority", "priority", float, "Manual priority; non-zero pins the score."),
    ("--session", "session_id", str, "Session the memory was written in."),
)


def field_options(func: F) -> F:
    """The record fields a write may set, as options that default to 'not given'."""
    for flag, dest, kind, help_text in reversed(_FIELD_OPTIONS):
        func = click.option(flag, dest, type=kind, default=None, help=help_text)(func)
    return func


def _given(values: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in values.items() if v is not None}


@cli.command()
@click.argument("content")
@field_options
@click.option("--space", default=None, help="Write it into this space (you need write on it).")
@click.option("--agent", default=None, help="The agent that writes it (ci-bot).")
@click.option("--tag", "tags", multiple=True, help="A tag (repeatable), e.g. project:api.")
@click.option("--force", is_flag=True, help="Bypass the signal gate (never the secret scanner).")
@store_options
@json_option
def remember(
    content: str,
    tags: tuple[str, ...],
    force: bool,
    home: Path | None,
    profile: str | None,
    as_json: bool,
    **fields: Any,
) -> None:
    """Store a memory. CONTENT is the text, or - to read it from standard input. Written
    while the user's session is open (the session-start hook opens one), it belongs to that
    session unless --session names another."""
    text = read_text(content)
    given = _given(fields)
    with open_memory(home, profile) as memory:
        if "session_id" not in given:
            session = memory.current_session(user=given.get("user"))
            if session is not None:
                given["session_id"] = session.id
        result = memory.remember(text, tags=list(tags), force=force, **given)
    render.emit_write(result, as_json)


@cli.command()
@click.argument("memory_id")
@click.option("--content", default=None, help="New content, or - to read it from stdin.")
@field_options
@click.option("--tag", "tags", multiple=True, help="Replace the tags with these (repeatable).")
@click.option("--add-tag", multiple=True, help="Add a tag (repeatable).")
@click.option("--remove-tag", multiple=True, help="Remove a tag (repeatable).")
@click.option("--disable/--enable", "disabled", default=None, help="Hide from briefings or not.")
@store_options
@json_option
def update(
    memory_id: str,
    content: str | None,
    tags: tuple[str, ...],
    add_tag: tuple[str, ...],
    remove_tag: tuple[str, ...],
    disabled: bool | None,
    home: Path | None,
    profile: str | None,
    as_json: bool,
    **fields: Any,
) -> None:
    """Change fields of a memory in place (new content counts a revision)."""
    changes = _given(fields)
    if content is not None:
        changes["content"] = read_text(content)
    if disabled is not None:
        changes["enabled"] = not disabled
    with open_memory(home, profile) as memory:
        if tags or add_tag or remove_tag:
            current = list(tags) if tags else list(memory.get(memory_id).tags)
            current += [t for t in add_tag if t not in current]
            changes["tags"] = [t for t in current if t not in remove_tag]
        if not changes:
            raise click.UsageError("nothing to update: give --content or a field option")
        result = memory.update(memory_id, **changes)
    render.emit_write(result, as_json)


@cli.command()
@click.argument("memory_id")
@click.argument("content")
@field_options
@click.option("--tag", "tags", multiple=True, help="Tags of the new version (default: kept).")
@store_options
@json_option
def supersede(
    memory_id: str,
    content: str,
    tags: tuple[str, ...],
    home: Path | None,
    profile: str | None,
    as_json: bool,
    **fields: Any,
) -> None:
    """Replace MEMORY_ID with a new version whose text is CONTENT (- reads stdin)."""
    changes = _given(fields)
    if tags:
        changes["tags"] = list(tags)
    with open_memory(home, profile) as memory:
        result = memory.supersede(memory_id, read_text(content), **changes)
    render.emit_write(result, as_json)


@cli.command()
@click.argument("memory_id")
@click.option("--reason", default="forgotten on request", show_default=True)
@click.option("--purge", is_flag=True, help="Delete for good instead (cannot be undone).")
@click.option(
    "--wait",
    "wait",
    type=click.IntRange(0, 86_400),
    default=None,
    is_flag=False,
    flag_value=600,
    help="With --purge: if a reader holds the store's files, wait (up to SECONDS, 600 when "
    "not given) until the erasure completes; exit 1 if it has not.",
)
@store_options
@json_option
def forget(
    memory_id: str,
    reason: str,
    purge: bool,
    wait: int | None,
    home: Path | None,
    profile: str | None,
    as_json: bool,
) -> None:
    """Forget a memory (softly: it stays readable in history), or --purge it."""
    if wait is not None and not purge:
        raise click.UsageError("--wait goes with --purge")
    with open_memory(home, profile) as memory:
        result = memory.purge(memory_id) if purge else memory.forget(memory_id, reason)
        settled = wait is None or _settled(memory, wait)
    render.emit_write(result, as_json)
    if not settled:
        raise UserError(f"the erasure is still pending after {wait} s: a reader holds the store")


def _settled(memory: Memory, seconds: int) -> bool:
    """Retry a pending erasure until it completes or ``seconds`` pass (each try scrubs
    again: a reader that closed lets it go)."""
    deadline = time.monotonic() + seconds
    pause = 0.05
    while not memory.settle_erasure():
        if time.monotonic() >= deadline:
            return False
        time.sleep(min(pause, max(0.0, deadline - time.monotonic())))
        pause = min(pause * 2, 2.0)
    return True
