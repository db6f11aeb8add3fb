"""The CLI: every command, --json shapes, stdin, and exit codes (0 ok, 1 user error, 2 usage)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from salience import Config, Memory
from salience.cli import cli


@pytest.fixture
def run(home: Path):  # type: ignore[no-untyped-def]
    # Verb tests use placeholder texts; the signal gate is tested on its own.
    runner = CliRunner(env={"SALIENCE_SIGNAL_GATE": "0"})

    def invoke(*args: str, stdin: str | None = None) -> Result:
        return runner.invoke(cli, [*args, "--home", str(home)], input=stdin, catch_exceptions=False)

    return invoke


def _remember(run, text: str, *extra: str) -> str:  # type: ignore[no-untyped-def]
    result = run("remember", text, *extra, "--json")
    assert result.exit_code == 0, result.output
    return str(json.loads(result.stdout)["id"])


def test_remember_prints_outcome_and_id(run) -> None:  # type: ignore[no-untyped-def]
    result = run("remember", "The API listens on port 8080", "--tag", "project:api")
    assert result.exit_code == 0
    outcome, memory_id = result.stdout.split()
    assert outcome == "created"
    assert len(memory_id) == 26


def test_remember_json_has_outcome_and_record_fields(run) -> None:  # type: ignore[no-untyped-def]
    result = run("remember", "Use httpx", "--importance", "0.9", "--type", "heuristic", "--json")
    document = json.loads(result.stdout)
    assert document["outcome"] == "created"
    assert document["record"]["importance"] == 0.9
    assert document["record"]["type"] == "heuristic"
    assert document["id"] == document["record"]["id"]


def test_remember_reads_stdin_with_dash(run) -> None:  # type: ignore[no-untyped-def]
    result = run("remember", "-", "--json", stdin="from standard input\n")
    memory_id = json.loads(result.stdout)["id"]
    shown = json.loads(run("show", memory_id, "--json").stdout)
    assert shown["content"] == "from standard input"


def test_show_json_keys_are_the_record_fields(run) -> None:  # type: ignore[no-untyped-def]
    from salience.write.records import FIELD_NAMES

    memory_id = _remember(run, "A memory to show in full")
    document = json.loads(run("show", memory_id, "--json").stdout)
    assert tuple(document) == FIELD_NAMES
    human = run("show", memory_id)
    assert "A memory to show in full" in human.stdout
    assert "revision_count" in human.stdout


def test_recall_finds_and_ranks(run) -> None:  # type: ignore[no-untyped-def]
    best = _remember(run, "Redis holds the session cache; Redis evicts with LRU")
    _remember(run, "Postgres is the database")
    hits = json.loads(run("recall", "redis cache", "--json").stdout)["hits"]
    assert [h["record"]["id"] for h in hits] == [best]
    assert hits[0]["rank"] == 1
    assert hits[0]["score"] > 0
    assert "Redis holds" in run("recall", "redis").stdout
    assert run("recall", 'NEAR( "unbalanced AND *').exit_code == 0


def test_list_filters_and_includes(run) -> None:  # type: ignore[no-untyped-def]
    a = _remember(run, "alpha memory text", "--project", "api")
    b = _remember(run, "beta memory text")
    assert run("forget", b, "--reason", "wrong").exit_code == 0
    assert [r["id"] for r in json.loads(run("list", "--json").stdout)] == [a]
    assert [r["id"] for r in json.loads(run("list", "--project", "api", "--json").stdout)] == [a]
    everything = json.loads(run("list", "--all", "--json").stdout)
    assert {r["id"] for r in everything} == {a, b}
    assert "alpha memory text" in run("list").stdout


def test_update_changes_fields_and_tags(run) -> None:  # type: ignore[no-untyped-def]
    memory_id = _remember(run, "original text", "--tag", "a", "--tag", "b")
    result = run(
        "update", memory_id, "--content", "new text", "--add-tag", "c", "--remove-tag", "a"
    )
    assert result.stdout.split() == ["updated", memory_id]
    shown = json.loads(run("show", memory_id, "--json").stdout)
    assert shown["content"] == "new text"
    assert shown["tags"] == ["b", "c"]
    assert shown["revision_count"] == 2
    assert run("update", memory_id, "--disable").exit_code == 0
    assert json.loads(run("show", memory_id, "--json").stdout)["enabled"] is False


def test_update_with_nothing_to_change_is_a_usage_error(run) -> None:  # type: ignore[no-untyped-def]
    memory_id = _remember(run, "original text")
    result = run("update", memory_id)
    assert result.exit_code == 2
    assert "nothing to update" in result.output


def test_supersede_and_history(run) -> None:  # type: ignore[no-untyped-def]
    old = _remember(run, "Deploys use Jenkins")
    result = run("supersede", old, "Deploys use GitHub Actions", "--json")
    new = json.loads(result.stdout)["id"]
    chain = json.loads(run("history", old, "--json").stdout)
    assert [r["id"] for r in chain] == [new, old]
    text = run("history", new).stdout.splitlines()
    assert text[0].split()[:2] == [new, "current"]
    assert text[1].split()[:2] == [old, "superseded"]


def test_forget_and_purge(run) -> None:  # type: ignore[no-untyped-def]
    memory_id = _remember(run, "to be forgotten")
    assert run("forget", memory_id).stdout.split() == ["forgotten", memory_id]
    assert json.loads(run("show", memory_id, "--json").stdout)["forget_reason"]
    assert run("forget", memory_id, "--purge").stdout.split() == ["deleted", memory_id]
    assert run("show", memory_id).exit_code == 1


def test_export_import_round_trip(run, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    _remember(run, "first exported memory")
    _remember(run, "second exported memory")
    exported = run("export").stdout
    assert len(exported.splitlines()) == 2
    key = tmp_path / "backup.key"
    key.write_text("a key only I keep\n")
    signed = run("export", "--sign-with", str(key)).stdout
    assert signed.splitlines()[:2] == exported.splitlines()
    assert '"salience_signature": "hmac-sha256:' in signed.splitlines()[2]
    target = tmp_path / "other-home"
    runner = CliRunner()
    verified = ["import", "-", "--home", str(target), "--verify-with", str(key), "--json"]
    imported = runner.invoke(cli, verified, input=signed)
    assert json.loads(imported.stdout) == {"created": 2, "updated": 0, "unchanged": 0, "renamed": 0}
    again = runner.invoke(cli, ["export", "--home", str(target)])
    assert again.stdout == exported  # (signed: every source as it was)
    tampered = signed.replace("first exported", "first altered")
    refused = runner.invoke(cli, verified, input=tampered)
    assert refused.exit_code != 0
    assert "changed since it was signed" in refused.output
    stranger = tmp_path / "stranger-home"
    unsigned = ["import", "-", "--home", str(stranger), "--json"]
    assert runner.invoke(cli, unsigned, input=exported).exit_code == 0
    theirs = runner.invoke(cli, ["export", "--home", str(stranger)]).stdout
    assert {json.loads(line)["source"] for line in theirs.splitlines()} == {"import"}
    out_file = tmp_path / "dump.jsonl"
    assert run("export", str(out_file)).exit_code == 0
    assert out_file.read_text(encoding="utf-8") == exported


def test_stats(run) -> None:  # type: ignore[no-untyped-def]
    _remember(run, "one memory", "--type", "decision")
    document = json.loads(run("stats", "--json").stdout)
    assert document["total"] == 1
    assert document["by_type"] == {"decision": 1}
    assert "decision 1" in run("stats").stdout


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("remember", ""), "content is empty"),
        (("remember", "   "), "content is empty"),
        (("remember", "fine", "--importance", "1.5"), "importance must be between 0 and 1"),
        (("remember", "fine", "--confidence", "nan"), "confidence must be a finite number"),
        (("show", "01JS0000000000000000000000"), "no memory with id"),
        (("forget", "01JS0000000000000000000000"), "no memory with id"),
        (("update", "01JS0000000000000000000000", "--importance", "0.2"), "no memory with id"),
        (("recall", "  "), "the query is empty"),
    ],
)
def test_user_errors_exit_1_with_one_line(run, args: tuple[str, ...], message: str) -> None:  # type: ignore[no-untyped-def]
    _remember(run, "a store with one memory")
    result = run(*args)
    assert result.exit_code == 1
    assert result.stderr.count("\n") == 1
    assert result.stderr.startswith("error: ")
    assert message in result.stderr
    assert result.stdout == ""


def test_a_bad_import_line_exits_1_naming_the_line(run, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"content": "fine line"}\n{broken\n', encoding="utf-8")
    result = run("import", str(bad))
    assert result.exit_code == 1
    assert "line 2" in result.stderr
    assert "no salience store" in run("stats").stderr  # the failed import left nothing behind
    _remember(run, "a store with one memory")
    assert run("import", str(bad)).exit_code == 1
    assert json.loads(run("stats", "--json").stdout)["total"] == 1


@pytest.mark.parametrize(
    "args",
    [
        ("remember",),
        ("frobnicate",),
        ("list", "--limit", "0"),
        ("remember", "x", "--source", "bot"),
    ],
)
def test_usage_errors_exit_2(run, args: tuple[str, ...]) -> None:  # type: ignore[no-untyped-def]
    assert run(*args).exit_code == 2


def _salience(*args: str, home: Path, stdin: str = "") -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "SALIENCE_HOME": str(home)}
    return subprocess.run(
        [sys.executable, "-m", "salience", *args],
        input=stdin,
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )


@pytest.mark.process
def test_python_m_salience_works_and_errors_have_no_traceback(tmp_path: Path) -> None:
    home = tmp_path / "h"
    ok = _salience("remember", "written from a separate real process", home=home)
    assert ok.returncode == 0, ok.stderr
    assert ok.stdout.startswith("created ")
    (tmp_path / "notdb").mkdir()
    (tmp_path / "notdb" / "salience.db").write_text("hello", encoding="utf-8")
    bad = _salience("list", home=tmp_path / "notdb")
    assert bad.returncode == 1
    assert "Traceback" not in bad.stderr
    assert bad.stderr.strip() == (
        f"error: {tmp_path / 'notdb' / 'salience.db'} is not a salience database "
        "(not an SQLite file)"
    )


@pytest.mark.process
def test_home_env_and_flag_agree(tmp_path: Path) -> None:
    _salience("remember", "stored through the environment", home=tmp_path / "e")
    runner = CliRunner()
    listed = runner.invoke(cli, ["list", "--json", "--home", str(tmp_path / "e")])
    assert [r["content"] for r in json.loads(listed.stdout)] == ["stored through the environment"]


def test_recall_type_filters(run) -> None:  # type: ignore[no-untyped-def]
    keep = _remember(run, "Dark mode is preferred in the editor", "--type", "preference")
    drop = _remember(run, "Dark mode broke the PDF export", "--type", "discovery")
    only = json.loads(run("recall", "dark mode", "--type", "preference", "--json").stdout)["hits"]
    assert [h["record"]["id"] for h in only] == [keep]
    rest = json.loads(run("recall", "dark mode", "--not-type", "preference", "--json").stdout)[
        "hits"
    ]
    assert [h["record"]["id"] for h in rest] == [drop]
    both = run("recall", "dark mode", "--type", "a", "--not-type", "b")
    assert both.exit_code == 1
    assert "not both" in both.stderr


def test_an_mcp_server_interrupted_keeps_the_store_it_made(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ctrl-C ends `salience mcp`; the new store it answered from stays, with its writes."""
    import salience.mcp_server

    class Interrupted:
        def __init__(self, memory: object) -> None:
            self.memory = memory

        def run(self) -> None:
            self.memory.remember("The staging API listens on 8080")  # type: ignore[attr-defined]
            raise KeyboardInterrupt

    monkeypatch.setattr(
        salience.mcp_server, "create_mcp_server", lambda memory, **_: Interrupted(memory)
    )
    result = CliRunner().invoke(cli, ["mcp", "--home", str(home)])
    assert result.exit_code != 0
    with Memory.open(config=Config(home=home), embedder=None) as memory:
        assert [m.content for m in memory.list()] == ["The staging API listens on 8080"]


