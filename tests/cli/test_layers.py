"""``salience layer mount|list|unmount`` and layered recall on the command line."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner, Result

from salience.cli import cli

ENV = {"SALIENCE_SIGNAL_GATE": "0", "SALIENCE_EMBEDDER": "none"}


def run(home: Path, *args: str) -> Result:
    return CliRunner(env=ENV).invoke(cli, [*args, "--home", str(home)], catch_exceptions=False)


def test_mount_list_recall_unmount(tmp_path: Path) -> None:
    team, mine = tmp_path / "team", tmp_path / "mine"
    assert run(team, "remember", "The staging cluster runs in eu-west-1").exit_code == 0
    assert run(mine, "remember", "The staging database is restored nightly").exit_code == 0
    mounted = run(mine, "layer", "mount", str(team), "--as", "shared", "--name", "team")
    assert mounted.exit_code == 0
    assert (
        mounted.stdout.strip() == f"mounted {team.resolve() / 'salience.db'} as shared layer 'team'"
    )
    listed = json.loads(run(mine, "layer", "list", "--json").stdout)
    assert [(m["name"], m["kind"]) for m in listed] == [("team", "shared")]
    assert "team  (shared, read-only)" in run(mine, "layer", "list").stdout
    hits = json.loads(run(mine, "recall", "staging", "--json").stdout)["hits"]
    assert {h["record"]["layer"] for h in hits} == {"local", "team"}
    assert "[team]" in run(mine, "recall", "staging").stdout
    assert run(mine, "layer", "unmount", "team").exit_code == 0
    hits = json.loads(run(mine, "recall", "staging", "--json").stdout)["hits"]
    assert {h["record"]["layer"] for h in hits} == {"local"}


def test_errors_are_one_line_and_exit_1(tmp_path: Path) -> None:
    team, mine = tmp_path / "team", tmp_path / "mine"
    run(team, "remember", "The staging cluster runs in eu-west-1")
    run(mine, "remember", "The staging database is restored nightly")
    missing = run(mine, "layer", "mount", str(tmp_path / "nowhere"), "--as", "base")
    assert missing.exit_code == 1
    assert missing.stderr.startswith("error: no salience store at")
    assert "Traceback" not in missing.output
    assert run(mine, "layer", "unmount", "team").stderr.startswith("error: no layer named 'team'")
    assert run(mine, "layer", "mount", str(team), "--as", "local").exit_code == 2
    run(mine, "layer", "mount", str(team), "--as", "shared")
    shared_id = json.loads(run(team, "list", "--json").stdout)[0]["id"]
    refused = run(mine, "forget", shared_id)
    assert refused.exit_code == 1
    assert "read-only shared layer 'shared'" in refused.stderr
