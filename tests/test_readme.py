"""The README says only what is true: every command line it shows runs as shown."""

from __future__ import annotations

import contextlib
import io
import re
import shlex
from pathlib import Path

import pytest
from click.testing import CliRunner

from salience.cli import cli

README = (Path(__file__).parent.parent / "README.md").read_text(encoding="utf-8")
BLOCK = re.compile(r"```(\w+)\n(.*?)```", re.S)


def _blocks(language: str) -> list[str]:
    return [body for lang, body in BLOCK.findall(README) if lang == language]


def _command_lines() -> list[str]:
    """Every ``salience ...`` line of every shell block, in order, comments dropped."""
    lines = []
    for body in _blocks("sh"):
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
