"""``salience connect HOST``: salience's MCP server (and, for Claude Code, its session hooks)
written into the agent host's own configuration, with a backup first; ``--remove`` takes it
out again, ``--dry-run`` shows the change, ``--print`` shows the entry for any other host."""

from __future__ import annotations

import difflib
import os
import shutil
import sys
from pathlib import Path

import click

from salience.cli import render
from salience.cli.app import UserError, cli
from salience.cli.hosts import (
    HOSTS,
    Host,
    HostConfigError,
    Launch,
    dump_json,
    read_json,
    toml_with_server,
    with_hooks,
    with_server,
)

MODULE = ("-m", "salience")
"""How this install is started when it has no ``salience`` command of its own."""


def launch_for(home: Path | None) -> Launch:
    """How a host starts this install: its own ``salience`` executable, and the store named
    by ``SALIENCE_HOME`` (a host may pass no environment of its own)."""
    from salience.config import Config

    beside = Path(sys.executable).parent / "salience"  # (this install's own command)
    found = beside if beside.is_file() else shutil.which("salience")
    command, prefix = (str(Path(found).absolute()), ()) if found else (sys.executable, MODULE)
    config = Config.for_home(home) if home is not None else Config.from_env()
    env = {"SALIENCE_HOME": str(config.home)}
    if config.store_url:  # (a PostgreSQL store: named too, unless its URL holds a password)
        from urllib.parse import urlsplit

        if urlsplit(config.store_url).password:
            render.say(
                "the store URL holds a password, which is not written into the host's file: "
                "set SALIENCE_STORE_URL where the host runs",
                err=True,
            )
        else:
            env["SALIENCE_STORE_URL"] = config.store_url
    return Launch(command, (*prefix, "mcp"), env, prefix)


@cli.command()
@click.argument("host", type=click.Choice(sorted(HOSTS)), required=False)
@click.option(
    "--scope",
    type=click.Choice(["user", "project"]),
    default=None,
    help="User-wide, or this project's file (each host's default otherwise).",
)
@click.option("--remove", is_flag=True, help="Take salience out of the host's configuration.")
@click.option("--dry-run", is_flag=True, help="Show the change; write nothing.")
@click.option("--print", "show", is_flag=True, help="Print the MCP entry for any host.")
@click.option(
    "--home",
    type=click.Path(path_type=Path),
    default=None,
    help="The store's home the host should use (default: this one).",
)
def connect(
    host: str | None,
    scope: str | None,
    remove: bool,
    dry_run: bool,
    show: bool,
    home: Path | None,
) -> None:
    """Connect an agent host (claude-code, claude-desktop, cursor, codex, vscode) to salience:
    its MCP server and, for Claude Code, the session hooks, merged into the host's own files
    (every other entry kept, a backup written first). Running it twice changes nothing."""
    launch = launch_for(home)
    if show or host is None:
        entry = {"command": launch.command, "args": list(launch.args), "env": launch.env}
        render.emit_json({"mcpServers": {"salience": entry}})
        return
    chosen = HOSTS[host]
    where = scope or chosen.default_scope
    if where not in chosen.files:
        known = ", ".join(chosen.files)
        raise UserError(f"{host} has no {where} configuration; its scopes: {known}")
    home_dir, project = Path.home(), Path.cwd()
    changes = [(chosen.files[where](home_dir, project), "server")]
    if chosen.hooks and where in chosen.hooks:
        changes.append((chosen.hooks[where](home_dir, project), "hooks"))
    wanted = None if remove else launch
    planned = [(path, *_change(chosen, path, part, wanted)) for path, part in changes]
    for path, before, after in planned:  # (every file checked before any is written)
        _apply(path, before, after, dry_run)
    if not dry_run:
        verb = "removed from" if remove else "connected to"
        render.say(f"salience {verb} {host} ({where}); restart {host} to load it")


def _change(host: Host, path: Path, part: str, launch: Launch | None) -> tuple[str, str]:
    """The file's text now and after the change (the same text: nothing to do)."""
    before = path.read_text(encoding="utf-8") if path.exists() else ""
    try:
        if host.toml:
            entry = None if launch is None else host.entry(launch)
            return before, toml_with_server(before, entry)
        data = read_json(path)
        if part == "hooks":
            changed = with_hooks(data, launch)
        else:
            changed = with_server(data, host.key, None if launch is None else host.entry(launch))
    except HostConfigError as exc:
        raise UserError(f"{path}: {exc}; it was left as it is") from None
    except OSError as exc:
        raise UserError(f"cannot read {path}: {exc.strerror}") from None
    if changed == data:
        return before, before
    return before, dump_json(changed) if changed or path.exists() else ""


def _apply(path: Path, before: str, after: str, dry_run: bool) -> None:
    """Show (``dry_run``) or write the change, the old file kept as ``FILE.salience-backup``."""
    if before == after:
        render.say(f"{path}: unchanged")
        return
    if dry_run:
        diff = difflib.unified_diff(
            before.splitlines(keepends=True), after.splitlines(keepends=True), str(path), str(path)
        )
        render.say("".join(diff).rstrip("\n"))
        return
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        if path.exists():
            shutil.copy2(path, path.with_name(path.name + ".salience-backup"))
        temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        temporary.write_text(after, encoding="utf-8")
        if path.exists():
            shutil.copymode(path, temporary)
        temporary.replace(path)
    except OSError as exc:
        raise UserError(f"cannot write {path}: {exc.strerror}") from None
    backup = f" (backup: {path.name}.salience-backup)" if before else ""
    render.say(f"{path}: {'written' if before else 'created'}{backup}")
