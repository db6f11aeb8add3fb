"""``salience erase --user NAME --yes``."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from salience.cli import cli


def test_erase_needs_a_user_and_a_yes_then_leaves_a_receipt(tmp_path: Path) -> None:
    runner = CliRunner(env={"SALIENCE_SIGNAL_GATE": "0", "SALIENCE_EMBEDDER": "none"})
    home = ["--home", str(tmp_path / "home")]
    for user in ("alice", "bob"):
        made = runner.invoke(cli, ["remember", f"{user} parks on level 2", "--user", user, *home])
        assert made.exit_code == 0, made.output
    unnamed = runner.invoke(cli, ["erase", "--yes", *home])
    assert unnamed.exit_code == 2
    assert "--user NAME" in unnamed.output
    unconfirmed = runner.invoke(cli, ["erase", "--user", "alice", *home])
    assert unconfirmed.exit_code == 1
    assert "add --yes" in unconfirmed.output
    done = runner.invoke(cli, ["erase", "--user", "alice", "--yes", "--json", *home])
    assert done.exit_code == 0, done.output
    assert json.loads(done.output)["memories"] == 1
    listed = runner.invoke(cli, ["list", "--user", "bob", "--json", *home])
    assert [r["content"] for r in json.loads(listed.output)] == ["bob parks on level 2"]
