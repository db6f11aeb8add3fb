"""``salience updates``: pairs listed with why, confirmed and dismissed from the shell."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from salience.cli import cli


@pytest.fixture
def run(home: Path):  # type: ignore[no-untyped-def]
    def invoke(*args: str) -> Result:
        runner = CliRunner(env={"SALIENCE_SIGNAL_GATE": "0", "SALIENCE_EMBEDDER": "none"})
        return runner.invoke(cli, [*args, "--home", str(home)])

    return invoke


def _pair(run, old: str, new: str) -> tuple[str, str]:  # type: ignore[no-untyped-def]
    first = json.loads(run("remember", old, "--json").stdout)
    second = json.loads(run("remember", new, "--json").stdout)
    assert [x["old_id"] for x in second["updates"]] == [first["id"]]
    return first["id"], second["id"]


def test_updates_are_listed_then_confirmed(run) -> None:  # type: ignore[no-untyped-def]
    old_id, new_id = _pair(
        run, "My cocktail class is on Thursday evenings.", "My cocktail class is on Fridays now."
    )
    listed = run("updates")
    assert listed.exit_code == 0, listed.output
    assert f"{new_id} -> {old_id}  [open," in listed.stdout
    assert "new: My cocktail class is on Fridays now." in listed.stdout
    assert "why: same subject (" in listed.stdout
    assert "thursday -> friday" in listed.stdout
    confirmed = run("updates", "confirm", new_id, old_id)
    assert confirmed.exit_code == 0, confirmed.output
    assert run("updates").stdout.strip() == "no open updates"
    shown = json.loads(run("show", old_id, "--json").stdout)
    assert shown["valid_until"] is not None


def test_a_dismissed_pair_is_gone_and_a_wrong_one_is_an_error(run) -> None:  # type: ignore[no-untyped-def]
    old_id, new_id = _pair(
        run, "The nightly backup runs at 2am.", "The nightly backup runs at 4am now."
    )
    dismissed = run("updates", "dismiss", new_id, old_id)
    assert dismissed.exit_code == 0, dismissed.output
    assert f"dismissed {new_id} -> {old_id}" in dismissed.stdout
    every = json.loads(run("updates", "--state", "all", "--json").stdout)
    assert [x["state"] for x in every] == ["dismissed"]
    wrong = run("updates", "confirm", old_id, new_id)
    assert wrong.exit_code == 1
    assert "Traceback" not in wrong.output


def test_a_write_says_which_older_memory_it_updates(run) -> None:  # type: ignore[no-untyped-def]
    first = run("remember", "My cocktail class is on Thursday evenings.")
    old_id = first.stdout.split()[1]
    second = run("remember", "My cocktail class is on Fridays now.")
    assert second.exit_code == 0, second.output
    lines = second.stdout.splitlines()
    assert lines[0].startswith("created ")
    assert lines[1].startswith(f"  updates {old_id} [open, ")
    assert "thursday -> friday" in lines[1]
    assert len(lines) == 2
    assert run("remember", "We use Postgres for the ledger.").stdout.count("\n") == 1
