"""The session-start hook and a plain ``salience briefing`` computed without click
(``salience.cli.hookstart``): the CLI's output exactly, recorded as the CLI records it, and
every unusual case left to the CLI."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from salience import Config, Memory
from salience.cli import cli
from salience.cli.hookstart import cold_briefing, cold_hook


@pytest.fixture
def filled(home: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for name in [n for n in os.environ if n.startswith("SALIENCE_")]:
        monkeypatch.delenv(name)
    with Memory.open(config=Config(home=home, signal_gate=False), embedder=None) as memory:
        memory.remember("Deploys go through the ops channel", tags=["project:api"])
        memory.remember("The user prefers short answers", type="preference")
        memory.remember("Staging runs postgres 16", tags=["project:web"])
    return home


def _traces(home: Path) -> int:
    with Memory.open(config=Config(home=home), embedder=None) as memory:
        return len(memory.briefing_log(limit=100).entries)


@pytest.mark.parametrize(
    "args", [[], ["--project", "api"], ["--profile=aide"], ["--user", "default", "--project=web"]]
)
def test_the_output_is_the_cli_s(filled: Path, args: list[str]) -> None:
    given = ["--home", str(filled), *args]
    clicked = CliRunner().invoke(cli, ["hook", "session-start", *given], catch_exceptions=False)
    assert clicked.exit_code == 0
    before = _traces(filled)
    answer = cold_hook(given)
    assert answer is not None
    assert answer + "\n" == clicked.stdout
    assert _traces(filled) == before + 1  # recorded as the CLI records it


def test_what_is_out_of_the_ordinary_is_left_to_the_cli(
    filled: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert cold_hook(["--home", str(tmp_path / "nowhere")]) is None  # no store: the CLI says so
    assert cold_hook(["--home", str(filled), "--store", str(filled / "salience.db")]) is None
    assert cold_hook(["--home", str(filled), "--explain"]) is None
    (filled / "config.toml").write_text("briefing_budget = 'lots'\n")
    assert cold_hook(["--home", str(filled)]) is None  # a bad setting: the CLI reports it
    (filled / "config.toml").unlink()
    monkeypatch.setenv("SALIENCE_STORE_URL", str(filled / "salience.db"))
    assert cold_hook(["--home", str(filled)]) is None
    monkeypatch.delenv("SALIENCE_STORE_URL")
    assert cold_hook(["--home", str(filled)]) is not None


@pytest.mark.parametrize(
    ("command", "says"),
    [
        (["hook", "session-start"], '"hookEventName": "SessionStart"'),
        (["briefing"], "Deploys go through the ops channel"),
    ],
)
def test_the_hook_and_a_briefing_load_neither_click_nor_what_other_commands_need(
    filled: Path, command: list[str], says: str
) -> None:
    code = (
        f"import sys\nsys.argv = ['salience', *{command!r}, '--home', "
        f"{str(filled)!r}]\nfrom salience.cli import main\nmain()\n"
        "heavy = ['click', 'yaml', 'salience.sharing.importers', 'salience.cli.app',\n"
        # what writes, evaluations, packs and the learned fusion need: not a briefing
        "  'salience.write.gates.pipeline', 'salience.write.gates.secrets',\n"
        "  'salience.write.gates.instructions', 'salience.write.entities',\n"
        "  'salience.evaluation.twin', 'salience.stores.copy', 'salience.sharing.packwrite',\n"
        "  'salience.search.rerank', 'salience.embeddings.minilm', 'concurrent.futures',\n"
        # the other verbs: a briefing needs only salience.engine.briefs
        "  'salience.engine.memory', 'salience.engine.writes', 'salience.engine.recall',\n"
        "  'salience.evaluation', 'salience.engine.consolidating',\n"
        "  'salience.engine.jobs', 'salience.engine.sharing', 'salience.sharing.packs',\n"
        # the values of the other verbs (each class costs ~1 ms to build on a slow CPU)
        "  'salience.models.hits', 'salience.models.results', 'salience.models.reports',\n"
        "  'salience.models.store_records', 'salience.models.evaluation',\n"
        # the one gate of writes and what goes stale (made on the first write), and the
        # in-memory copies of the full-text index (made on the first search)
        "  'salience.write.authority', 'salience.engine.dependents',\n"
        "  'salience.stores.sqlite.textcopy', 'salience.stores.sqlite.ownertext']\n"
        "import gc\n"
        "print(gc.isenabled(), file=sys.stderr)\n"
        "print(sorted(m for m in heavy if m in sys.modules), file=sys.stderr)"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("SALIENCE_")}
    done = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    )
    assert says in done.stdout
    assert done.stderr.strip().splitlines()[-2:] == ["True", "[]"]  # (the collector back on)


@pytest.mark.parametrize(
    "args",
    [
        [],
        ["--project", "api"],
        ["--profile=aide", "--project=api"],
        ["--user", "default", "--project=web"],
    ],
)
def test_a_plain_briefing_is_the_cli_s_and_is_not_recorded(filled: Path, args: list[str]) -> None:
    given = ["--home", str(filled), *args]
    clicked = CliRunner().invoke(cli, ["briefing", *given], catch_exceptions=False)
    assert clicked.exit_code == 0
    before = _traces(filled)
    shown = cold_briefing(given)
    assert shown is not None
    assert shown + "\n" == clicked.stdout
    assert _traces(filled) == before  # a preview, as the command's


def test_a_briefing_shows_control_characters_as_the_cli_does(filled: Path) -> None:
    with Memory.open(config=Config(home=filled, signal_gate=False), embedder=None) as memory:
        memory.remember("Colour codes \x1b[31mred\x1b[0m here", source="user")
    clicked = CliRunner().invoke(cli, ["briefing", "--home", str(filled)])
    shown = cold_briefing(["--home", str(filled)])
    assert shown is not None
    assert "\\x1b[31mred\\x1b[0m" in shown
    assert shown + "\n" == clicked.stdout


def test_a_briefing_out_of_the_ordinary_is_left_to_the_cli(filled: Path, tmp_path: Path) -> None:
    assert cold_briefing(["--home", str(tmp_path / "nowhere")]) is None
    assert cold_briefing(["--home", str(filled), "--explain"]) is None
    assert cold_briefing(["--home", str(filled), "--json"]) is None
    assert cold_briefing(["--home", str(filled), "--budget", "50"]) is None
    assert cold_briefing(["--home", str(filled), "--profile", "nosuch"]) is None
    assert cold_briefing(["--home", str(filled), "--project", "nothing-here"]) is not None
    # An empty briefing: the CLI says why on stderr.
    assert cold_briefing(["--home", str(filled), "--profile", "aide"]) is None


def test_a_briefing_to_a_reader_gone_away_ends_quietly(filled: Path) -> None:
    """``salience briefing | head -1``: the reader may be gone before the briefing is
    written; the process ends with 0 and no traceback, as the CLI's commands do."""
    read, write = os.pipe()
    os.close(read)  # (gone before anything is written: the write fails every time)
    code = (
        f"import sys\nsys.argv = ['salience', 'briefing', '--home', {str(filled)!r}]\n"
        "from salience.cli import main\nmain()\n"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("SALIENCE_")}
    try:
        done = subprocess.run(
            [sys.executable, "-c", code],
            check=False,
            env=env,
            stdout=write,
            stderr=subprocess.PIPE,
            text=True,
        )
    finally:
        os.close(write)
    assert done.returncode == 0
    assert "Traceback" not in done.stderr
