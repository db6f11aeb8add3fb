"""What a person at a terminal can trust: safe output, honest exit codes, private files."""

from __future__ import annotations

import json
import os
import sqlite3
import stat
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from salience.cli import cli

ESCAPES = "\x1b]0;pwned\x07\x1b[2J\x1b]8;;http://evil.example\x1b\\click\x1b]8;;\x1b\\\x9b31m"
ENV = {"SALIENCE_SIGNAL_GATE": "0", "SALIENCE_EMBEDDER": "none"}


@pytest.fixture
def run(home: Path):  # type: ignore[no-untyped-def]
    runner = CliRunner(env=ENV)

    def invoke(*args: str, stdin: str | bytes | None = None) -> Result:
        return runner.invoke(cli, [*args, "--home", str(home)], input=stdin)

    return invoke


def _remember(run, text: str, *extra: str) -> str:  # type: ignore[no-untyped-def]
    result = run("remember", text, *extra, "--json")
    assert result.exit_code == 0, result.output
    return str(json.loads(result.stdout)["id"])


def _no_controls(text: str) -> None:
    assert "\x1b" not in text
    assert "\x07" not in text
    assert "\x9b" not in text


def test_stored_escape_sequences_never_reach_the_terminal(run) -> None:  # type: ignore[no-untyped-def]
    # One-line fields refuse C0 controls outright; C1 ones (\x9b is CSI) they keep.
    memory_id = _remember(
        run, f"deploy note {ESCAPES} end", "--tag", "t\x9b2J", "--project", "p\x9b31m"
    )
    for args in (
        ("list",),
        ("show", memory_id),
        ("recall", "deploy note"),
        ("recall", "deploy note", "--explain"),
        ("briefing",),
        ("briefing", "--explain"),
        ("rank", "--explain"),
        ("history", memory_id),
        ("stats",),
        ("entities",),
        ("log",),
    ):
        result = run(*args)
        assert result.exit_code == 0, (args, result.output)
        _no_controls(result.output)
    shown = run("show", memory_id).stdout
    assert "\\x1b]0;pwned\\x07" in shown  # visible, not obeyed


def test_json_output_keeps_the_text_as_escapes(run) -> None:  # type: ignore[no-untyped-def]
    memory_id = _remember(run, f"deploy note {ESCAPES} end")
    raw = run("show", memory_id, "--json").stdout
    _no_controls(raw)
    assert json.loads(raw)["content"] == f"deploy note {ESCAPES} end"


def test_an_error_naming_user_text_is_safe(run) -> None:  # type: ignore[no-untyped-def]
    result = run("remember", "a memory of a made-up profile", "--profile", f"x{ESCAPES}")
    assert result.exit_code == 1
    _no_controls(result.stderr)


def test_recall_as_of_or_no_touch_does_not_count_an_access(run) -> None:  # type: ignore[no-untyped-def]
    memory_id = _remember(run, "The staging API listens on port 8080")

    def access() -> tuple[int, str | None]:
        record = json.loads(run("show", memory_id, "--json").stdout)
        return record["access_count"], record["last_accessed_at"]

    before = access()
    out1 = run("recall", "staging port", "--profile", "aide", "--as-of", "0001-01-01T00:00:00")
    out2 = run("recall", "staging port", "--profile", "aide", "--as-of", "0001-01-01T00:00:00")
    assert out1.stdout == out2.stdout
    assert run("recall", "staging port", "--profile", "aide", "--no-touch").exit_code == 0
    assert access() == before
    run("recall", "staging port", "--profile", "aide")
    assert access()[0] == before[0] + 1


def test_the_store_and_exports_are_private(run, home: Path, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    _remember(run, "The staging API listens on port 8080")
    for name in ("salience.db", "salience.db-wal", "salience.db-shm"):
        if (home / name).exists():
            assert stat.S_IMODE((home / name).stat().st_mode) == 0o600, name
    assert stat.S_IMODE(home.stat().st_mode) == 0o700
    out = tmp_path / "dump.jsonl"
    out.write_text("old", encoding="utf-8")
    os.chmod(out, 0o644)
    assert run("export", str(out)).exit_code == 0
    assert stat.S_IMODE(out.stat().st_mode) == 0o600
    assert "staging API" in out.read_text(encoding="utf-8")


def test_a_read_on_a_missing_home_creates_nothing(tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    runner = CliRunner(env=ENV)
    typo = tmp_path / "hmoe"
    for args in (["list"], ["recall", "anything"], ["stats"], ["briefing"], ["show", "x"]):
        result = runner.invoke(cli, [*args, "--home", str(typo)])
        assert result.exit_code == 1, args
        assert result.stderr.startswith(f"error: no salience store at {typo}")
        assert not typo.exists()
    made = runner.invoke(cli, ["remember", "The staging API listens on 8080", "--home", str(typo)])
    assert made.exit_code == 0
    assert f"created a new store at {typo / 'salience.db'}" in made.stderr
    again = runner.invoke(cli, ["remember", "The prod API listens on 443", "--home", str(typo)])
    assert "created a new store" not in again.stderr


def test_empty_and_foreign_files_are_refused(run, home: Path) -> None:  # type: ignore[no-untyped-def]
    home.mkdir()
    (home / "salience.db").write_bytes(b"")
    os.utime(home / "salience.db", (1e9, 1e9))  # left behind long ago, not being created now
    result = run("remember", "The staging API listens on port 8080")
    assert result.exit_code == 1
    assert "is empty (0 bytes)" in result.stderr
    assert (home / "salience.db").read_bytes() == b""
    (home / "salience.db").write_text("my thesis, chapter 1", encoding="utf-8")
    result = run("list")
    assert "not an SQLite file" in result.stderr
    assert (home / "salience.db").read_text(encoding="utf-8") == "my thesis, chapter 1"


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"[" * 100_000 + b"]" * 100_000 + b"\n", "nested too deeply"),
        (b'{"content": "fine text here", "access_count": ' + b"1" * 31 + b"}\n", "access_count"),
        (b'{"content": "fine text here", "importance": 1' + b"0" * 400 + b"}\n", "importance"),
        (b'{"content": "fine"}\n{"content": "caf\xe9 au lait"}\n', "line 2: not UTF-8"),
    ],
)
def test_hostile_imports_are_one_line_errors(  # type: ignore[no-untyped-def]
    run, tmp_path: Path, content: bytes, message: str
) -> None:
    _remember(run, "a store with one memory in it")
    bad = tmp_path / "bad.jsonl"
    bad.write_bytes(content)
    result = run("import", str(bad))
    assert result.exit_code == 1
    assert result.stderr.count("\n") == 1, result.stderr
    assert message in result.stderr
    assert "Traceback" not in result.output
    assert json.loads(run("stats", "--json").stdout)["total"] == 1


