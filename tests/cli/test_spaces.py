"""``salience space ...`` and the --space/--agent options of the memory commands."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from salience.cli import cli

TEXT = "the payments ledger reconciles payouts every night at two"


@pytest.fixture
def run(home: Path):  # type: ignore[no-untyped-def]
    runner = CliRunner(env={"SALIENCE_SIGNAL_GATE": "0", "SALIENCE_EMBEDDER": "none"})

    def invoke(*args: str) -> Result:
        return runner.invoke(cli, [*args, "--home", str(home)])

    return invoke


def test_a_space_is_made_granted_written_and_recalled(run) -> None:  # type: ignore[no-untyped-def]
    assert run("space", "create", "payments", "--user", "alice").exit_code == 0
    granted = run("space", "grant", "payments", "bob", "write", "--user", "alice", "--json")
    assert json.loads(granted.stdout)["right"] == "write"
    written = run(
        "remember", TEXT, "--space", "payments", "--agent", "ci-bot", "--user", "bob", "--json"
    )
    assert written.exit_code == 0, written.output
    record = json.loads(written.stdout)["record"]
    assert (record["space"], record["author"], record["agent"]) == ("payments", "bob", "ci-bot")
    recalled = run("recall", "ledger payouts", "--user", "alice")
    assert "[payments] [agent ci-bot] the payments ledger" in recalled.stdout
    listed = run("list", "--space", "payments", "--user", "alice")
    assert "[payments] [agent ci-bot]" in listed.stdout
    assert "ledger" not in run("list", "--user", "alice").stdout  # (her own: none)
    spaces = json.loads(run("space", "list", "--user", "bob", "--json").stdout)
    assert [(s["name"], s["right"]) for s in spaces] == [("payments", "write")]
    members = json.loads(run("space", "members", "payments", "--user", "bob", "--json").stdout)
    assert [(m["user"], m["right"]) for m in members] == [("alice", "admin"), ("bob", "write")]


def test_a_refusal_is_one_line_and_changes_nothing(run) -> None:  # type: ignore[no-untyped-def]
    assert run("space", "create", "payments", "--user", "alice").exit_code == 0
    for args in (
        ("remember", TEXT, "--space", "payments", "--user", "carol"),
        ("space", "grant", "payments", "carol", "admin", "--user", "carol"),
        ("space", "delete", "payments", "--user", "alice"),  # (no --yes)
        ("space", "create", "Bad Name", "--user", "alice"),
        ("space", "revoke", "payments", "alice", "--user", "alice"),  # (the last admin)
    ):
        result = run(*args)
        assert result.exit_code != 0, args
        assert len(result.stderr.strip().splitlines()) == 1, (args, result.stderr)
        assert result.stderr.startswith("error: "), (args, result.stderr)
    members = json.loads(run("space", "members", "payments", "--user", "alice", "--json").stdout)
    assert [m["user"] for m in members] == ["alice"]
    deleted = run("space", "delete", "payments", "--yes", "--user", "alice", "--json")
    assert json.loads(deleted.stdout)["space"] == "payments"


def test_a_key_names_its_agent_and_its_narrowing(run) -> None:  # type: ignore[no-untyped-def]
    run("space", "create", "payments", "--user", "alice")
    made = run(
        "keys", "create", "--user", "alice", "--source", "agent", "--agent", "ci-bot",
        "--space", "payments:read", "--json",
    )  # fmt: skip
    key = json.loads(made.stdout)
    assert (key["agent"], key["spaces"]) == ("ci-bot", {"payments": "read"})
    wider = run("keys", "create", "--user", "bob", "--space", "payments:read")
    assert wider.exit_code != 0
    assert "never wider than its user" in wider.stderr
