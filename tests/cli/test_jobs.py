"""``salience jobs list|show|cancel``: a server's jobs, seen and stopped from the command line
(another process: the cancel is asked through the store)."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

from click.testing import CliRunner

from salience import Config, Memory
from salience.cli import cli
from salience.models import Job, JobState

AT = datetime(2026, 11, 1, tzinfo=UTC)


def _server_job(home: Path, job_id: str, state: JobState, user: str = "default") -> None:
    """A job as a server process on another host keeps it in the store."""
    with Memory.open(config=Config(home=home, embedder="none")) as memory:
        finished = None if state in (JobState.RUNNING, JobState.QUEUED) else AT
        job = Job(
            job_id,
            user,
            "import_from",
            state,
            AT,
            datetime.now(UTC),
            done=2,
            total=9,
            finished_at=finished,
            owner="server-host:4242",
        )
        memory.store.save_job(job)


def test_a_running_job_is_listed_shown_and_cancelled(tmp_path: Path) -> None:
    runner = CliRunner(env={"SALIENCE_EMBEDDER": "none"})
    home = tmp_path / "home"
    _server_job(home, "01JOBRUNNING0000000000000000", JobState.RUNNING)
    _server_job(home, "01JOBDONE00000000000000000", JobState.DONE)
    _server_job(home, "01JOBOFBOB000000000000000", JobState.RUNNING, user="bob")
    at = ["--home", str(home)]
    listed = runner.invoke(cli, ["jobs", "list", "--json", *at])
    assert listed.exit_code == 0, listed.output
    assert {j["id"] for j in json.loads(listed.output)} == {
        "01JOBRUNNING0000000000000000",
        "01JOBDONE00000000000000000",  # (not bob's)
    }
    shown = runner.invoke(cli, ["jobs", "show", "01JOBRUNNING0000000000000000", *at])
    assert "import_from" in shown.output
    assert "running  2/9" in shown.output
    cancelled = runner.invoke(cli, ["jobs", "cancel", "01JOBRUNNING0000000000000000", *at])
    assert cancelled.exit_code == 0, cancelled.output
    assert "asked job 01JOBRUNNING0000000000000000 to stop" in cancelled.output
    with Memory.open(config=Config(home=home, embedder="none")) as memory:
        assert memory.store.cancel_asked("01JOBRUNNING0000000000000000")
        assert not memory.store.cancel_asked("01JOBOFBOB000000000000000")


def test_a_finished_or_unknown_job_is_a_one_line_error(tmp_path: Path) -> None:
    runner = CliRunner(env={"SALIENCE_EMBEDDER": "none"})
    home = tmp_path / "home"
    _server_job(home, "01JOBDONE00000000000000000", JobState.DONE)
    _server_job(home, "01JOBOFBOB000000000000000", JobState.RUNNING, user="bob")
    at = ["--home", str(home)]
    for job_id, said in (
        ("01JOBDONE00000000000000000", "has finished already"),
        ("01JOBOFBOB000000000000000", "no job with that id"),  # (another user's)
        ("nonsense", "no job with that id"),
    ):
        answer = runner.invoke(cli, ["jobs", "cancel", job_id, *at])
        assert answer.exit_code == 1
        assert said in answer.output
        assert "Traceback" not in answer.output
    empty = runner.invoke(cli, ["jobs", "list", "--user", "carol", *at])
    assert empty.output.strip() == "no jobs"