def test_mcp_is_a_long_running_process(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`salience mcp` answers many calls: it says so to the engine (see salience.search.warm)."""
    import salience.mcp_server

    seen: list[int] = []

    class Served:
        def __init__(self, memory: Memory) -> None:
            self.memory = memory

        def run(self) -> None:
            seen.append(self.memory._warm_bytes)

    monkeypatch.setattr(
        salience.mcp_server, "create_mcp_server", lambda memory, **_: Served(memory)
    )
    result = CliRunner().invoke(cli, ["mcp", "--home", str(home)])
    assert result.exit_code == 0, result.output
    assert seen == [Config(home=home).pgvector_warm_mb << 20]


def test_a_write_during_an_open_session_belongs_to_it(run, home: Path) -> None:  # type: ignore[no-untyped-def]
    """The session-start hook opens a session; a `remember` then is the session's, so the
    session's summary goes stale with it and is erased with it."""
    started = json.loads(run("session", "start", "--json").stdout)["session_id"]
    memory_id = _remember(run, "The gate code for bay 7 is kept by the night shift")
    assert json.loads(run("show", memory_id, "--json").stdout)["session_id"] == started
    elsewhere = _remember(run, "Bay 8 has no gate", "--session", "another-session")
    assert json.loads(run("show", elsewhere, "--json").stdout)["session_id"] == "another-session"
    ended = run("session", "end", "--summary", "Bay 7 gate code is with the night shift", "--json")
    summary_id = json.loads(ended.stdout)["id"]
    assert run("forget", memory_id, "--purge").exit_code == 0
    assert run("show", summary_id).exit_code == 1  # (it quoted the session: erased with it)
    files = [p for p in home.rglob("*") if p.is_file()]
    assert not any(b"night shift" in p.read_bytes() for p in files)


def test_purge_wait_waits_for_a_reader_to_let_go(home: Path) -> None:
    import sqlite3

    runner = CliRunner(env={"SALIENCE_SIGNAL_GATE": "0", "SALIENCE_BUSY_TIMEOUT_MS": "100"})

    def run(*args: str) -> Result:  # (a checkpoint waits this long for a reader to go)
        return runner.invoke(cli, [*args, "--home", str(home)], catch_exceptions=False)

    first = _remember(run, "The gate code for bay 7 is 4411")
    second = _remember(run, "The gate code for bay 8 is 5522")
    reader = sqlite3.connect(home / "salience.db", isolation_level=None)
    reader.execute("BEGIN")
    reader.execute("SELECT count(*) FROM memories").fetchone()
    held = run("forget", first, "--purge", "--wait", "0")
    assert held.exit_code == 1
    assert "still pending" in held.output
    assert "pending since" in run("stats").stdout
    reader.close()
    done = run("forget", second, "--purge", "--wait")
    assert done.exit_code == 0, done.output
    assert "pending since" not in run("stats").stdout
    assert run("forget", second, "--wait", "5").exit_code == 2  # (--wait goes with --purge)