def test_a_rejected_session_summary_exits_1(run) -> None:  # type: ignore[no-untyped-def]
    assert run("session", "start").exit_code == 0
    result = run("session", "end", "--summary", "used ghp_Zq8Rt2Lm5Xw9Kp3Vn7Bc1Hd4Fj6Gs0Ay2Eu")
    assert result.exit_code == 1
    assert "rejected by the secret gate" in result.stderr
    assert "ghp_" not in result.output


def test_a_damaged_store_says_damaged(run, home: Path, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    lines = tmp_path / "many.jsonl"
    lines.write_text(
        "".join(
            json.dumps({"content": f"memory number {n} about the deploy pipeline"}) + "\n"
            for n in range(200)
        ),
        encoding="utf-8",
    )
    assert run("import", str(lines)).exit_code == 0
    path = home / "salience.db"
    with sqlite3.connect(path) as conn:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    size = path.stat().st_size
    with path.open("r+b") as handle:
        handle.seek(size // 2)
        handle.write(b"\xa5" * 8192)
    results = [run("remember", "one more memory about the pipeline"), run("list", "--all")]
    failed = [r for r in results if r.exit_code != 0]
    assert failed, "a damaged store went unnoticed by both a write and a full read"
    for result in failed:
        assert result.exit_code == 1
        assert "is damaged" in result.stderr


def test_forget_answers_forgotten_and_stats_lines_are_readable(run) -> None:  # type: ignore[no-untyped-def]
    memory_id = _remember(run, "The billing service retries three times", "--project", "billing")
    assert run("stats").stdout.splitlines()[-1] == "projects  billing 1"
    assert run("forget", memory_id).stdout.split() == ["forgotten", memory_id]


def test_an_empty_briefing_says_why_on_stderr(run) -> None:  # type: ignore[no-untyped-def]
    _remember(run, "The billing service retries three times", "--type", "learning")
    result = run("briefing", "--profile", "aide")
    assert result.exit_code == 0
    assert result.stdout == ""  # stdout stays exactly what would be injected
    assert "the briefing is empty" in result.stderr
    assert "--project" in result.stderr


def test_supersede_and_update_do_not_make_duplicates(run) -> None:  # type: ignore[no-untyped-def]
    first = _remember(run, "The billing service retries three times")
    second = _remember(run, "The billing service has a 30 second timeout")
    result = run("supersede", second, "The billing service retries three times")
    assert result.stdout.startswith(f"duplicate {first}")
    result = run("update", second, "--content", "the billing service retries THREE times")
    assert result.stdout.startswith(f"duplicate {first}")
    assert len(json.loads(run("list", "--json").stdout)) == 2


def test_packs_signed_and_verified_from_the_command_line(run, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    _remember(run, "The billing service retries three times")
    key = tmp_path / "team.key"
    key.write_bytes(os.urandom(32))
    pack = tmp_path / "team.pack"
    exported = run("pack", "export", str(pack), "--sign-with", str(key))
    assert exported.exit_code == 0
    assert "signed" in exported.stdout
    assert stat.S_IMODE(pack.stat().st_mode) == 0o600
    other = tmp_path / "other-key"
    other.write_bytes(os.urandom(32))
    runner = CliRunner(env=ENV)
    elsewhere = ["--home", str(tmp_path / "elsewhere")]
    refused = runner.invoke(
        cli, ["pack", "import", str(pack), "--verify-with", str(other), *elsewhere]
    )
    assert refused.exit_code == 1
    assert "signature does not match" in refused.stderr
    accepted = runner.invoke(
        cli, ["pack", "import", str(pack), "--verify-with", str(key), *elsewhere]
    )
    assert accepted.exit_code == 0, accepted.output
    assert "1 created" in accepted.stdout
