"""An agent host configured from the README works: its MCP command line, driven by the SDK's
client, and the session hooks' JSON in the shape Claude Code expects."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from mcp import Client, StdioServerParameters

from salience import Memory
from salience.cli import cli
from salience.models import NOTES
from tests.mcp_server.test_native import TOOLS, _structured

pytestmark = [pytest.mark.process]

README = (Path(__file__).parent.parent.parent / "README.md").read_text(encoding="utf-8")


def test_the_entry_salience_connect_prints_works(tmp_path: Path) -> None:
    """What ``salience connect --print`` gives any host (the README's last line of its
    connect section), started as a host starts it and driven by the SDK's client."""
    printed = CliRunner().invoke(cli, ["connect", "--print", "--home", str(tmp_path / "home")])
    assert printed.exit_code == 0, printed.output
    server = json.loads(printed.stdout)["mcpServers"]["salience"]
    assert Path(server["command"]).is_absolute()  # (a host that passes no PATH finds it)
    env = {**os.environ, **server["env"], "SALIENCE_EMBEDDER": "none"}
    params = StdioServerParameters(command=server["command"], args=server["args"], env=env)

    async def main() -> None:
        async with Client(params, mode="legacy") as client:
            assert {t.name for t in (await client.list_tools()).tools} == TOOLS
            made = _structured(
                await client.call_tool("remember", {"content": "Deploys go through ops/deploy.sh"})
            )
            assert made["outcome"] == "created"

    asyncio.run(main())
    with Memory.open(tmp_path / "home", embedder=None) as memory:  # (in the store it named)
        assert [r.content for r in memory.list()] == ["Deploys go through ops/deploy.sh"]


def test_the_readme_connects_each_host_in_one_command_and_the_plugin_runs_salience() -> None:
    from salience.cli.hosts import HOSTS

    for host in HOSTS:
        assert f"salience connect {host}" in README, host
    plugin = Path(__file__).parent.parent.parent / "plugins" / "claude-code"
    hooks = json.loads((plugin / "hooks" / "hooks.json").read_text())["hooks"]
    commands = {event: entries[0]["hooks"][0]["command"] for event, entries in hooks.items()}
    assert commands == {
        "SessionStart": "salience hook session-start",
        "SessionEnd": "salience hook session-end",
    }
    server = json.loads((plugin / ".mcp.json").read_text())["mcpServers"]["salience"]
    assert (server["command"], server["args"]) == ("salience", ["mcp"])
    assert shutil.which("salience", path=str(Path(sys.executable).parent)) is not None


def test_session_start_prints_the_hook_json(tmp_path: Path) -> None:
    home = str(tmp_path / "home")
    runner = CliRunner(env={"SALIENCE_EMBEDDER": "none", "SALIENCE_HOME": home})
    assert runner.invoke(cli, ["remember", "Deploys go through ops/deploy.sh"]).exit_code == 0
    result = runner.invoke(cli, ["hook", "session-start"])
    assert result.exit_code == 0
    output = json.loads(result.stdout)
    assert output["continue"] is True
    specific = output["hookSpecificOutput"]
    assert specific["hookEventName"] == "SessionStart"
    with Memory.open(Path(home), embedder=None) as memory:
        assert specific["additionalContext"] == memory.briefing().text
    assert "ops/deploy.sh" in specific["additionalContext"]


def test_the_hook_heads_any_profiles_briefing_as_notes_not_instructions(tmp_path: Path) -> None:
    """The seed profiles' texts are exact; the hook puts the notes line before them (the
    salience profile's own header carries it, and marks each line's source)."""
    home = str(tmp_path / "home")
    runner = CliRunner(env={"SALIENCE_EMBEDDER": "none", "SALIENCE_HOME": home})
    assert runner.invoke(cli, ["remember", "Deploys go through ops/deploy.sh"]).exit_code == 0
    for profile in ("talome", "salience"):
        result = runner.invoke(cli, ["hook", "session-start", "--profile", profile])
        context = json.loads(result.stdout)["hookSpecificOutput"]["additionalContext"]
        with Memory.open(Path(home), embedder=None) as memory:
            text = memory.briefing(profile).text
        assert context.count(NOTES) == 1
        assert context == (text if profile == "salience" else f"{NOTES}\n\n{text}")


def test_session_end_stores_a_summary_from_the_hook_input(tmp_path: Path) -> None:
    home = str(tmp_path / "home")
    runner = CliRunner(env={"SALIENCE_EMBEDDER": "none", "SALIENCE_HOME": home})
    transcript = tmp_path / "transcript.jsonl"
    transcript.write_text(
        json.dumps({"type": "user", "message": {"role": "user", "content": "fix the build"}})
        + "\n"
        + json.dumps(
            {
                "type": "assistant",
                "message": {
                    "role": "assistant",
                    "content": [{"type": "text", "text": "The build now pins numpy below 2."}],
                },
            }
        )
        + "\n",
        encoding="utf-8",
    )
    hook_input = {"session_id": "abc", "transcript_path": str(transcript), "reason": "exit"}
    result = runner.invoke(cli, ["hook", "session-end"], input=json.dumps(hook_input))
    assert result.exit_code == 0, result.output
    with Memory.open(Path(home), embedder=None) as memory:
        [summary] = memory.list(type="summary")
    assert summary.content == "Session ended (exit). Last: The build now pins numpy below 2."
    bad = runner.invoke(cli, ["hook", "session-end"], input="not json")
    assert bad.exit_code == 2
    assert "Traceback" not in bad.output


def test_session_end_with_nothing_to_say_stores_nothing_and_says_so(tmp_path: Path) -> None:
    home = tmp_path / "home"
    runner = CliRunner(env={"SALIENCE_EMBEDDER": "none", "SALIENCE_HOME": str(home)})
    assert runner.invoke(cli, ["remember", "Deploys go through ops/deploy.sh"]).exit_code == 0
    hook_input = {"session_id": "abc", "transcript_path": str(tmp_path / "gone.jsonl")}
    result = runner.invoke(cli, ["hook", "session-end"], input=json.dumps(hook_input))
    assert result.exit_code == 0, result.output
    assert "nothing stored" in result.stderr
    with Memory.open(home, embedder=None) as memory:
        assert memory.list(type="summary") == []


def test_session_start_on_a_missing_store_creates_none(tmp_path: Path) -> None:
    home = tmp_path / "mistyped"
    runner = CliRunner(env={"SALIENCE_EMBEDDER": "none", "SALIENCE_HOME": str(home)})
    result = runner.invoke(cli, ["hook", "session-start"])
    assert result.exit_code == 0, result.output  # the host's session goes on
    assert json.loads(result.stdout)["hookSpecificOutput"]["additionalContext"] == ""
    assert "no salience store at" in result.stderr
    assert not home.exists()
