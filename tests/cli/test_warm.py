"""A session-start hook answered by a running server (``salience.cli.warm``): when it asks,
what it sends, and every case where it leaves the hook to compute the briefing itself."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from salience.cli.warm import announce, hook_output, warm_hook, withdraw
from salience.config import Config
from tests.jsonserver import Request, json_server


@pytest.fixture
def fake_server() -> Iterator[tuple[str, list[Request]]]:
    """A loopback HTTP server answering POST /v1/briefing with a context, and what it got."""

    def reply(path: str, body: dict[str, Any]) -> tuple[int, Any]:
        found = {"context": "the notes\n- deploys go through ops"}
        return (200, found) if path == "/v1/briefing" else (404, None)

    with json_server(reply) as served:
        yield served


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for name in [n for n in os.environ if n.startswith("SALIENCE_")]:
        monkeypatch.delenv(name)
    return tmp_path / "home"


def _announce(home: Path, url: str, **changed: Any) -> Path:
    home.mkdir(exist_ok=True)
    path = announce(home, url, str(home / "salience.db"), Config.for_home(home))
    if changed:
        path.write_text(json.dumps({**json.loads(path.read_text()), **changed}))
    return path


def test_the_hook_asks_the_server_that_serves_its_store(
    home: Path, fake_server: tuple[str, list[Request]]
) -> None:
    url, asked = fake_server
    _announce(home, url)
    answer = warm_hook(["--home", str(home), "--project", "api", "--profile=aide"])
    assert answer == hook_output("the notes\n- deploys go through ops")
    wanted = {"profile": "aide", "project": "api", "manifest": False}
    assert [(path, body) for path, _, body in asked] == [("/v1/briefing", wanted)]
    assert json.loads(answer)["hookSpecificOutput"]["hookEventName"] == "SessionStart"


@pytest.mark.parametrize(
    "case",
    [
        "no server",
        "another store",
        "another user",
        "other settings",
        "gone",
        "not loopback",
        "error",
        "option",
    ],
)
def test_otherwise_the_hook_computes_it_itself(
    home: Path,
    fake_server: tuple[str, list[Request]],
    monkeypatch: pytest.MonkeyPatch,
    case: str,
) -> None:
    url, asked = fake_server
    args = ["--home", str(home)]
    if case == "another store":
        _announce(home, url, store=str(home / "other.db"))
    elif case == "another user":
        _announce(home, url)
        monkeypatch.setenv("SALIENCE_USER", "bo")
    elif case == "other settings":
        _announce(home, url)
        monkeypatch.setenv("SALIENCE_BRIEFING_BUDGET", "500")  # (the hook's, not the server's)
    elif case == "gone":
        _announce(home, url, pid=2**22 + 12345)  # (beyond pid_max: no such process)
    elif case == "not loopback":
        _announce(home, url.replace("127.0.0.1", "192.0.2.1"))
    elif case == "error":
        _announce(home, url + "/nowhere")
    elif case == "option":
        _announce(home, url)
        args.append("--explain")
    assert warm_hook(args) is None
    if case in ("error",):
        assert asked  # it asked, and took the failure for an answer of none
    else:
        assert asked == []


def test_a_store_named_in_the_environment_is_left_to_the_hook(
    home: Path, fake_server: tuple[str, list[Request]], monkeypatch: pytest.MonkeyPatch
) -> None:
    url, asked = fake_server
    _announce(home, url)
    monkeypatch.setenv("SALIENCE_STORE_URL", str(home / "salience.db"))
    assert warm_hook(["--home", str(home)]) is None
    assert asked == []


def test_the_announcement_is_the_owners_alone_and_taken_back_by_its_process(home: Path) -> None:
    path = _announce(home, "http://127.0.0.1:1")
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert json.loads(path.read_text())["pid"] == os.getpid()
    path.write_text(json.dumps({"pid": os.getpid() + 1}))  # another server's now
    withdraw(path)
    assert path.exists()
    _announce(home, "http://127.0.0.1:1")
    withdraw(path)
    assert not path.exists()


def test_the_warm_path_loads_no_engine(home: Path, fake_server: tuple[str, list[Request]]) -> None:
    """What the warm hook saves is the engine's import: a new process asks and answers
    without loading it (or NumPy)."""
    url, _ = fake_server
    _announce(home, url)
    code = (
        "import sys\nfrom salience.cli.warm import warm_hook\n"
        f"answer = warm_hook(['--home', {str(home)!r}])\n"
        "heavy = [m for m in sys.modules if m.startswith('salience.engine') or m == 'numpy._core']"
        "\nprint(answer is not None, sorted(heavy))"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("SALIENCE_")}
    done = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    )
    assert done.stdout.split() == ["True", "[]"]
