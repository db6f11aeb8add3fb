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
from hypothesis import given
from hypothesis import strategies as st

from salience.cli import warm
from salience.cli.warm import announce, home_path, hook_output, warm_hook, withdraw
from salience.config import Config, default_home
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


def test_the_home_is_found_as_the_configuration_finds_it(tmp_path: Path) -> None:
    environments = [
        {"SALIENCE_HOME": "~/memories/", "HOME": str(tmp_path)},
        {"SALIENCE_HOME": str(tmp_path / "a" / "b")},
        {"XDG_DATA_HOME": "~/data", "HOME": str(tmp_path)},
        {"SALIENCE_HOME": "", "XDG_DATA_HOME": str(tmp_path), "HOME": "/x"},
        {"HOME": str(tmp_path)},
    ]
    for environ in environments:
        with pytest.MonkeyPatch.context() as patch:
            patch.setenv("HOME", environ.get("HOME", str(tmp_path)))
            assert Path(home_path(environ)) == default_home(environ), environ


def _serving(home: Path) -> dict[str, Any]:
    return dict(json.loads((home / "serving.json").read_text()))


def test_settings_read_from_the_same_sources_are_taken_as_the_same(
    home: Path, fake_server: tuple[str, list[Request]]
) -> None:
    """The digest of what the settings were read from decides without loading the
    configuration: an announcement whose settings fingerprint is wrong is still asked."""
    url, asked = fake_server
    _announce(home, url, settings="not these")
    assert _serving(home)["sources"]["user"] == "default"
    assert warm_hook(["--home", str(home)]) is not None
    assert [body["profile"] for _, _, body in asked] == ["salience"]


def test_sources_that_differ_fall_back_to_comparing_the_settings(
    home: Path, fake_server: tuple[str, list[Request]], monkeypatch: pytest.MonkeyPatch
) -> None:
    url, asked = fake_server
    path = _announce(home, url)
    digest = _serving(home)["sources"]["digest"]
    monkeypatch.setenv("SALIENCE_VECTOR_INDEX", "auto")  # the default: same settings
    assert warm_hook(["--home", str(home)]) is not None  # (compared, found the same)
    (home / "config.toml").write_text("briefing_budget = 500\n")  # a new file
    announced = json.loads(path.read_text())
    announced["settings"] = "unlike any"  # (if the digest were trusted, it would ask)
    announced["sources"]["digest"] = digest
    path.write_text(json.dumps(announced))
    monkeypatch.delenv("SALIENCE_VECTOR_INDEX")
    assert warm_hook(["--home", str(home)]) is None  # the file changed: not trusted
    assert len(asked) == 1


def test_a_config_made_in_code_publishes_no_sources(home: Path) -> None:
    home.mkdir()
    config = Config(home=home, briefing_budget=321)
    announce(home, "http://127.0.0.1:1", str(home / "salience.db"), config)
    assert "sources" not in _serving(home)


def test_no_secret_is_announced_or_digested(
    home: Path, fake_server: tuple[str, list[Request]], monkeypatch: pytest.MonkeyPatch
) -> None:
    url, _ = fake_server
    monkeypatch.setenv("SALIENCE_EMBEDDER_API_KEY", "sk-announced-never-1234567890abcdef")
    path = _announce(home, url)
    text = path.read_text()
    assert "sk-announced" not in text
    assert "EMBEDDER_API_KEY" not in text
    monkeypatch.setenv("SALIENCE_EMBEDDER_API_KEY", "sk-another-key-0987654321fedcba")
    assert warm_hook(["--home", str(home)]) is not None  # (a key is no setting of a briefing)


@given(st.text())
def test_the_hook_output_is_what_json_writes(text: str) -> None:
    out = {
        "continue": True,
        "hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": text},
    }
    assert hook_output(text) == json.dumps(out, ensure_ascii=False)


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(),
    lambda inner: st.lists(inner) | st.dictionaries(st.text(), inner),
    max_leaves=20,
)


@given(JSON)
def test_json_is_read_and_written_as_the_json_module_does(value: Any) -> None:
    assert warm._dumps(value) == json.dumps(value, ensure_ascii=False)
    assert warm._loads(json.dumps(value)) == value
    assert warm._loads(json.dumps(value, indent=2) + "\n") == value


@pytest.mark.parametrize("text", ["", "{", "{} {}", '{"a": 1} x', "[1,]", "nul", '{"a": }'])
def test_what_is_not_one_json_document_is_refused(text: str) -> None:
    with pytest.raises(ValueError, match=r"JSON|Expecting"):
        warm._loads(text)


def test_a_malformed_announcement_in_a_new_process_is_no_error(tmp_path: Path) -> None:
    """The C scanner alone (json not imported) cannot report an error itself."""
    (tmp_path / "serving.json").write_text('{"pid": 1')
    code = (
        "import sys\nfrom salience.cli import warm\n"
        f"print(warm._read({str(tmp_path / 'serving.json')!r}), 'json' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["None", "True"]


OK = b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\ncontent-type: application/json\r\n\r\n{}"


@pytest.mark.parametrize(
    "answer",
    [
        OK.replace(b"200 OK", b"404 Not Found"),
        OK[:-1],  # cut short
        OK.replace(b"content-length: 2", b"transfer-encoding: chunked"),
        b"SSH-2.0-OpenSSH\r\n\r\n{}",
        b"",
    ],
)
def test_only_a_whole_200_answer_is_read(answer: bytes) -> None:
    assert warm._body(OK) == b"{}"
    with pytest.raises(ValueError, match=r"200|length"):
        warm._body(answer)
