"""``salience serve`` as a real uvicorn process on a free loopback port."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest

from salience import Client
from salience.cli.warm import warm_hook

pytestmark = [pytest.mark.process]

ENV = {**os.environ, "SALIENCE_EMBEDDER": "none", "SALIENCE_SIGNAL_GATE": "0"}


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _salience(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "salience", *args],
        env=env or ENV,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


@contextmanager
def running(
    home: Path, *extra: str, env: dict[str, str] | None = None, host: str = "127.0.0.1"
) -> Iterator[tuple[subprocess.Popen[bytes], str]]:
    """``salience serve`` on a free port, once it answers: the process and its base URL
    (stopped at the end, unless a test killed it already)."""
    port = _free_port()
    log = (home.parent / f"serve-{port}.log").open("w")
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "salience",
            "serve",
            "--home",
            str(home),
            "--port",
            str(port),
            "--host",
            host,
            *extra,
        ],
        env=env or ENV,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    base = f"http://{host}:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                if httpx.get(f"{base}/healthz", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            assert process.poll() is None, Path(log.name).read_text()
            assert time.monotonic() < deadline, "the server did not start in 60 s"
            time.sleep(0.1)
        yield process, base
    finally:
        if process.poll() is None:
            process.terminate()
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        log.close()


@contextmanager
def serving(
    home: Path, *extra: str, env: dict[str, str] | None = None, host: str = "127.0.0.1"
) -> Iterator[str]:
    """:func:`running`, for a test that needs only the base URL."""
    with running(home, *extra, env=env, host=host) as (_, base):
        yield base


def test_serve_on_another_loopback_address_answers(tmp_path: Path) -> None:
    """127.0.0.2 is loopback too: local mode serves it (it used to start, then answer 403
    to every request), and the start line says which mode."""
    home = tmp_path / "home"
    assert (
        _salience("remember", "The staging API listens on 8080", "--home", str(home)).returncode
        == 0
    )
    with serving(home, host="127.0.0.2") as base:
        assert httpx.get(f"{base}/healthz").json() == {"status": "ok", "mode": "local"}
        assert httpx.get(f"{base}/v1/memories").status_code == 200
        assert httpx.post(f"{base}/v1/sessions/start").status_code == 200
    assert "local mode" in next(tmp_path.glob("serve-*.log")).read_text()


def test_serve_answers_over_the_network(tmp_path: Path) -> None:
    home = tmp_path / "home"
    assert (
        _salience("remember", "The staging API listens on 8080", "--home", str(home)).returncode
        == 0
    )
    with serving(home) as base:
        found = httpx.post(f"{base}/v1/search", json={"query": "staging API"}).json()["hits"]
        assert found[0]["record"]["content"] == "The staging API listens on 8080"
        rae = httpx.post(
            f"{base}/compat/rae/v1/memory/store", json={"content": "Rotate deploy keys yearly"}
        )
        assert rae.status_code == 200
        assert set(rae.json()) == {"id", "message"}
        assert httpx.get(f"{base}/docs").status_code == 200
    listed = _salience("list", "--json", "--home", str(home))
    assert {r["content"] for r in json.loads(listed.stdout)} >= {"Rotate deploy keys yearly"}


def test_local_mode_refuses_to_leave_loopback(tmp_path: Path) -> None:
    home = tmp_path / "home"
    _salience("remember", "The staging API listens on 8080", "--home", str(home))
    refused = _salience("serve", "--host", "0.0.0.0", "--home", str(home))
    assert refused.returncode == 1
    assert "local mode" in refused.stderr
    assert "salience keys create --user" in refused.stderr
    assert "Traceback" not in refused.stderr


@pytest.mark.parametrize("workers", ["1", "2"])
def test_keys_and_tenants_across_workers(tmp_path: Path, workers: str) -> None:
    home = tmp_path / "home"
    alice = _salience("keys", "create", "--user", "alice", "--home", str(home)).stdout.strip()
    bob = _salience("keys", "create", "--user", "bob", "--home", str(home)).stdout.strip()
    listed = _salience("keys", "list", "--home", str(home)).stdout
    assert alice not in listed
    assert "alice" in listed
    with serving(home, "--workers", workers) as base:
        assert httpx.get(f"{base}/v1/memories").status_code == 401
        with Client(base, api_key=alice) as as_alice, Client(base, api_key=bob) as as_bob:
            written = [as_alice.remember(f"alice's memory number {n} here") for n in range(20)]
            assert all(w.ok for w in written)
            assert as_bob.list() == []
            assert len(as_alice.list()) == 20
        key_id = alice.split("_")[1]
        assert _salience("keys", "revoke", key_id, "--home", str(home)).returncode == 0
        answer = httpx.get(f"{base}/v1/memories", headers={"Authorization": f"Bearer {alice}"})
        assert answer.status_code == 401


def test_a_session_start_hook_asks_the_running_server_and_prints_the_same(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    for text in ("deploys go through ops/deploy.sh", "the staging API listens on port 8080"):
        assert _salience("remember", text, "--home", str(home)).returncode == 0
    hook = ("hook", "session-start", "--home", str(home), "--project", "api")
    with running(home) as (process, base):
        serving = json.loads((home / "serving.json").read_text(encoding="utf-8"))
        assert (serving["url"], serving["pid"]) == (base, process.pid)
        for name in ("SALIENCE_EMBEDDER", "SALIENCE_SIGNAL_GATE"):  # the server's settings
            monkeypatch.setenv(name, ENV[name])
        warm = warm_hook(list(hook[2:]))  # (in this process: the server answered)
        assert warm is not None
        asked = _salience(*hook)
        assert asked.returncode == 0, asked.stderr
        assert asked.stdout.strip() == warm
        log = httpx.get(f"{base}/v1/briefings/log").json()["briefings"]
        assert len(log) == 2  # both recorded, as a hook's briefing is
    assert not (home / "serving.json").exists()  # withdrawn when the server stopped
    cold = _salience(*hook)
    assert cold.returncode == 0, cold.stderr
    assert cold.stdout.strip() == warm
    assert "deploy.sh" in json.loads(warm)["hookSpecificOutput"]["additionalContext"]


def test_a_server_stopped_keeps_the_store_it_made_and_what_it_acknowledged(
    tmp_path: Path,
) -> None:
    """A store that `serve` made (a new home) stays when the server is stopped by SIGTERM:
    it was taken for a failed command's and deleted, with every memory written meanwhile."""
    home = tmp_path / "home"
    with serving(home) as base:
        made = httpx.post(
            f"{base}/v1/memories", json={"content": "Rotate the deploy key on Monday"}
        )
        assert made.status_code == 201
    listed = _salience("list", "--home", str(home), "--json")
    assert listed.returncode == 0, listed.stderr
    assert [m["id"] for m in json.loads(listed.stdout)] == [made.json()["id"]]
    assert "created a new store" in next(tmp_path.glob("serve-*.log")).read_text()


