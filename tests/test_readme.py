"""The README says only what is true: every command line it shows runs as shown."""

from __future__ import annotations

import contextlib
import io
import os
import re
import shlex
from pathlib import Path

import pytest
from click.testing import CliRunner

from salience.cli import cli
from tests.loopback import local_client

ROOT = Path(__file__).parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")
STORE_DOC = (ROOT / "docs" / "store.md").read_text(encoding="utf-8")
BLOCK = re.compile(r"```(\w+)\n(.*?)```", re.S)


def _blocks(language: str, text: str = README) -> list[str]:
    return [body for lang, body in BLOCK.findall(text) if lang == language]


def _command_lines(language: str = "sh", text: str = README) -> list[str]:
    """Every ``salience ...`` line of every shell block, in order, comments dropped."""
    lines = []
    for body in _blocks(language, text):
        for line in body.splitlines():
            command = line.split("  #", 1)[0].strip()
            if command.startswith("salience "):
                lines.append(command)
    return lines


def test_the_readme_shows_a_tour() -> None:
    assert len(_command_lines()) >= 10


def test_every_command_line_runs_as_shown_on_a_fresh_store(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SALIENCE_HOME", str(tmp_path / ".salience"))
    for name in ("SALIENCE_USER", "SALIENCE_PROFILE", "SALIENCE_EMBEDDER", "SALIENCE_SIGNAL_GATE"):
        monkeypatch.delenv(name, raising=False)
    runner = CliRunner()
    outputs = {}
    with contextlib.chdir(tmp_path):
        for command in _command_lines():
            result = runner.invoke(cli, shlex.split(command)[1:])
            assert result.exit_code == 0, f"{command}\n{result.output}"
            assert "Traceback" not in result.output
            outputs[command] = result.stdout
    # What the tour claims, checked on what it printed.
    recalled = outputs['salience recall "which port does staging use" --explain']
    assert recalled.splitlines()[0].endswith("The staging API listens on port 8080")
    assert "Alice" not in outputs["salience list"]
    moved = outputs['salience remember "I moved my sneakers to the shoe rack" --user sam']
    assert "  updates " in moved  # (the write says it changes the older one)
    with contextlib.chdir(tmp_path):  # (and sam's briefing gives the newer only)
        briefed = runner.invoke(cli, ["briefing", "--user", "sam"])
    assert "shoe rack (updates an older memory)" in briefed.stdout
    assert "under the bed" not in briefed.stdout
    assert "Alice" in outputs["salience list --user alice"]
    assert "[team]" in outputs['salience recall "billing retries"']
    assert "api-pack  (base, read-only)" in outputs["salience layer list"]


def test_the_python_example_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SALIENCE_HOME", str(tmp_path / ".salience"))
    example = _blocks("python")[-1]  # the library's example (the other one needs a server)
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(compile(example, "README.md", "exec"), {})
    lines = printed.getvalue().splitlines()
    assert lines[0].startswith("created ")
    assert lines[-1] == "['Use httpx with HTTP/2 enabled', 'Use httpx, not requests']"


def _curl(command: str, env: dict[str, str]) -> tuple[str, str, dict[str, str], str | None]:
    """(method, path, headers, body) of a README curl line, ``$VAR`` expanded."""
    words = [os.path.expandvars(w) if "$" in w else w for w in shlex.split(command)]
    for name, value in env.items():
        words = [w.replace(f"${name}", value) for w in words]
    headers: dict[str, str] = {}
    body = None
    url = ""
    rest = iter(words[1:])
    for word in rest:
        if word == "-H":
            name, _, value = next(rest).partition(":")
            headers[name.strip()] = value.strip()
        elif word == "-d":
            body = next(rest)
        elif not word.startswith("-"):
            url = word
    path = "/" + url.split("/", 1)[1] if "/" in url else "/"
    return ("POST" if body is not None else "GET"), path, headers, body


def test_the_readme_http_lines_work_as_shown(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:

    from salience import Memory
    from salience.server.app import create_app

    home = tmp_path / ".salience"
    monkeypatch.setenv("SALIENCE_HOME", str(home))
    runner = CliRunner()
    env: dict[str, str] = {}
    lines = [
        line.split("  #", 1)[0].strip()
        for body in _blocks("sh")
        for line in body.splitlines()
        if line.startswith(("curl ", "KEY=$(salience "))
    ]
    assert any(line.startswith("curl") for line in lines)
    assert runner.invoke(cli, ["remember", "a first memory, so the store exists"]).exit_code == 0
    with Memory.open(home) as memory, local_client(create_app(memory)) as client:
        for line in lines:
            if line.startswith("KEY=$("):
                result = runner.invoke(cli, shlex.split(line[len("KEY=$(") : -1])[1:])
                assert result.exit_code == 0, result.output
                env["KEY"] = result.stdout.strip()
                continue
            method, path, headers, body = _curl(line, env)
            answer = client.request(method, path, headers=headers, content=body)
            assert answer.status_code < 300, f"{line}\n{answer.text}"


def test_the_readme_is_a_quick_start() -> None:
    assert len(README.splitlines()) <= 150
    for link in re.findall(r"\]\((docs/[\w./-]+?)(?:#[\w-]+)?\)", README):
        assert (ROOT / link).is_file(), link


def test_the_postgresql_commands_run_as_shown(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, postgres_url: str
) -> None:
    """docs/store.md's PostgreSQL block (``bash``: it expands variables) on the test server, after a
    store was made in the home it migrates from."""
    home = tmp_path / ".salience"
    monkeypatch.setenv("SALIENCE_HOME", str(home))
    monkeypatch.setenv("SALIENCE_STORE_URL", postgres_url)
    monkeypatch.setenv("SALIENCE_EMBEDDER", "none")
    runner = CliRunner()
    made = runner.invoke(
        cli,
        ["remember", "The staging API listens on port 8080", "--store", str(home / "salience.db")],
    )
    assert made.exit_code == 0, made.output
    commands = _command_lines("bash", STORE_DOC)
    assert [c.split()[1] for c in commands] == ["migrate", "recall", "remember"]
    outputs = []
    for command in commands:
        argv = [os.path.expandvars(word) for word in shlex.split(command)[1:]]
        result = runner.invoke(cli, argv)
        assert result.exit_code == 0, f"{command}\n{result.output}"
        outputs.append(result.stdout)
    assert "verified" in outputs[0]
    assert "port 8080" in outputs[1]
