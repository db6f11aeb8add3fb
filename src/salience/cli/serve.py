"""``salience serve`` (the HTTP API) and ``salience keys create|list|revoke``."""

from __future__ import annotations

import contextlib
import os
import signal
import sys
from pathlib import Path
from typing import Any

import click

from salience.cli import render
from salience.cli.app import (
    READ_STORE_META,
    STORE_META,
    USER_META,
    UserError,
    cli,
    json_option,
    keep_in_context,
    open_memory,
    store_options,
)
from salience.cli.newstore import keep_new_store
from salience.models import TRUST
from salience.wire.values import format_time

GRACE_S = 3
"""Seconds a stopping server lets open requests finish (a request waiting for a job ends)."""


@cli.command()
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option("--port", type=click.IntRange(1, 65535), default=8377, show_default=True)
@click.option("--workers", type=click.IntRange(1, 64), default=1, show_default=True)
@click.option(
    "--read-store",
    default=None,
    expose_value=False,
    callback=keep_in_context(READ_STORE_META),
    help="A streaming replica of the PostgreSQL store: recall, briefing, lists and the web UI "
    "read there once it has replayed the caller's writes (default: $SALIENCE_STORE_READ_URL).",
)
@store_options
def serve(
    host: str,
    port: int,
    workers: int,
    home: Path | None,
    profile: str | None,
) -> None:
    """Serve the HTTP API (docs at /docs). With no API key it serves one user, on loopback."""
    import uvicorn

    from salience.cli.warm import announce, withdraw
    from salience.server.context import is_loopback

    environ = dict(os.environ)  # (what the settings were read from: the hook compares)
    with open_memory(home, profile) as memory:
        keyed = memory.has_keys()
        location = memory.store.location
        local = memory.store_file(location, memory.config) is not None
        config = memory.config
    if not keyed and not is_loopback(host):
        raise UserError(
            f"no API key exists, so the server runs in local mode and listens on loopback "
            f"only, not {host}; create a key first: salience keys create --user NAME"
        )
    base = f"http://{host}:{port}"
    mode = (
        "keys mode: every request needs a key, even once every key is revoked"
        if keyed
        else "local mode: one user, no key, loopback peers only"
    )
    render.say(f"salience API on {base} ({mode}); store {location}", err=True)
    render.say(f"  web UI: {base}/   API docs: {base}/docs   MCP: {base}/mcp", err=True)
    # The workers open the same store: the URL as given (with its password), not the
    # location shown above.
    given = click.get_current_context().meta.get(STORE_META)
    os.environ["SALIENCE_STORE_URL"] = given or os.environ.get("SALIENCE_STORE_URL") or location
    if config.store_read_url:  # (--read-store, or the environment's already)
        os.environ["SALIENCE_STORE_READ_URL"] = config.store_read_url
    if profile is not None:
        os.environ["SALIENCE_PROFILE"] = profile
    announced = None
    if not keyed and local:  # a session-start hook may ask it
        with contextlib.suppress(OSError):  # (a read-only home: hooks compute their own)
            announced = announce(config.home, base, location, config, environ)
        # uvicorn re-raises SIGTERM once it has shut down: exit through `finally` instead.
        signal.signal(signal.SIGTERM, lambda *_: sys.exit(128 + signal.SIGTERM))
    keep_new_store()  # (stopping the server never takes back what it acknowledged)
    try:
        uvicorn.run(
            "salience.server.app:app_from_env",
            factory=True,
            host=host,
            port=port,
            workers=workers,
            log_level="warning",
            # On SIGTERM, requests still waiting for a job get GRACE_S seconds, then the
            # engine stops its jobs (at their next check): the server is gone in seconds.
            timeout_graceful_shutdown=GRACE_S,
        )
    finally:
        if announced is not None:
            withdraw(announced)


@cli.group()
def keys() -> None:
    """API keys of the HTTP server: each belongs to one user; stored hashed, shown once."""


def _key_json(record: Any) -> dict[str, Any]:
    return {
        "id": record.id,
        "user": record.user,
        "read_only": record.read_only,
        "admin": record.admin,
        "created_at": format_time(record.created_at),
        "revoked_at": None if record.revoked_at is None else format_time(record.revoked_at),
        "label": record.label,
        "source": record.source,
        "agent": record.agent,
        "spaces": None if record.spaces is None else dict(record.spaces),
    }


@keys.command(name="create")
@click.option("--read-only", is_flag=True, help="The key cannot write.")
@click.option("--admin", is_flag=True, help="The key may act for any user.")
@click.option("--label", default=None, help="A note to tell keys apart.")
@click.option(
    "--source",
    type=click.Choice(list(TRUST)),
    default="user",
    show_default=True,
    help="The highest source its writes may claim (agent: a key an agent uses).",
)
@click.option("--agent", default=None, help="The agent its writes name (ci-bot).")
@click.option(
    "--space",
    "spaces",
    multiple=True,
    metavar="SPACE:RIGHT",
    help="Narrow it to this space and right (payments:read); repeatable. Never wider than "
    "the user's own grants.",
)
@store_options
@json_option
def create(
    read_only: bool,
    admin: bool,
    label: str | None,
    source: str,
    agent: str | None,
    spaces: tuple[str, ...],
    home: Path | None,
    profile: str | None,
    as_json: bool,
) -> None:
    """Make a key for the user named by --user and print it once (only its hash is kept)."""

    owner = click.get_current_context().meta.get(USER_META)
    if owner is None:
        raise click.UsageError("name the key's user (its tenant) with --user NAME")
    with open_memory(home, profile) as memory:
        made = memory.create_key(
            user=owner,
            read_only=read_only,
            admin=admin,
            label=label,
            source=source,
            agent=agent,
            spaces=spaces or None,
        )
    if as_json:
        render.emit_json({**_key_json(made.record), "key": made.key})
        return
    render.say(made.key)
    render.say(f"key {made.record.id} for user {owner!r}: shown once, store it now", err=True)


@keys.command(name="list")
@store_options
@json_option
def list_(home: Path | None, profile: str | None, as_json: bool) -> None:
    """The keys: id, user, rights, made, revoked (never the keys themselves)."""
    with open_memory(home, profile, create=False) as memory:
        records = memory.api_keys()
    if as_json:
        render.emit_json([_key_json(r) for r in records])
        return
    if not records:
        render.say("no keys (the server runs in local mode)")
    for r in records:
        rights = "admin" if r.admin else "read-only" if r.read_only else "read-write"
        state = f"revoked {r.revoked_at:%Y-%m-%d}" if r.revoked_at else "active"
        render.say(
            f"{r.id}  {r.user:<16} {rights:<10} {r.source:<6} {r.created_at:%Y-%m-%d}  {state}"
        )


@keys.command()
@click.argument("key_id")
@store_options
def revoke(key_id: str, home: Path | None, profile: str | None) -> None:
    """Revoke the key KEY_ID: every request with it is refused from now on."""

    with open_memory(home, profile, create=False) as memory:
        record = memory.revoke_key(key_id)
    render.say(f"revoked key {record.id} of user {record.user!r}")