def test_a_purge_with_a_reader_open_and_a_server_recalling_leaves_no_byte(
    tmp_path: Path,
) -> None:
    """The erasure test as it happens in use: a server answers recalls of the memory while
    another process holds a read of the file and the CLI purges it. The purge says its
    erasure is pending; once the reader closes, the server completes it, and no file
    salience wrote (the home, its temporary folder) holds a byte of the text."""
    import sqlite3
    import threading

    marker = "qzvracemarker"
    home, scratch = tmp_path / "home", tmp_path / "tmp"
    scratch.mkdir()
    env = {**ENV, "TMPDIR": str(scratch)}
    made = _salience("remember", f"the loading bay code is {marker}", "--home", str(home),
                     "--json", env=env)  # fmt: skip
    memory_id = json.loads(made.stdout)["id"]
    _salience("remember", "the dock closes at six tonight", "--home", str(home), env=env)
    with serving(home, env=env) as base:
        stop = threading.Event()
        answered: list[int] = []

        def recall() -> None:
            with httpx.Client(base_url=base, timeout=10) as client:
                while not stop.is_set() and len(answered) < 2000:
                    answer = client.post("/v1/search", json={"query": f"loading bay {marker}"})
                    answered.append(answer.status_code)

        reader = sqlite3.connect(home / "salience.db", isolation_level=None)
        reader.execute("BEGIN")
        reader.execute("SELECT count(*) FROM memories").fetchone()
        recalling = threading.Thread(target=recall)
        recalling.start()
        try:
            purged = _salience("forget", memory_id, "--purge", "--home", str(home), env=env)
            assert purged.returncode == 0, purged.stderr
            assert "erasure pending" in purged.stdout + purged.stderr
        finally:
            stop.set()
            recalling.join()
            reader.close()
        assert answered
        assert set(answered) == {200}
        deadline = time.monotonic() + 60
        while httpx.get(f"{base}/v1/stats").json()["erasure_pending"] is not None:
            assert time.monotonic() < deadline, "the server did not complete the erasure"
            time.sleep(0.2)
    found = [
        str(p) for root in (home, scratch) for p in root.rglob("*")
        if p.is_file() and marker.encode() in p.read_bytes()
    ]  # fmt: skip
    assert found == []
