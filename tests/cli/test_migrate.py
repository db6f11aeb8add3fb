"""``salience migrate`` and ``--store``: a store moved to PostgreSQL and used there."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from salience.cli import cli

ENV = {"SALIENCE_SIGNAL_GATE": "0", "SALIENCE_EMBEDDER": "none"}


def test_migrate_to_postgresql_then_use_it_with_store(tmp_path: Path, postgres_url: str) -> None:
    runner = CliRunner(env=ENV)
    home = str(tmp_path / "home")
    for text in ("the staging server listens on port 8080", "deploys go out on Tuesdays"):
        assert runner.invoke(cli, ["remember", text, "--home", home]).exit_code == 0
    sqlite = str(tmp_path / "home" / "salience.db")
    moved = runner.invoke(cli, ["migrate", "--from", sqlite, "--to", postgres_url, "--json"])
    assert moved.exit_code == 0, moved.output
    report = json.loads(moved.stdout)
    assert report["memories"] == 2
    assert report["verified"] is True
    assert "password" not in report["to"]
    found = runner.invoke(cli, ["recall", "staging port", "--store", postgres_url, "--json"])
    assert found.exit_code == 0, found.output
    assert "port 8080" in found.stdout
    again = runner.invoke(cli, ["migrate", "--from", sqlite, "--to", postgres_url])
    assert again.exit_code == 1
    assert "already holds memories" in again.stderr
    assert "Traceback" not in again.output


def test_migrate_back_to_sqlite_prints_what_it_copied(tmp_path: Path, postgres_url: str) -> None:
    runner = CliRunner(env=ENV)
    assert (
        runner.invoke(
            cli, ["remember", "a memory born in postgres", "--store", postgres_url]
        ).exit_code
        == 0
    )
    target = str(tmp_path / "back.db")
    moved = runner.invoke(cli, ["migrate", "--from", postgres_url, "--to", target])
    assert moved.exit_code == 0, moved.output
    assert "copied 1 memories" in moved.stdout
    assert "verified" in moved.stdout
    listed = runner.invoke(cli, ["list", "--store", target, "--json"])
    assert "a memory born in postgres" in listed.stdout


def test_migrate_refuses_a_missing_source_and_the_same_store(tmp_path: Path) -> None:
    runner = CliRunner(env=ENV)
    missing = runner.invoke(
        cli, ["migrate", "--from", str(tmp_path / "nope.db"), "--to", str(tmp_path / "t.db")]
    )
    assert missing.exit_code == 1
    assert "no salience store" in missing.stderr
    assert not (tmp_path / "t.db").exists()
    same = runner.invoke(cli, ["migrate", "--from", "a.db", "--to", "a.db"])
    assert same.exit_code == 1
    assert "same store" in same.stderr


def test_a_reading_command_refuses_a_database_without_a_store(postgres_url: str) -> None:
    runner = CliRunner(env=ENV)
    result = runner.invoke(cli, ["list", "--store", postgres_url])
    assert result.exit_code == 1
    assert "no salience store at postgresql://" in result.stderr


def test_the_check_after_a_copy_finds_what_differs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Read side by side a page at a time: a vector, an audit entry or a memory that differs
    (or is missing at the end) is found."""
    from salience import Config, Memory
    from salience.cli import migrate
    from salience.stores.sqlite import memories

    monkeypatch.setattr(migrate, "PAGE", 2)
    monkeypatch.setattr(memories, "PAGE", 2)
    runner = CliRunner(env=ENV)
    home = tmp_path / "home"
    for i in range(5):
        assert (
            runner.invoke(cli, ["remember", f"memory number {i}", "--home", str(home)]).exit_code
            == 0
        )
    target = tmp_path / "t.db"
    assert (
        runner.invoke(
            cli, ["migrate", "--from", str(home / "salience.db"), "--to", str(target)]
        ).exit_code
        == 0
    )
    config = {"signal_gate": False, "embedder": "none"}
    with (
        Memory.open(config=Config(home=home, **config)) as source,  # type: ignore[arg-type]
        Memory.open(str(target), embedder=None) as copied,
    ):
        assert migrate._same(source, copied) == []
        ids = [r.id for r in copied.store.iter_all()]
        copied.store.set_vector(ids[3], b"\0" * 16)
        assert migrate._same(source, copied) == ["the vectors differ"]
        copied.store.append_audit(copied.store.audit_page(0, 1))
        copied.purge(ids[-1])
        assert migrate._same(source, copied) == [
            "the exports of the two stores differ",
            "the vectors differ",
            "the audit logs differ",
        ]
