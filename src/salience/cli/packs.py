"""``salience pack export|import``: knowledge packs (see :mod:`salience.sharing.packs`)."""

from __future__ import annotations

from pathlib import Path

import click

from salience.cli import render
from salience.cli.app import (
    all_users_option,
    chosen_user,
    cli,
    json_option,
    key_option,
    open_memory,
    progress_bar,
    shared_key,
    store_options,
)
from salience.models import LAYER_KINDS
from salience.wire.values import pack_import_out, pack_manifest_out


@cli.group()
def pack() -> None:
    """Knowledge packs: export memories to a versioned, checksummed file; import or mount one."""


@pack.command(name="export")
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--tag", "tags", multiple=True, help="Only memories with this tag (repeatable).")
@click.option("--type", "type_", default=None, help="Only memories of this type.")
@click.option("--project", default=None, help="Only this project's memories.")
@key_option("--sign-with", "Sign the pack with the shared key in this file (HMAC-SHA256).")
@click.option("--space", default=None, help="A space's memories (you admin it).")
@all_users_option
@store_options
@json_option
def export_(
    file: Path,
    tags: tuple[str, ...],
    type_: str | None,
    project: str | None,
    key_file: Path | None,
    space: str | None,
    home: Path | None,
    profile: str | None,
    as_json: bool,
) -> None:
    """Write the current memories matching the filters to the pack FILE."""
    key = shared_key(key_file)
    with open_memory(home, profile, create=False) as memory:
        manifest = memory.export_pack(
            file,
            tags=tags,
            type=type_,
            project=project,
            user=chosen_user(),
            key=key,
            space=space,
        )
    if as_json:
        render.emit_json(pack_manifest_out(manifest))
        return
    vectors = f"vectors of {manifest.embedder}" if manifest.embedder else "no vectors"
    signed = ", signed" if key is not None else ""
    render.say(f"exported {manifest.records} memories ({vectors}{signed}) to {file}")


@pack.command(name="import")
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
@click.option(
    "--mount-as",
    type=click.Choice(LAYER_KINDS),
    default=None,
    help="Mount the pack as a read-only layer instead of importing it into local.",
)
@click.option("--name", default=None, help="The layer's name (default: the pack's file name).")
@key_option(
    "--verify-with", "Refuse the pack unless it is signed with the shared key in this file."
)
@store_options
@json_option
def import_(
    file: Path,
    mount_as: str | None,
    name: str | None,
    key_file: Path | None,
    home: Path | None,
    profile: str | None,
    as_json: bool,
) -> None:
    """Import the pack FILE (ids kept; vectors kept when the embedder matches)."""
    key = shared_key(key_file)
    with open_memory(home, profile) as memory, progress_bar("importing") as advance:
        done = memory.import_pack(file, mount_as=mount_as, name=name, key=key, progress=advance)
    result = done.result
    if as_json:
        render.emit_json(pack_import_out(done))
        return
    render.import_result(result)
    render.say(
        {
            "kept": "vectors: the pack's (same embedder)",
            "embedded": "vectors: made by the configured embedder",
            "none": "vectors: none (no embedder is configured)",
        }[done.vectors]
    )
    if done.mount is not None:
        render.say(f"mounted {done.mount.path} as {done.mount.kind} layer {done.mount.name!r}")
