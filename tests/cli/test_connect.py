"""``salience connect HOST``: for each host, a fresh configuration, one with other servers in
it, a second run that changes nothing, ``--remove``, ``--dry-run``, and a file in a bad state
refused and left as it is."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from salience.cli import cli

FILES = {  # host -> its default file, under the home (~) or the project (.)
    "claude-code": "~/.claude.json",
    "claude-desktop": "~/.config/Claude/claude_desktop_config.json",
    "cursor": "~/.cursor/mcp.json",
    "vscode": "./.vscode/mcp.json",
    "codex": "~/.codex/config.toml",
}
KEYS = {"vscode": "servers", "codex": "mcp_servers"}
OTHER_TOML = '# my Codex settings\nmodel = "o4-mini"\n\n[mcp_servers.docs]\ncommand = "docs-mcp"\n'


@pytest.fixture
def place(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A home (``$HOME``) and a project (the working directory) of their own."""
    (tmp_path / "home").mkdir()
    (tmp_path / "project").mkdir()
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.chdir(tmp_path / "project")
    return tmp_path


def _file(place: Path, host: str) -> Path:
    where = FILES[host]
    base = place / ("home" if where.startswith("~") else "project")
    return base / where[2:]


def _run(*args: str) -> Result:
    return CliRunner().invoke(cli, ["connect", *args, "--home", "/srv/salience-home"])


def _servers(path: Path, host: str) -> dict[str, Any]:
    text = path.read_text()
    data = tomllib.loads(text) if host == "codex" else json.loads(text)
    found: dict[str, Any] = data.get(KEYS.get(host, "mcpServers"), {})
    return found


@pytest.mark.parametrize("host", sorted(FILES))
def test_a_fresh_configuration_gets_salience_and_a_second_run_changes_nothing(
    place: Path, host: str
) -> None:
    first = _run(host)
    assert first.exit_code == 0, first.output
    path = _file(place, host)
    entry = _servers(path, host)["salience"]
    assert entry["args"] == ["mcp"]
    assert Path(entry["command"]).name in ("salience", "pytest", "__main__.py") or entry["command"]
    assert entry["env"] == {"SALIENCE_HOME": "/srv/salience-home"}  # (the store, named)
    if host == "vscode":
        assert entry["type"] == "stdio"
    written = path.read_text()
    again = _run(host)
    assert again.exit_code == 0
    assert "unchanged" in again.output
    assert path.read_text() == written
    assert not path.with_name(path.name + ".salience-backup").exists()  # (nothing replaced)


@pytest.mark.parametrize("host", sorted(FILES))
def test_other_entries_are_kept_backed_up_and_remove_undoes_it(place: Path, host: str) -> None:
    path = _file(place, host)
    path.parent.mkdir(parents=True, exist_ok=True)
    if host == "codex":
        original = OTHER_TOML
    else:
        key = KEYS.get(host, "mcpServers")
        original = json.dumps({"theme": "dark", key: {"docs": {"command": "docs-mcp"}}})
    path.write_text(original)
    assert _run(host).exit_code == 0
    servers = _servers(path, host)
    assert set(servers) == {"docs", "salience"}
    assert path.with_name(path.name + ".salience-backup").read_text() == original
    if host == "codex":
        assert path.read_text().startswith(OTHER_TOML)  # (comments and order as written)
    else:
        assert json.loads(path.read_text())["theme"] == "dark"
    removed = _run(host, "--remove")
    assert removed.exit_code == 0, removed.output
    assert set(_servers(path, host)) == {"docs"}
    if host == "codex":
        assert path.read_text().strip() == OTHER_TOML.strip()


@pytest.mark.parametrize("host", sorted(FILES))
def test_a_dry_run_shows_the_change_and_writes_nothing(place: Path, host: str) -> None:
    shown = _run(host, "--dry-run")
    assert shown.exit_code == 0
    assert "+" in shown.output
    assert "salience" in shown.output
    assert not _file(place, host).exists()


@pytest.mark.parametrize(
    ("host", "text", "said"),
    [
        ("claude-code", '{"mcpServers": {"docs": ', "not valid JSON"),
        ("cursor", '{"mcpServers": []}', "is not an object"),
        ("vscode", '{\n  // my servers\n  "servers": {}\n}\n', "has comments"),
        ("claude-desktop", "[1, 2]", "not a JSON object"),
        ("codex", "model = \n", "not valid TOML"),
    ],
)
def test_a_file_in_a_bad_state_is_refused_and_left_as_it_is(
    place: Path, host: str, text: str, said: str
) -> None:
    path = _file(place, host)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    refused = _run(host)
    assert refused.exit_code == 1
    assert said in refused.output
    assert "left as it is" in refused.output
    assert "Traceback" not in refused.output
    assert path.read_text() == text
    assert not path.with_name(path.name + ".salience-backup").exists()


def test_claude_code_gets_session_hooks_beside_the_users_own(place: Path) -> None:
    settings = place / "home" / ".claude" / "settings.json"
    settings.parent.mkdir(parents=True)
    theirs = {"matcher": "Bash", "hooks": [{"type": "command", "command": "lint.sh"}]}
    settings.write_text(json.dumps({"model": "opus", "hooks": {"PreToolUse": [theirs]}}))
    assert _run("claude-code").exit_code == 0
    hooks = json.loads(settings.read_text())["hooks"]
    assert hooks["PreToolUse"] == [theirs]
    [start] = hooks["SessionStart"]
    command = start["hooks"][0]["command"]
    assert command.startswith("SALIENCE_HOME=/srv/salience-home ")
    assert command.endswith(" hook session-start")
    assert "hook session-end" in hooks["SessionEnd"][0]["hooks"][0]["command"]
    assert _run("claude-code").exit_code == 0  # (twice: still one of each)
    assert len(json.loads(settings.read_text())["hooks"]["SessionStart"]) == 1
    assert _run("claude-code", "--remove").exit_code == 0
    assert json.loads(settings.read_text()) == {"model": "opus", "hooks": {"PreToolUse": [theirs]}}


