"""``salience eval`` and ``salience briefing log``."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from salience.cli import cli


def test_eval_compares_two_configurations_and_keeps_a_baseline(tmp_path: Path) -> None:
    runner = CliRunner(env={"SALIENCE_SIGNAL_GATE": "0", "SALIENCE_EMBEDDER": "none"})
    home = ["--home", str(tmp_path / "home")]
    made = runner.invoke(cli, ["remember", "the staging API listens on port 8080", "--json", *home])
    first = json.loads(made.stdout)["id"]
    runner.invoke(cli, ["supersede", first, "the staging API moved to port 9090", *home])
    empty_home = ["--home", str(tmp_path / "other")]
    runner.invoke(cli, ["remember", "nothing to probe here at all", *empty_home])
    nothing = runner.invoke(cli, ["eval", *empty_home])
    assert nothing.exit_code == 0
    assert "no probes yet" in nothing.stderr
    done = runner.invoke(cli, ["eval", "--against-profile", "ilab", "--save", *home])
    assert done.exit_code == 0, done.output
    lines = done.stdout.splitlines()
    assert lines[0] == "1 probes: 1 supersession"
    assert lines[2].startswith("current ")
    assert lines[3].startswith("profile=ilab ")
    assert lines[-1] == "saved as the baseline"
    again = runner.invoke(cli, ["eval", "--json", *home])
    data = json.loads(again.stdout)
    assert data["baseline"]["metrics"]["recall_at_10"] == data["runs"][0]["metrics"]["recall_at_10"]
    bad = runner.invoke(cli, ["eval", "--against-recall-prior", "2", *home])
    assert bad.exit_code == 2
    assert "--against-recall-prior" in bad.output
    assert "Traceback" not in bad.output
    plain = runner.invoke(cli, ["eval", "--against-embedder", "none", "--json", *home])
    assert plain.exit_code == 0, plain.output
    assert [r["embedder"] for r in json.loads(plain.stdout)["runs"]] == [None, "none"]
    # A store without a model: would the bundled one help? (embedded on a scratch copy)
    model = runner.invoke(cli, ["eval", "--against-embedder", "minilm", "--json", *home])
    assert model.exit_code == 0, model.output
    assert [r["label"] for r in json.loads(model.stdout)["runs"]] == ["current", "embedder=minilm"]
    unnamed = runner.invoke(cli, ["eval", "--against-embedder", "ollama", *home])
    assert unnamed.exit_code != 0
    assert "needs embedder_model" in unnamed.output
    assert "Traceback" not in unnamed.output
    weights = ["--against-setting", "rae_weights=semantic=0.9,usage=0", "--against-profile", "rae"]
    weighed = runner.invoke(cli, ["eval", *weights, *home])
    assert weighed.exit_code == 0, weighed.output
    assert "profile=rae rae_weights=semantic=0.9,usage=0" in weighed.stdout
    for bad_setting in ("recall_prior", "briefing_budget=3", "rae_weights=speed=1"):
        refused = runner.invoke(cli, ["eval", "--against-setting", bad_setting, *home])
        assert refused.exit_code != 0
        assert "Traceback" not in refused.output
        assert refused.output.strip()


def test_briefing_log_lists_what_the_hook_gave(tmp_path: Path) -> None:
    runner = CliRunner(env={"SALIENCE_SIGNAL_GATE": "0", "SALIENCE_EMBEDDER": "none"})
    home = ["--home", str(tmp_path / "home")]
    runner.invoke(cli, ["remember", "deploys go through ops/deploy.sh", *home])
    runner.invoke(cli, ["briefing", *home])  # a person's preview: not recorded
    assert "no briefing recorded yet" in runner.invoke(cli, ["briefing", "log", *home]).stderr
    assert runner.invoke(cli, ["hook", "session-start", *home]).exit_code == 0
    log = runner.invoke(cli, ["briefing", "log", "--json", *home])
    assert log.exit_code == 0, log.output
    [entry] = json.loads(log.stdout)["briefings"]
    assert entry["profile"] == "salience"
    assert len(entry["memories"]) == 1
