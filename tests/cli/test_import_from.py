"""``salience import --from SYSTEM PATH``: switching from another memory system in one command."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner, Result

from salience.cli import cli

ENV = {"SALIENCE_SIGNAL_GATE": "0", "SALIENCE_EMBEDDER": "none"}
DATA = Path(__file__).parent.parent / "data" / "importers"


def run(home: Path, *args: str) -> Result:
    return CliRunner(env=ENV).invoke(cli, [*args, "--home", str(home)], catch_exceptions=False)


def test_a_dry_run_then_the_import_then_nothing_more(tmp_path: Path) -> None:
    home = tmp_path / "home"
    planned = run(
        home, "import", "--from", "talome", str(DATA / "talome" / "talome.db"), "--dry-run"
    )
    assert planned.exit_code == 0, planned.output
    assert planned.stdout.startswith("talome: 4 found; would import 1 correction, 1 fact,")
    assert not home.exists()  # a dry run creates no store
    done = run(home, "import", "--from", "talome", str(DATA / "talome"), "--json")
    assert done.exit_code == 0, done.output
    report = json.loads(done.stdout)
    assert (report["system"], report["found"], report["created"]) == ("talome", 4, 4)
    again = run(home, "import", "--from", "talome", str(DATA / "talome"))
    assert "0 created, 0 updated, 4 unchanged" in again.stdout
    listed = json.loads(run(home, "list", "--all", "--json").stdout)
    assert len(listed) == 4


def test_what_is_not_kept_is_said(tmp_path: Path) -> None:
    done = run(tmp_path, "import", "--from", "basic-memory", str(DATA / "basic-memory"))
    assert done.exit_code == 0, done.output
    assert "not kept  relations (4 records): no place in salience" in done.stdout


def test_bad_sources_are_one_line_errors(tmp_path: Path) -> None:
    missing = run(tmp_path, "import", "--from", "engram", str(tmp_path / "nowhere.db"))
    assert missing.exit_code == 1
    assert "does not exist" in missing.stderr
    assert "Traceback" not in missing.output
    unknown = run(tmp_path, "import", "--from", "zep-cloud", str(tmp_path))  # (no importer)
    assert unknown.exit_code == 2
    plain = run(tmp_path, "import", str(tmp_path / "x.jsonl"), "--dry-run")
    assert plain.exit_code == 2
    assert "--dry-run goes with --from" in plain.output
    absent = CliRunner(env=ENV).invoke(
        cli, ["import", str(tmp_path / "x.jsonl"), "--home", str(tmp_path)]
    )
    assert absent.exit_code != 0
    assert "x.jsonl" in absent.output
    assert absent.exception is None or isinstance(absent.exception, SystemExit)