def test_a_project_scope_and_print_for_any_other_host(place: Path) -> None:
    assert _run("claude-code", "--scope", "project").exit_code == 0
    assert "salience" in json.loads((place / "project" / ".mcp.json").read_text())["mcpServers"]
    assert (place / "project" / ".claude" / "settings.json").exists()
    printed = _run("--print")
    assert json.loads(printed.output)["mcpServers"]["salience"]["args"] == ["mcp"]
    desktop = _run("claude-desktop", "--scope", "project")
    assert desktop.exit_code == 1
    assert "no project configuration" in desktop.output


CLAUDE_CODE = "@anthropic-ai/claude-code@2.1.197"
ROOT = Path(__file__).parent.parent.parent


@pytest.fixture(scope="module")
def claude(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Claude Code itself, from npm (pinned): its ``claude`` command."""
    import shutil
    import subprocess

    npm = shutil.which("npm")
    assert npm is not None, "npm is needed (CI installs Node with it)"
    tools = tmp_path_factory.mktemp("node")
    installed = subprocess.run(
        [npm, "install", "--silent", "--prefix", str(tools), CLAUDE_CODE],
        check=False,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert installed.returncode == 0, installed.stderr[-2000:]
    return tools / "node_modules" / ".bin" / "claude"


def _runner(home: Path, **extra: str) -> Any:
    """Runs a command as a user whose home is ``home`` (with this install's ``salience`` on
    the PATH, and no embedding model to load: the MCP handshake is what is checked)."""
    import os
    import sys

    from tests import running

    bin_dir = Path(sys.executable).parent
    env = {**os.environ, "HOME": str(home), "PATH": f"{bin_dir}:{os.environ['PATH']}"}
    env.update(SALIENCE_EMBEDDER="none", **extra)

    def run(*command: str | Path) -> str:
        return running.run(*command, env=env, cwd=home, timeout=180)

    return run


@pytest.mark.slow
@pytest.mark.real
def test_claude_codes_own_cli_sees_salience_connected(tmp_path: Path, claude: Path) -> None:
    """Claude Code reads the configuration ``salience connect`` wrote, starts the server, and
    reports it connected (``claude mcp list`` checks each stdio server with an MCP handshake;
    it needs no account and no network)."""
    import sys

    home = tmp_path / "home"
    home.mkdir()
    run = _runner(home)
    salience = Path(sys.executable).parent / "salience"
    run(salience, "connect", "claude-code", "--home", tmp_path / "store")
    [line] = [ln for ln in run(claude, "mcp", "list").splitlines() if ln.startswith("salience:")]
    assert "Connected" in line
    assert str(salience.resolve()) in line


@pytest.mark.slow
@pytest.mark.real
def test_the_claude_code_plugin_validates_installs_and_connects(
    tmp_path: Path, claude: Path
) -> None:
    """The repository is a plugin marketplace (``.claude-plugin/marketplace.json``) holding
    the plugin (``plugins/claude-code``: the MCP server and the session hooks): both pass
    Claude Code's strict validation, and ``claude plugin install`` from the repository sets
    up a server that connects."""
    home = tmp_path / "home"
    home.mkdir()
    run = _runner(home, SALIENCE_HOME=str(tmp_path / "store"))
    assert "Validation passed" in run(claude, "plugin", "validate", "--strict", ROOT)
    plugin = ROOT / "plugins" / "claude-code"
    assert "Validation passed" in run(claude, "plugin", "validate", "--strict", plugin)
    run(claude, "plugin", "marketplace", "add", ROOT)
    run(claude, "plugin", "install", "salience@salience")
    listed = run(claude, "mcp", "list")
    [line] = [ln for ln in listed.splitlines() if ln.startswith("plugin:salience:salience:")]
    assert "Connected" in line
    hooks = json.loads((plugin / "hooks" / "hooks.json").read_text())["hooks"]
    assert hooks["SessionStart"][0]["hooks"][0]["command"] == "salience hook session-start"


def test_a_postgresql_store_is_named_but_never_its_password(
    place: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SALIENCE_STORE_URL", "postgresql://mem@db.internal/salience")
    assert _run("cursor").exit_code == 0
    env = _servers(_file(place, "cursor"), "cursor")["salience"]["env"]
    assert env["SALIENCE_STORE_URL"] == "postgresql://mem@db.internal/salience"
    monkeypatch.setenv("SALIENCE_STORE_URL", "postgresql://mem:hunter2@db.internal/salience")
    warned = _run("cursor")
    assert "holds a password" in warned.output
    assert "hunter2" not in _file(place, "cursor").read_text()
    assert "hunter2" not in warned.output


def test_an_install_without_its_own_command_is_started_through_python(
    place: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Run as ``python -m salience`` with no ``salience`` command beside that Python or on
    the PATH: the host starts that Python with ``-m salience`` (never the program that
    happened to run this one)."""
    import sys

    from salience.cli.connect import launch_for

    python = place / "bin" / "python3"
    monkeypatch.setattr(sys, "executable", str(python))
    monkeypatch.setenv("PATH", str(place / "empty"))
    launch = launch_for(place / "store")
    assert (launch.command, launch.args) == (str(python), ("-m", "salience", "mcp"))
    assert launch.shell("hook", "session-start").endswith(
        f"{python} -m salience hook session-start"
    )
