"""CLI: rejections exit 1 with the gate and reason; --force is visible; entities."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from salience.cli import cli

SECRET = "AKIA" + "Q7" * 8


def _run(home: Path, *args: str, env: dict[str, str] | None = None):  # type: ignore[no-untyped-def]
    return CliRunner(env=env).invoke(cli, [*args, "--home", str(home)], catch_exceptions=False)


def test_a_secret_is_rejected_with_exit_1_and_not_echoed(home: Path) -> None:
    result = _run(home, "remember", f"the CI user has key {SECRET} for uploads")
    assert result.exit_code == 1
    assert result.stderr.startswith("rejected by the secret gate: contains an AWS access key")
    assert SECRET not in result.output
    document = json.loads(
        _run(home, "remember", f"the CI user has key {SECRET} for uploads", "--json").stdout
    )
    assert (document["outcome"], document["gate"], document["id"]) == ("rejected", "secret", None)


def test_signal_gate_rejects_and_force_keeps_it_with_a_note(home: Path) -> None:
    rejected = _run(home, "remember", "it works")
    assert rejected.exit_code == 1
    assert "signal gate: too short" in rejected.stderr
    forced = _run(home, "remember", "it works", "--force")
    assert forced.exit_code == 0
    assert "note: signal gate bypassed (force)" in forced.stderr
    off = _run(home, "remember", "it still works", env={"SALIENCE_SIGNAL_GATE": "off"})
    assert off.exit_code == 0
    assert "signal gate off by setting" in off.stderr


def test_duplicate_outcome_names_the_existing_memory(home: Path) -> None:
    first = _run(home, "remember", "Deploys go through GitHub Actions nightly").stdout.split()[1]
    again = _run(home, "remember", "deploys go through github actions nightly")
    assert again.exit_code == 0
    assert again.stdout.startswith(f"duplicate {first} (same content as {first}")


def test_entities_command(home: Path) -> None:
    _run(home, "remember", "The UserService reads DATABASE_URL at start-up")
    _run(home, "remember", "The UserService caches sessions in Redis")
    listed = json.loads(_run(home, "entities", "--json").stdout)
    assert listed[0] == {"entity": "UserService", "memories": 2}
    assert "DATABASE_URL" in _run(home, "entities", "--top", "5").stdout
    assert len(json.loads(_run(home, "list", "--entity", "database_url", "--json").stdout)) == 1
