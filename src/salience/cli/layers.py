"""``salience layer mount|list|unmount``: read-only stores searched beside the local one."""

from __future__ import annotations

from pathlib import Path

import click

from salience.cli import render
from salience.cli.app import cli, json_option, open_memory, store_options
from salience.models import LAYER_KINDS
from salience.wire.values import layer_out


@cli.group()
def layer() -> None:
    """Mounted read-only layers (shared: a sibling's store; base: a knowledge pack)."""


@layer.command()
@click.argument("path", type=click.Path(path_type=Path))
@click.option(
    "--as", "kind", type=click.Choice(LAYER_KINDS), required=True, help="The layer's kind."
)
@click.option("--name", default=None, help="The layer's name (default: its kind).")
@store_options
@json_option
def mount(
    path: Path, kind: str, name: str | None, home: Path | None, profile: str | None, as_json: bool
) -> None:
    """Mount the salience store at PATH (a file or a directory holding salience.db)."""
    with open_memory(home, profile) as memory:
        mounted = memory.mount(path, kind=kind, name=name)
    if as_json:
        render.emit_json(layer_out(mounted))
    else:
        render.say(f"mounted {mounted.path} as {mounted.kind} layer {mounted.name!r}")


@layer.command(name="list")
@store_options
@json_option
def list_(home: Path | None, profile: str | None, as_json: bool) -> None:
    """The mounted layers: name, kind, path."""
    with open_memory(home, profile, create=False) as memory:
        mounts = memory.layers()
        problems = memory.unavailable_layers()
    if as_json:
        render.emit_json([layer_out(m, unavailable=problems.get(m.name)) for m in mounts])
        return
    render.say("local   (read-write)")
    for m in mounts:
        state = f", unavailable: {problems[m.name]}" if m.name in problems else ""
        render.say(f"{m.name}  ({m.kind}, read-only{state})  {m.path}")


@layer.command()
@click.argument("name")
@store_options
@json_option
def unmount(name: str, home: Path | None, profile: str | None, as_json: bool) -> None:
    """Stop searching the layer NAME (its file is left as it is)."""
    with open_memory(home, profile) as memory:
        gone = memory.unmount(name)
    if as_json:
        render.emit_json(layer_out(gone))
    else:
        render.say(f"unmounted layer {gone.name!r} ({gone.path})")
